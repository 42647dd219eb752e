import type pg from 'pg';
import type { CompiledCriteria } from '../search/compiled-criteria.js';
import { HOUR, splitByHours } from '../search/hours.js';
import type { SearchTerm } from '../search/search-words.js';
import {
  matchesWords,
  MAX_TRACKED_QUERIES,
  termsOfKey,
  trustedFrom,
  type TextTotalsRow,
} from '../search/tracked-queries.js';
import { MAX_TIME } from '../search-helpers.js';
import { withClient } from './postgres-client.js';
import type { PostgresConnection } from './postgres-connection.js';
import { kindCondition } from './postgres-sql.js';
import { textRowConditions } from './postgres-text-rows.js';
import type { PostgresTables } from './postgres-tables.js';

export interface TrackedQuery {
  id: number;
  terms: SearchTerm[];
}

/**
 * The running totals of the tracked full-text queries (tracked-queries.ts) in PostgreSQL. A write reads the tracked
 * queries under a SHARE lock of their table, then adds its matches in its transaction (add); tracking a query takes
 * the lock that excludes it, so that its first count, of every profile committed, and the writes after it never
 * miss or count a profile twice, whichever instance writes. Pruning moves the floor (PostgresRetention): the hours
 * it reached are counted through the index.
 */
export class PostgresTextTotals {
  constructor(
    private readonly connection: PostgresConnection,
    private readonly tables: PostgresTables,
  ) {}

  /** At the start of a write's transaction: the tracked queries, which no query's first count changes until it commits. */
  async tracked(client: pg.PoolClient): Promise<TrackedQuery[]> {
    const results = (await client.query(
      `LOCK TABLE ${this.tables.textQuery} IN SHARE MODE; SELECT id, query FROM ${this.tables.textQuery}`,
    )) as unknown as pg.QueryResult<{ id: number; query: string }>[];
    return results[1].rows.map(({ id, query }) => ({ id, terms: termsOfKey(query) }));
  }

  /** Adds the batch's matches of the tracked queries, in the write's transaction, rows locked in key order. */
  async add(client: pg.PoolClient, tracked: readonly TrackedQuery[], rows: readonly TextTotalsRow[]): Promise<void> {
    const counts = new Map<string, [number, number, number, string, number, number]>();
    if (tracked.length === 0) return;
    const words = rows.map((row) => new Set(row.words));
    for (const { id, terms } of tracked) {
      for (const [i, row] of rows.entries()) {
        if (!matchesWords(terms, words[i])) continue;
        const key: [number, number, number, string, number] = [
          id,
          Math.floor(row.time / HOUR),
          row.kind,
          row.method,
          row.status,
        ];
        const entry = counts.get(key.join('\u0000'));
        if (entry) entry[5]++;
        else counts.set(key.join('\u0000'), [...key, 1]);
      }
    }
    if (counts.size === 0) return;
    const column = (i: number) => [...counts.values()].map((entry) => entry[i]);
    await client.query(
      `INSERT INTO ${this.tables.textCount} (query_id, hour, kind, method, status, n)
       SELECT * FROM unnest($1::int4[], $2::int4[], $3::int2[], $4::text[], $5::int4[], $6::int4[])
       ORDER BY 1, 2, 3, 4, 5
       ON CONFLICT (query_id, hour, kind, method, status) DO UPDATE SET n = ${this.tables.textCount}.n + excluded.n`,
      [0, 1, 2, 3, 4, 5].map(column),
    );
  }

  /**
   * Tracks a query: in one transaction that holds the writes back, its matches so far are counted, by hour, kind,
   * method and status; the oldest tracked query makes room when MAX_TRACKED_QUERIES are.
   */
  async track(key: string, tsquery: string): Promise<void> {
    await withClient(this.connection.pool, async (client) => {
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL lock_timeout = '10s'`);
        await client.query(`LOCK TABLE ${this.tables.textQuery} IN SHARE ROW EXCLUSIVE MODE`);
        const { rows } = await client.query<{ id: number }>(
          `INSERT INTO ${this.tables.textQuery} (query) VALUES ($1) ON CONFLICT (query) DO NOTHING RETURNING id`,
          [key],
        );
        if (rows.length === 1) {
          await client.query(
            `WITH oldest AS (
               SELECT id FROM ${this.tables.textQuery} ORDER BY id DESC OFFSET ${MAX_TRACKED_QUERIES}
             ), counts AS (DELETE FROM ${this.tables.textCount} c USING oldest WHERE c.query_id = oldest.id)
             DELETE FROM ${this.tables.textQuery} q USING oldest WHERE q.id = oldest.id`,
          );
          await client.query(
            `INSERT INTO ${this.tables.textCount} (query_id, hour, kind, method, status, n)
             SELECT $1, t.time / ${HOUR}, t.kind, t.method, t.status, count(*) FROM ${this.tables.text} t
             WHERE t.doc @@ $2::tsquery AND ${this.tables.liveText()} GROUP BY 2, 3, 4, 5`,
            [rows[0].id, tsquery],
          );
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * The matches of a search by its terms (`key`, `tsquery`), kinds, method, status and time, in one snapshot: from
   * the totals for the whole hours after the floor when the query is tracked, through the index for the rest; null
   * when it is not tracked.
   */
  async count(key: string, f: CompiledCriteria, tsquery: string): Promise<number | null> {
    return withClient(this.connection.pool, async (client) => {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const { rows } = await client.query<{ id: number | null; floor: string }>(
          `SELECT (SELECT id FROM ${this.tables.textQuery} WHERE query = $1) AS id,
                  (SELECT time FROM ${this.tables.textFloor} LIMIT 1) AS floor`,
          [key],
        );
        const id = rows[0].id;
        const n = id === null ? null : await this.countTracked(client, id, Number(rows[0].floor ?? -1), f, tsquery);
        await client.query('COMMIT');
        return n;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  private async countTracked(
    client: pg.PoolClient,
    id: number,
    floor: number,
    f: CompiledCriteria,
    tsquery: string,
  ): Promise<number> {
    const [fromTime, toTime] = f.time ?? [0, MAX_TIME];
    const trusted = trustedFrom(floor, HOUR);
    const ranges: [number, number][] = fromTime < trusted ? [[fromTime, Math.min(toTime, trusted - 1)]] : [];
    let hours: [number, number] | null = null;
    if (Math.max(fromTime, trusted) <= toTime) {
      const split = splitByHours(Math.max(fromTime, trusted), toTime);
      hours = split.hours;
      ranges.push(...split.partial);
    }
    const params: unknown[] = [id, hours?.[0] ?? 1, hours?.[1] ?? 0];
    const where = ['c.query_id = $1', 'c.hour BETWEEN $2 AND $3'];
    if (f.kinds !== null) where.push(kindCondition(f.kinds, 'c.kind'));
    if (f.method !== null) where.push(`c.method = $${params.push(f.method)}`);
    if (f.status !== null) where.push(`c.status BETWEEN $${params.push(f.status[0])} AND $${params.push(f.status[1])}`);
    let throughIndex = '0';
    if (ranges.length > 0) {
      const matching = [`t.doc @@ $${params.push(tsquery)}::tsquery`, ...textRowConditions(f, params)].join(' AND ');
      const inRanges = ranges.map(([a, b]) => `t.time BETWEEN $${params.push(a)} AND $${params.push(b)}`);
      throughIndex = `(SELECT count(*) FROM ${this.tables.text} t WHERE ${matching} AND (${inRanges.join(' OR ')}) AND ${this.tables.liveText()})`;
    }
    const { rows } = await client.query<{ n: string }>(
      `SELECT (SELECT coalesce(sum(c.n), 0) FROM ${this.tables.textCount} c WHERE ${where.join(' AND ')}) + ${throughIndex} AS n`,
      params,
    );
    return Number(rows[0].n);
  }
}
