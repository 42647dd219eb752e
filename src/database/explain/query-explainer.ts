import { Injectable } from '@nestjs/common';
import { KernelHttpException } from '../../lifecycle/exceptions/kernel-http.exception.js';
import { shopDbDriver, type ShopDbDriver } from '../database.factory.js';
import { ShopDb } from '../shop-db.js';
import { explainRefusal } from './explain-guard.js';

/** PostgreSQL gives up planning after this long; SQLite only plans, it never runs the statement. */
export const EXPLAIN_TIMEOUT_MS = 2000;

/** A query plan, one line per node, indented as the database nests them. */
export interface QueryPlan {
  command: string;
  lines: string[];
  /** The database's message when it could not plan the statement (a table since dropped, a parameter's type). */
  error?: string;
}

/**
 * Explains a recorded SELECT on the shop's database: SQLite's `EXPLAIN QUERY PLAN`, PostgreSQL's `EXPLAIN` (the
 * plan only; the statement is never run). A statement that is not a single SELECT is a 422, whichever check sees
 * it first: explainRefusal, then SQLite's own `readonly` of the prepared statement, or PostgreSQL's read-only
 * transaction.
 */
@Injectable()
export class QueryExplainer {
  constructor(private readonly db: ShopDb) {}

  async explain(sql: string, params: readonly unknown[]): Promise<QueryPlan> {
    const refusal = explainRefusal(sql);
    if (refusal !== null) throw new KernelHttpException(422, refusal);
    const driver = await shopDbDriver(this.db);
    const command = driver.dialect === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN';
    try {
      return driver.dialect === 'sqlite'
        ? explainOnSqlite(driver, sql, params)
        : await explainOnPostgres(driver, sql, params);
    } catch (error) {
      if (error instanceof KernelHttpException) throw error;
      // 25006: PostgreSQL's read-only transaction refused a write.
      if ((error as { code?: unknown } | null)?.code === '25006')
        throw new KernelHttpException(422, `Only a statement that reads can be explained: ${messageOf(error)}`);
      return { command, lines: [], error: messageOf(error) };
    }
  }
}

function explainOnSqlite(
  driver: Extract<ShopDbDriver, { dialect: 'sqlite' }>,
  sql: string,
  params: readonly unknown[],
): QueryPlan {
  const values = params.map(sqliteValue);
  let readonly: boolean;
  try {
    readonly = driver.database.prepare(sql).readonly;
  } catch (error) {
    // better-sqlite3 refuses several statements in one prepare: still the client's statement, not our failure.
    throw new KernelHttpException(422, `The statement cannot be explained: ${messageOf(error)}`);
  }
  if (!readonly)
    throw new KernelHttpException(422, 'Only a statement that reads can be explained: SQLite says this one writes.');
  const rows = driver.database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as Array<{
    id: number;
    parent: number;
    detail: string;
  }>;
  const depth = new Map<number, number>([[0, -1]]);
  const lines = rows.map((row) => {
    const level = (depth.get(row.parent) ?? -1) + 1;
    depth.set(row.id, level);
    return `${'  '.repeat(level)}${row.detail}`;
  });
  return { command: 'EXPLAIN QUERY PLAN', lines };
}

async function explainOnPostgres(
  driver: Extract<ShopDbDriver, { dialect: 'postgres' }>,
  sql: string,
  params: readonly unknown[],
): Promise<QueryPlan> {
  const client = await driver.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET TRANSACTION READ ONLY');
    await client.query(`SET LOCAL statement_timeout = ${EXPLAIN_TIMEOUT_MS}`);
    const result = await client.query<{ 'QUERY PLAN': string }>({
      text: `EXPLAIN ${sql}`,
      values: params.map(postgresValue),
    });
    return { command: 'EXPLAIN', lines: result.rows.map((row) => row['QUERY PLAN']) };
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

/** better-sqlite3 binds numbers, strings, bigints, buffers and null only. */
function sqliteValue(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value ?? null;
}

function postgresValue(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
}

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}
