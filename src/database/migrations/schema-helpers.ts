import { PostgresAdapter, sql, type ColumnDefinitionBuilder, type Kysely, type RawBuilder } from 'kysely';
import type { DialectName } from '../database-url.js';

/**
 * The database with any table and any column: for migrations, written against the schema of their day rather than
 * today's `ShopDatabase` (Kysely's own Migration takes `Kysely<any>` for that reason), and for builders that are
 * never run (query-entries.ts). A typed Kysely is assignable to no narrower type: its schema parameter is invariant.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type UntypedDb = Kysely<any>;

/**
 * What the migrations need to know of the dialect. The schema builder writes the same DDL for both but for
 * these few: how an id is generated, the type of a time, and `now` as a column default.
 */
export function dialectOf(db: UntypedDb): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** An integer primary key the database numbers: `autoincrement` (ids are never reused) or an identity. */
export function idColumn(dialect: DialectName): (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  return dialect === 'postgres'
    ? (col) => col.primaryKey().generatedByDefaultAsIdentity()
    : (col) => col.primaryKey().autoIncrement();
}

/** A point in time: timestamptz in PostgreSQL; ISO 8601 text (UTC, milliseconds) in SQLite, which has no such type. */
export function timestampType(dialect: DialectName): 'timestamptz' | 'text' {
  return dialect === 'postgres' ? 'timestamptz' : 'text';
}

/** The current time as a column default, in the format of timestampType. */
export function now(dialect: DialectName): RawBuilder<string> {
  return dialect === 'postgres' ? sql<string>`now()` : sql<string>`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;
}

/** A `created_at`-style column: not null, defaults to now. */
export function timestampColumn(dialect: DialectName): (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  return (col) => col.notNull().defaultTo(now(dialect));
}
