import type pg from 'pg';
import type { CompiledCriteria } from '../search/compiled-criteria.js';
import { HOUR } from '../search/hours.js';
import { kindCondition } from './postgres-sql.js';
import type { PostgresTables } from './postgres-tables.js';

/** A profile's method as the totals count it and its search compares it: upper() of a "C" text, ASCII letters folded. */
const TOTALS_METHOD = `upper(method COLLATE "C")`;
/** Joined into a totals CTE, makes it read the whole output of CTE `cte` first (see ctes()). */
const afterCte = (cte: string) => `CROSS JOIN (SELECT count(*) FROM ${cte}) AS after_${cte}`;

/**
 * Counting a search's matches ("N results found") through an index reads every match, which grows with the store.
 * So, as the SQLite store does, running totals answer the searches the search page makes: per hour × kind × method ×
 * status (`profiler_kind_count`; the partial hours at a range's ends are counted from the time index), per IP × kind
 * × method × status (`profiler_ip_kind_count`), per distinct URL and per URL skeleton (`profiler_url_count`,
 * `profiler_skeleton_count`: a URL substring, see url-skeleton.ts), and per URL skeleton × method × status
 * (`profiler_skeleton_status_count`). Other combinations count through the indexes; a URL substring with few
 * profiles has its matches read through a plain index of the URLs the totals name (PostgresSearchPlanner.findUrl).
 * Writes add and prunes subtract in the statements that insert and delete the rows, locking total rows in key order
 * so that they never deadlock (see ctes()). A store whose totals are missing or no longer add up is counted again
 * when it opens (PostgresSchema).
 */
export class PostgresRunningTotals {
  constructor(private readonly tables: PostgresTables) {}

  /**
   * The CTEs (each starting with a comma) adding `source`'s rows to every running total (`sign` 1, a write) or
   * taking them away (-1, a prune: see subtractFromTotals). `source` has the columns ip, method, url, time,
   * status and kind.
   *
   * Concurrent writers and pruners share total rows, so all of them must lock those rows in one order, or two
   * could each hold a row the other waits for: every table's rows are locked in key order (ORDER BY, keys in
   * the "C" collation), and the tables one after the other, hours, IPs, URLs, skeletons, skeletons by method and
   * status. PostgreSQL runs a statement's CTEs in no stated order, so each table's CTE reads the whole output of the
   * one before it (a count over its rows) before it produces a row.
   *
   * A URL's skeleton is computed once per distinct URL written; a prune takes it from the URL's total as it
   * locks it (cheaper than the function).
   */
  ctes(source: string, sign: 1 | -1): string {
    const hours = `
      , hours AS (INSERT INTO ${this.tables.count} AS c (hour, kind, method, status, n)
                  SELECT time / ${HOUR}, kind, ${TOTALS_METHOD}, status, ${sign === 1 ? 'count(*)' : '-count(*)'} FROM ${source}
                  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
                  ON CONFLICT (hour, kind, method, status) DO UPDATE SET n = c.n + excluded.n RETURNING 1)`;
    if (sign === -1) return this.subtractFromTotals(source, hours);
    return `${hours}
      , ips AS (INSERT INTO ${this.tables.ipCount} AS c (ip, kind, method, status, n)
                SELECT ip COLLATE "C", kind, ${TOTALS_METHOD}, status, count(*) FROM ${source} ${afterCte('hours')} GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
                ON CONFLICT (ip, kind, method, status) DO UPDATE SET n = c.n + excluded.n RETURNING 1)
      , source_urls AS (SELECT url COLLATE "C" AS url, ${this.tables.skeletonOf}(url COLLATE "C") AS skeleton, count(*) AS k FROM ${source} GROUP BY 1)
      , urls AS (INSERT INTO ${this.tables.urlCount} AS c (url, skeleton, n) SELECT url, skeleton, k FROM source_urls ${afterCte('ips')} ORDER BY url
                 ON CONFLICT (url) DO UPDATE SET n = c.n + excluded.n RETURNING 1)
      , skeletons AS (INSERT INTO ${this.tables.skeletonCount} AS c (skeleton, n) SELECT skeleton, sum(k) FROM source_urls ${afterCte('urls')} GROUP BY 1 ORDER BY 1
                      ON CONFLICT (skeleton) DO UPDATE SET n = c.n + excluded.n RETURNING 1)
      , skeleton_statuses AS (INSERT INTO ${this.tables.skeletonStatusCount} AS c (skeleton, method, status, n)
                              SELECT u.skeleton, ${TOTALS_METHOD}, s.status, count(*) FROM ${source} s JOIN source_urls u ON u.url = s.url COLLATE "C"
                              ${afterCte('skeletons')} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
                              ON CONFLICT (skeleton, method, status) DO UPDATE SET n = c.n + excluded.n)`;
  }

  /**
   * A prune's CTEs after the hours': an address's or URL's total is locked first (in key order, as the upserts
   * lock theirs), then deleted when this prune takes it to zero, or lowered: one change to its row instead of an
   * update to zero now and a delete at the end of the prune (most addresses and many URLs have one profile).
   * The choice reads the locked row (`l.n`), not the statement's snapshot: a writer that added to it just before
   * the lock is counted, and the DELETE or UPDATE, finding the row changed since the snapshot, follows it to the
   * version locked. A total that is missing (never, for a profile that was counted) is left alone.
   */
  private subtractFromTotals(source: string, hours: string): string {
    const ipKey = (a: string, b: string) =>
      `${a}.ip = ${b}.ip AND ${a}.kind = ${b}.kind AND ${a}.method = ${b}.method AND ${a}.status = ${b}.status`;
    return `${hours}
      , source_ips AS (SELECT ip COLLATE "C" AS ip, kind, ${TOTALS_METHOD} AS method, status, count(*) AS k FROM ${source} ${afterCte('hours')} GROUP BY 1, 2, 3, 4)
      , ips AS (SELECT c.ip, c.kind, c.method, c.status, c.n, s.k FROM ${this.tables.ipCount} c JOIN source_ips s ON ${ipKey('c', 's')}
                ORDER BY c.ip, c.kind, c.method, c.status FOR UPDATE OF c)
      , ips_gone AS (DELETE FROM ${this.tables.ipCount} c USING ips l WHERE ${ipKey('c', 'l')} AND l.n <= l.k)
      , ips_less AS (UPDATE ${this.tables.ipCount} c SET n = c.n - l.k FROM ips l WHERE ${ipKey('c', 'l')} AND l.n > l.k)
      , source_urls AS (SELECT url COLLATE "C" AS url, count(*) AS k FROM ${source} ${afterCte('ips')} GROUP BY 1)
      , urls AS (SELECT c.url, c.skeleton, c.n, s.k FROM ${this.tables.urlCount} c JOIN source_urls s ON c.url = s.url ORDER BY c.url FOR UPDATE OF c)
      , urls_gone AS (DELETE FROM ${this.tables.urlCount} c USING urls l WHERE c.url = l.url AND l.n <= l.k)
      , urls_less AS (UPDATE ${this.tables.urlCount} c SET n = c.n - l.k FROM urls l WHERE c.url = l.url AND l.n > l.k)
      , skeletons AS (INSERT INTO ${this.tables.skeletonCount} AS c (skeleton, n) SELECT skeleton, -sum(k) FROM urls GROUP BY 1 ORDER BY 1
                      ON CONFLICT (skeleton) DO UPDATE SET n = c.n + excluded.n RETURNING 1)
      , skeleton_statuses AS (INSERT INTO ${this.tables.skeletonStatusCount} AS c (skeleton, method, status, n)
                              SELECT l.skeleton, ${TOTALS_METHOD}, s.status, -count(*) FROM ${source} s JOIN urls l ON l.url = s.url COLLATE "C"
                              ${afterCte('skeletons')} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
                              ON CONFLICT (skeleton, method, status) DO UPDATE SET n = c.n + excluded.n)`;
  }

  /** Every stored profile, from the hourly totals (a count(*) reads every row). */
  async total(pool: pg.Pool): Promise<number> {
    return sumOf(pool, this.tables.count, []);
  }

  /** The profiles of the whole hours `firstHour` … `lastHour` matching the method, status and kinds. */
  hours(pool: pg.Pool, f: CompiledCriteria, firstHour: number, lastHour: number): Promise<number> {
    const values: unknown[] = [firstHour, lastHour];
    const where = ['hour BETWEEN $1 AND $2', ...totalsConditions(f, values, true)];
    return sumOf(pool, `${this.tables.count} WHERE ${where.join(' AND ')}`, values);
  }

  /** The profiles of the IP prefix with the method, status and kinds. */
  ip(pool: pg.Pool, f: CompiledCriteria & { ip: [string, string | null] }): Promise<number> {
    const values: unknown[] = [f.ip[0]];
    const conditions = ['ip >= $1'];
    if (f.ip[1] !== null) {
      values.push(f.ip[1]);
      conditions.push('ip < $2');
    }
    conditions.push(...totalsConditions(f, values, true));
    return sumOf(pool, `${this.tables.ipCount} WHERE ${conditions.join(' AND ')}`, values);
  }

  /**
   * After a prune: the hours and skeletons down to zero (no profile left there), in key order as the upserts lock
   * them; the chunks deleted the addresses and URLs they emptied. These tables are small enough to scan.
   */
  async dropEmpty(pool: pg.Pool): Promise<void> {
    const small = [this.tables.count, this.tables.skeletonCount, this.tables.skeletonStatusCount];
    for (const [table, key] of this.tables.totals.filter(([table]) => small.includes(table))) {
      await pool.query(
        `DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE n <= 0 ORDER BY ${key} FOR UPDATE)`,
      );
    }
  }
}

/**
 * The method and status conditions on a totals table, and the kinds' on one counting per kind (`perKind`), their
 * values appended to `values` ($n numbered after them).
 */
export function totalsConditions(f: CompiledCriteria, values: unknown[], perKind = false): string[] {
  const where: string[] = [];
  if (perKind && f.kinds !== null) where.push(kindCondition(f.kinds, 'kind'));
  if (f.method !== null) {
    values.push(f.method);
    where.push(`method = $${values.length}`);
  }
  if (f.status) {
    values.push(f.status[0], f.status[1]);
    where.push(`status BETWEEN $${values.length - 1} AND $${values.length}`);
  }
  return where;
}

/** `SELECT sum(n) FROM <from>`, 0 when no row. */
export async function sumOf(pool: pg.Pool, from: string, values: unknown[]): Promise<number> {
  return (await pool.query<{ n: number }>(`SELECT coalesce(sum(n), 0)::int8 AS n FROM ${from}`, values)).rows[0].n;
}
