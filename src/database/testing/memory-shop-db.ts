import { tmpdir } from 'node:os';
import type { Migration } from 'kysely/migration';
import { DatabaseMigrator } from '../database-migrator.js';
import { createShopDb } from '../database.factory.js';
import { registerMigrations } from '../migrations/feature-migrations.js';
import type { ShopDb } from '../shop-db.js';

/**
 * For unit specs: a shop database in memory (SQLite), migrated to the latest schema, empty. A feature module's spec
 * passes its migrations, as `DatabaseModule.forFeature` would.
 */
export async function memoryShopDb(
  options: { migrations?: Readonly<Record<string, Migration>> } = {},
): Promise<ShopDb> {
  if (options.migrations) registerMigrations(options.migrations);
  const db = createShopDb('sqlite::memory:', { baseDir: tmpdir() });
  await new DatabaseMigrator(db, 'sqlite::memory:').migrateToLatest();
  return db;
}
