import { sql, type RootOperationNode } from 'kysely';
import type { UntypedDb } from './migrations/schema-helpers.js';
import type { StackEntry } from './caller.js';

/** The kinds of query the shop's code runs through a builder's `execute`. */
export type QueryKind = RootOperationNode['kind'];

/**
 * Each kind of query's `execute` method, taken from builders of `db` that are made and never run: the function the
 * application calls (itself or through Kysely's executeTakeFirst and executeTakeFirstOrThrow) for a query of that
 * kind. The QueryRecorder hands it to captureCaller, which then captures only the frames below it. Kysely's builder
 * classes are not exported, hence the instances; a kind missing here is captured the ordinary way.
 */
export function queryEntries(db: UntypedDb): ReadonlyMap<QueryKind, StackEntry> {
  const table = 'query_entries_probe';
  const builders: Array<[QueryKind, object]> = [
    ['SelectQueryNode', db.selectFrom(table)],
    ['InsertQueryNode', db.insertInto(table)],
    ['UpdateQueryNode', db.updateTable(table)],
    ['DeleteQueryNode', db.deleteFrom(table)],
    ['MergeQueryNode', db.mergeInto(table).using(table, 'a', 'b')],
    ['RawNode', sql`select 1`],
  ];
  const entries = new Map<QueryKind, StackEntry>();
  for (const [kind, builder] of builders) {
    const execute: unknown = (Object.getPrototypeOf(builder) as { execute?: unknown }).execute;
    if (typeof execute === 'function') entries.set(kind, execute as StackEntry);
  }
  return entries;
}
