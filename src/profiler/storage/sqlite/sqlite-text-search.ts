import type { ProfileSearchResult } from '../profile-record.js';
import { COUNT_CAP } from '../search-helpers.js';
import { methodFacet, statusFacet, type SearchTerm } from '../search/search-words.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { ftsQuery } from './sqlite-fts-query.js';
import { COLUMNS, FROM, type SummaryRow } from './sqlite-keys.js';
import { conditions, type Filters } from './sqlite-search-conditions.js';
import type { SqliteTextParts } from './sqlite-text-parts.js';

/**
 * The tables of the kinds and days drive, newest day first. Method and status are words of the index, the time a
 * rowid range; an IP, URL or token is checked on each row, as is every row at or below the prune floor (it may be a
 * pruned profile's).
 */
export class SqliteTextSearch {
  constructor(
    private readonly connection: SqliteConnection,
    private readonly parts: SqliteTextParts,
  ) {}

  find(f: Filters, terms: SearchTerm[], limit: number): ProfileSearchResult {
    const match = ftsQuery(terms, [
      ...(f.method !== null ? [methodFacet(f.method)] : []),
      ...(f.statusPrefix !== null ? [statusFacet(f.statusPrefix)] : []),
    ]);
    // Method, status and kinds are the index's already.
    const checked = f.ip !== null || f.url !== null || f.token !== null;
    const [where, params] = conditions({ ...f, method: null, status: null, kinds: null }, f.fromId, f.toId, null);
    const floor = this.parts.floorKey();
    const ids: bigint[] = [];
    let total = 0;
    // The newest `limit` are among the days up to the one that completes them.
    let lastDay: number | null = null;
    for (const part of this.parts.tables(f.kinds, f.fromId, f.toId)) {
      for (const [from, to, lookUp] of this.ranges(f.fromId, f.toId, floor)) {
        if (total > COUNT_CAP) break;
        const sql =
          lookUp || checked ? `SELECT p.id FROM ${FROM} WHERE p.id IN (${part.matching}) AND ${where}` : part.matching;
        const found = this.connection
          .statement(`${sql} ORDER BY 1 DESC LIMIT ?`)
          .safeIntegers(true)
          .pluck()
          .all(match, from, to, ...(lookUp || checked ? params : []), COUNT_CAP + 1 - total) as bigint[];
        total += found.length;
        if (lastDay === null || part.day === lastDay) ids.push(...found.slice(0, limit));
        if (lastDay === null && ids.length >= limit) lastDay = part.day;
      }
    }
    if (limit === 0 || ids.length === 0) return { total: Math.min(total, COUNT_CAP + 1), rows: [] };
    const newest = ids.sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)).slice(0, limit);
    const rows = this.connection
      .statement(
        `SELECT ${COLUMNS} FROM ${FROM} WHERE p.id IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) ORDER BY p.id DESC`,
      )
      .all(JSON.stringify(newest.map(String))) as SummaryRow[];
    return { total: Math.min(total, COUNT_CAP + 1), rows };
  }

  /** Split at the prune floor: [from, to, whether its rows must be looked up]. */
  private ranges(from: bigint, to: bigint, floor: bigint): [bigint, bigint, boolean][] {
    const ranges: [bigint, bigint, boolean][] = [];
    if (to > floor) ranges.push([from > floor ? from : floor + 1n, to, false]);
    if (from <= floor) ranges.push([from, to < floor ? to : floor, true]);
    return ranges;
  }
}
