import { sql } from 'kysely';
import { dialectOf, idColumn, timestampColumn, timestampType, type UntypedDb } from './schema-helpers.js';

/** Users and the sessions the session listener stores in the database. */
export async function up(db: UntypedDb): Promise<void> {
  const dialect = dialectOf(db);
  await db.schema
    .createTable('users')
    .addColumn('id', 'integer', idColumn(dialect))
    .addColumn('email', 'text', (col) => col.notNull().unique())
    .addColumn('password_hash', 'text', (col) => col.notNull())
    .addColumn('roles', 'text', (col) => col.notNull().defaultTo(sql`'["ROLE_USER"]'`))
    .addColumn('created_at', timestampType(dialect), timestampColumn(dialect))
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('data', 'text', (col) => col.notNull().defaultTo('{}'))
    .addColumn('user_id', 'integer', (col) => col.references('users.id').onDelete('cascade'))
    .addColumn('expires_at', timestampType(dialect), (col) => col.notNull())
    .addColumn('created_at', timestampType(dialect), timestampColumn(dialect))
    .addColumn('updated_at', timestampType(dialect), timestampColumn(dialect))
    .execute();
  // Expired sessions are removed by expires_at; a user's sessions are found (and ended) by user_id.
  await db.schema.createIndex('sessions_expires_at').on('sessions').column('expires_at').execute();
  await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();
}

export async function down(db: UntypedDb): Promise<void> {
  await db.schema.dropTable('sessions').execute();
  await db.schema.dropTable('users').execute();
}
