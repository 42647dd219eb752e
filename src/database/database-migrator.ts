import { sql } from 'kysely';
import {
  Migrator,
  type Migration,
  type MigrationInfo,
  type MigrationProvider,
  type MigrationResult,
} from 'kysely/migration';
import { DatabaseMigrationError } from './database-migration.error.js';
import { allMigrations } from './migrations/feature-migrations.js';
import { dialectOf, type UntypedDb } from './migrations/schema-helpers.js';

/**
 * Serves the migrations listed in code (the core's in migrations/index.ts, the feature modules' registered with
 * `DatabaseModule.forFeature`) to Kysely's Migrator, each in a transaction: Kysely
 * wraps the whole run in one on PostgreSQL, but not on SQLite (whose DDL is transactional too), where a migration
 * failing half-way would otherwise leave half its tables behind.
 */
class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(Object.entries(allMigrations()).map(([name, migration]) => [name, atomic(migration)]));
  }
}

function atomic(migration: Migration): Migration {
  const inTransaction = (step: (db: UntypedDb) => Promise<void>) => (db: UntypedDb) =>
    db.isTransaction ? step(db) : db.transaction().execute((trx) => step(trx));
  return { up: inTransaction(migration.up), down: migration.down && inTransaction(migration.down) };
}

/** Migrations through Kysely's Migrator (its tables `kysely_migration` and `kysely_migration_lock`, a lock while it runs). */
export class DatabaseMigrator {
  private migrator: Promise<Migrator> | undefined;

  constructor(
    private readonly db: UntypedDb,
    /** How the database is named in error messages (no password). */
    private readonly target: string,
  ) {}

  /**
   * On PostgreSQL, Kysely's bookkeeping tables are looked up in the connection's own schema: without naming it,
   * Kysely finds `kysely_migration_lock` of any schema of the database (another application's, another test's)
   * and never creates its own.
   */
  private migratorFor(): Promise<Migrator> {
    this.migrator ??= (async () => {
      // A module's migrations sort after the core's by name, and a new core migration may come after a module's
      // was applied: each runs once, whatever the order they were added in.
      const options = { db: this.db, provider: new StaticMigrationProvider(), allowUnorderedMigrations: true };
      if (dialectOf(this.db) !== 'postgres') return new Migrator(options);
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(this.db);
      return new Migrator({ ...options, migrationTableSchema: rows[0]?.schema ?? 'public' });
    })();
    return this.migrator;
  }

  /** Runs every pending migration, in order; does nothing when none is pending. Resolves with those applied. */
  async migrateToLatest(): Promise<string[]> {
    let outcome: { error?: unknown; results?: MigrationResult[] };
    try {
      outcome = await (await this.migratorFor()).migrateToLatest();
    } catch (error) {
      throw new DatabaseMigrationError(null, this.target, error);
    }
    const { error, results = [] } = outcome;
    if (error !== undefined) {
      const failed = results.find((r) => r.status === 'Error');
      throw new DatabaseMigrationError(failed?.migrationName ?? null, this.target, error);
    }
    return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
  }

  /** Every known migration and when it was applied (null: pending). */
  async status(): Promise<{ name: string; executedAt: Date | null }[]> {
    const migrations: readonly MigrationInfo[] = await (await this.migratorFor()).getMigrations();
    return migrations.map((m) => ({ name: m.name, executedAt: m.executedAt ?? null }));
  }
}
