import type { Migration } from 'kysely/migration';
import { MIGRATIONS } from './index.js';

/** A feature module's migrations, by the name recorded in `kysely_migration`. */
const features = new Map<string, Migration>();

/**
 * Adds a feature module's migrations to the ones the application runs at start (and `npm run db:migrate`). Called
 * by `DatabaseModule.forFeature({ migrations })` while the module's file loads, before anything migrates. Names
 * start with the module's (`wishlist-0001-items`) so that they never collide with the core's or another module's.
 */
export function registerMigrations(migrations: Readonly<Record<string, Migration>>): void {
  for (const [name, migration] of Object.entries(migrations)) {
    if (name in MIGRATIONS || (features.has(name) && features.get(name) !== migration)) {
      throw new Error(`Two migrations are named "${name}": name a module's migrations after the module.`);
    }
    features.set(name, migration);
  }
}

/** The core's migrations and every registered feature module's, by name. */
export function allMigrations(): Readonly<Record<string, Migration>> {
  return { ...MIGRATIONS, ...Object.fromEntries(features) };
}
