import type SqliteDatabase from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase, SqliteStatement } from 'kysely';

/** Distinct SQL texts whose prepared statements are kept (the application's queries are a few dozen shapes). */
const MAX_STATEMENTS = 500;

/**
 * The better-sqlite3 database as Kysely's SQLite dialect sees it, with each SQL text prepared once: Kysely
 * prepares every query it runs, and preparing (parsing and planning the SQL) cost as much as running the
 * catalogue's small queries. A statement still being iterated (a streamed query) is busy: the same SQL then gets
 * a statement of its own.
 */
export class StatementCache implements KyselySqliteDatabase {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();

  constructor(readonly database: SqliteDatabase.Database) {}

  prepare(sql: string): SqliteStatement {
    const cached = this.statements.get(sql);
    if (cached && !cached.busy) return cached as unknown as SqliteStatement;
    const statement = this.database.prepare(sql);
    if (!cached) {
      if (this.statements.size >= MAX_STATEMENTS) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(sql, statement);
    }
    return statement as unknown as SqliteStatement;
  }

  close(): void {
    this.statements.clear();
    this.database.close();
  }
}
