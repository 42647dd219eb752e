import { dialectOf, timestampColumn, timestampType, type UntypedDb } from './schema-helpers.js';

/**
 * Remember-me tokens (persistent login): a series per device, its current token stored only as a hash; the
 * token changes at every use, so a stolen cookie used once makes the owner's next visit detect the theft.
 */
export async function up(db: UntypedDb): Promise<void> {
  const dialect = dialectOf(db);
  await db.schema
    .createTable('remember_me_tokens')
    .addColumn('series', 'text', (col) => col.primaryKey())
    .addColumn('token_hash', 'text', (col) => col.notNull())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('last_used_at', timestampType(dialect), timestampColumn(dialect))
    .addColumn('expires_at', timestampType(dialect), (col) => col.notNull())
    .execute();
  await db.schema.createIndex('remember_me_tokens_user_id').on('remember_me_tokens').column('user_id').execute();
}

export async function down(db: UntypedDb): Promise<void> {
  await db.schema.dropTable('remember_me_tokens').execute();
}
