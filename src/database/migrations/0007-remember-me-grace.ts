import { dialectOf, timestampType, type UntypedDb } from './schema-helpers.js';

/**
 * The token a remember-me series had before its last rotation, and when that rotation happened: a browser that
 * restores several tabs at once sends the same cookie with each, and all but the first arrive with the token the
 * first has just replaced. Within a short grace period that token still logs in instead of looking stolen.
 */
export async function up(db: UntypedDb): Promise<void> {
  const dialect = dialectOf(db);
  await db.schema.alterTable('remember_me_tokens').addColumn('previous_token_hash', 'text').execute();
  await db.schema.alterTable('remember_me_tokens').addColumn('rotated_at', timestampType(dialect)).execute();
}

export async function down(db: UntypedDb): Promise<void> {
  await db.schema.alterTable('remember_me_tokens').dropColumn('rotated_at').execute();
  await db.schema.alterTable('remember_me_tokens').dropColumn('previous_token_hash').execute();
}
