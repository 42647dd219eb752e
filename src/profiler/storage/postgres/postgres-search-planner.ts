import type pg from 'pg';
import type { ProfileSearchCriteria, ProfileSearchResult } from '../profile-record.js';
import { compileCriteria, type CompiledCriteria } from '../search/compiled-criteria.js';
import { splitByHours } from '../search/hours.js';
import { MAX_TIME } from '../search-helpers.js';
import type { PostgresConnection } from './postgres-connection.js';
import type { PostgresRunningTotals } from './postgres-running-totals.js';
import { COLUMNS, kindCondition, type SummaryRow } from './postgres-sql.js';
import type { PostgresTables } from './postgres-tables.js';
import type { PostgresUrlCounts } from './postgres-url-counts.js';
import { PostgresTextSearch } from './postgres-text-search.js';
import type { PostgresTextTotals } from './postgres-text-totals.js';

type Compiled = CompiledCriteria;

/**
 * Plans and runs a search: plain SQL over B-tree indexes (value, time, id) per filter and a pg_trgm GIN index of
 * the URL, with the SQLite store's semantics. The matches are counted from the running totals where they answer
 * (a count(*) through an index reads every match), and a URL substring first from the URL totals, which name its
 * URLs when its profiles are few, read then through a plain index of the URL (findUrl). A search with full-text
 * terms is the full-text index's (PostgresTextSearch).
 */
export class PostgresSearchPlanner {
  private readonly text: PostgresTextSearch;

  constructor(
    private readonly connection: PostgresConnection,
    private readonly tables: PostgresTables,
    private readonly totals: PostgresRunningTotals,
    private readonly urls: PostgresUrlCounts,
    textTotals: PostgresTextTotals,
    trackTextMatches: number,
  ) {
    this.text = new PostgresTextSearch(connection, tables, textTotals, trackTextMatches);
  }

  /**
   * Counts the matches (from the running totals where they answer, see the class comment) and reads the newest
   * `limit` of them through the indexes, both at once.
   */
  async find(criteria: ProfileSearchCriteria): Promise<ProfileSearchResult> {
    const pool = this.connection.pool;
    const compiled = compileCriteria(criteria);
    if (!compiled) return { total: 0, rows: [] };
    if (compiled.text !== null) {
      // Kinds, method, status and time are the full-text index's; the others checked on the profile's row.
      const others = conditions({ ...compiled, kinds: null, method: null, status: null, time: null });
      return this.text.find(pool, compiled, compiled.text, others);
    }
    const [where, params] = conditions(compiled);
    const { limit } = compiled;
    if (compiled.url !== null && !compiled.url.needle.includes('#'))
      return this.findUrl(pool, compiled, where, params, limit);
    return this.findThroughIndexes(pool, compiled, where, params, limit);
  }

  /** Counts (from the totals where they answer) and lists the newest `limit` through the indexes, both at once. */
  private async findThroughIndexes(
    pool: pg.Pool,
    compiled: Compiled,
    where: string,
    params: unknown[],
    limit: number,
  ): Promise<ProfileSearchResult> {
    const [total, listed] = await Promise.all([
      this.countMatches(pool, compiled, where, params),
      limit === 0 ? null : this.newest(pool, where, params, limit),
    ]);
    return { total, rows: total === 0 || !listed ? [] : listed };
  }

  /** The newest `limit` profiles matching `where`, through the indexes. */
  private async newest(pool: pg.Pool, where: string, params: unknown[], limit: number): Promise<SummaryRow[]> {
    const sql = `SELECT ${COLUMNS} FROM ${this.tables.profile} p WHERE ${where} ORDER BY p.time DESC, p.id DESC LIMIT $${params.length + 1}`;
    return (await pool.query<SummaryRow>(sql, [...params, limit])).rows;
  }

  /** The number of matches: from the running totals when they answer the filters, else through the indexes. */
  private async countMatches(pool: pg.Pool, f: Compiled, where: string, params: unknown[]): Promise<number> {
    if (f.ip === null && f.url === null && f.token === null) return this.countByHours(pool, f);
    if (f.ip !== null && f.url === null && f.token === null && f.time === null)
      return this.totals.ip(pool, { ...f, ip: f.ip });
    // A URL alone is counted by findUrl.
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*) AS n FROM ${this.tables.profile} p WHERE ${where}`,
      params,
    );
    return rows[0].n;
  }

  /** Matches by method, status and time: the hourly totals, plus the rows of the partial hours at the range's ends. */
  private async countByHours(pool: pg.Pool, f: Compiled): Promise<number> {
    const [from, to] = f.time ?? [0, MAX_TIME];
    const { hours, partial } = splitByHours(from, to);
    const counts = await Promise.all([
      hours ? this.totals.hours(pool, f, hours[0], hours[1]) : 0,
      ...partial.map(async ([a, b]) => {
        const [where, params] = conditions({ ...f, time: [a, b] });
        return (
          await pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${this.tables.profile} p WHERE ${where}`, params)
        ).rows[0].n;
      }),
    ]);
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /**
   * A URL substring (without '#'): counted first from the URL totals (PostgresUrlCounts). When its profiles are few,
   * the totals name their URLs, and the matches are read through those URLs' plain index, the other filters applied
   * to them: the trigram index may walk the long lists of the trigrams a needle shares with every product URL.
   * Otherwise, alone, its total is known and the planner lists it (the time index read backwards, for a common
   * needle); with other filters, the indexes do.
   */
  private async findUrl(
    pool: pg.Pool,
    f: Compiled,
    where: string,
    params: unknown[],
    limit: number,
  ): Promise<ProfileSearchResult> {
    const alone = urlAlone(f);
    const { n, urls } = await this.urls.count(pool, f.url!.needle, f.url!.like, limit > 0 || !alone);
    if (n === 0) return { total: 0, rows: [] };
    if (urls === null) {
      // Many profiles have the URL part. Alone, their count is the URL totals'; with only a method or a status
      // besides, the skeleton totals count the matches (through the indexes, every match would be read); else the
      // indexes count them.
      const total = alone ? n : urlByTotals(f) ? await this.urls.countWithStatus(pool, { ...f, url: f.url! }) : null;
      if (total === null) return this.findThroughIndexes(pool, f, where, params, limit);
      return { total, rows: total === 0 || limit === 0 ? [] : await this.newest(pool, where, params, limit) };
    }
    const [others, values] = conditions({ ...f, url: null });
    values.push(urls);
    const byUrl = `p.url = ANY($${values.length}::text[]) AND ${others}`;
    const [total, listed] = await Promise.all([
      alone
        ? n
        : pool
            .query<{ n: number }>(`SELECT count(*) AS n FROM ${this.tables.profile} p WHERE ${byUrl}`, values)
            .then(({ rows }) => rows[0].n),
      limit === 0
        ? null
        : // `p.time + 0`: the planner, misjudging how many profiles a URL has, would read the time index
          // backwards, past far more rows than match; these are at most EXACT_LIST_MAX, sorted in memory.
          pool.query<SummaryRow>(
            `SELECT ${COLUMNS} FROM ${this.tables.profile} p WHERE ${byUrl} ORDER BY p.time + 0 DESC, p.id DESC LIMIT $${values.length + 1}`,
            [...values, limit],
          ),
    ]);
    return { total, rows: total === 0 || !listed ? [] : listed.rows };
  }
}

/** The WHERE clause of a search and its parameters ($1 …). */
function conditions(f: Compiled): [string, unknown[]] {
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const range = (column: string, [low, high]: [string, string | null]) => {
    where.push(`${column} >= ${param(low)}`);
    if (high !== null) where.push(`${column} < ${param(high)}`);
  };
  if (f.time) where.push(`p.time BETWEEN ${param(f.time[0])} AND ${param(f.time[1])}`);
  if (f.kinds !== null) where.push(kindCondition(f.kinds));
  if (f.ip) range('p.ip', f.ip);
  if (f.method !== null) where.push(`upper(p.method) = ${param(f.method)}`);
  if (f.status) where.push(`p.status BETWEEN ${param(f.status[0])} AND ${param(f.status[1])}`);
  if (f.token) range('p.token', f.token);
  if (f.url !== null) where.push(`p.url ILIKE ${param(f.url.like)}`);
  return [where.length === 0 ? 'true' : where.join(' AND '), params];
}

/**
 * A URL substring without '#' with at most a method and a status besides: alone, its total is the URL totals'
 * (PostgresUrlCounts.count); with a method or a status, the skeleton × method × status totals' (countWithStatus).
 */
function urlByTotals(f: Compiled): boolean {
  // The URL totals count every kind.
  return (
    f.url !== null &&
    f.ip === null &&
    f.token === null &&
    f.time === null &&
    f.kinds === null &&
    !f.url.needle.includes('#')
  );
}

function urlAlone(f: Compiled): boolean {
  return urlByTotals(f) && f.method === null && f.status === null;
}
