import { dialectOf, type UntypedDb } from './schema-helpers.js';

/**
 * Counters of rate-limiter-flexible's SQLite and PostgreSQL stores (login throttling): a key, the points consumed
 * in its window and when the window ends (milliseconds since the epoch). The columns are the library's own, so it
 * is told the table exists rather than creating it at start.
 */
export async function up(db: UntypedDb): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', postgres ? 'varchar(255)' : 'text', (col) => col.primaryKey())
    .addColumn('points', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('expire', postgres ? 'bigint' : 'integer')
    .execute();
  // Expired counters are pruned by their end.
  await db.schema.createIndex('rate_limits_expire').on('rate_limits').column('expire').execute();
}

export async function down(db: UntypedDb): Promise<void> {
  await db.schema.dropTable('rate_limits').execute();
}
