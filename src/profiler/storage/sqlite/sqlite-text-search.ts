import type { ProfileSearchResult } from '../profile-record.js';
import { methodFacet, statusFacet, type SearchTerm } from '../search/search-words.js';
import { queryKey } from '../search/tracked-queries.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { ftsQuery } from './sqlite-fts-query.js';
import { COLUMNS, FROM, keyRange, type SummaryRow } from './sqlite-keys.js';
import { conditions, type Filters } from './sqlite-search-conditions.js';
import type { SqliteTextParts, TextPart } from './sqlite-text-parts.js';
import type { SqliteTextTotals } from './sqlite-text-totals.js';

/**
 * A search with full-text terms: the full-text tables of its kinds and days drive it (SqliteTextParts). Method and
 * status are words of the same index (facetWords) and the time range a rowid range, so that a word alone, or with
 * a method or status, is counted and listed from the index, and a query matching many profiles is counted from its
 * running totals once tracked (SqliteTextTotals); an IP, URL or token is checked on each matching row, and so is
 * every row at or below the prune floor (it may be a pruned profile's).
 */
export class SqliteTextSearch {
  constructor(
    private readonly connection: SqliteConnection,
    private readonly parts: SqliteTextParts,
    private readonly totals: SqliteTextTotals,
    private readonly trackMin: number,
  ) {}

  find(f: Filters, terms: SearchTerm[], limit: number): ProfileSearchResult {
    const match = ftsQuery(terms, [
      ...(f.method !== null ? [methodFacet(f.method)] : []),
      ...(f.statusPrefix !== null ? [statusFacet(f.statusPrefix)] : []),
    ]);
    if (f.ip === null && f.url === null && f.token === null) {
      const total = this.count(f, terms, match);
      if (total === 0 || limit === 0) return { total, rows: [] };
      return { total, rows: this.newest(f, match, limit) };
    }
    // The other filters row by row (method, status and kinds are in the index already); the join checks every row.
    const parts = this.parts.tables(f.kinds, f.fromId, f.toId);
    if (parts.length === 0) return { total: 0, rows: [] };
    const ids = parts.map((p) => p.matching);
    const idParams = parts.flatMap(() => [match, f.fromId, f.toId]);
    const [where, params] = conditions({ ...f, method: null, status: null, kinds: null }, 'range', f.fromId, f.toId);
    const matching = `p.id IN (${ids.join(' UNION ALL ')}) AND ${where}`;
    const total = this.connection
      .statement(`SELECT count(*) FROM profile p WHERE ${matching}`)
      .pluck()
      .get(...idParams, ...params) as number;
    if (total === 0 || limit === 0) return { total, rows: [] };
    const rows = this.connection
      .statement(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${matching} ORDER BY p.id DESC LIMIT ?`)
      .all(...idParams, ...params, limit) as SummaryRow[];
    return { total, rows };
  }

  /**
   * The matches by kinds, method, status and time: from the query's totals when it is tracked and they are
   * complete, else through the index, which then tracks it if it matched many.
   */
  private count(f: Filters, terms: SearchTerm[], match: string): number {
    const key = queryKey(terms);
    const tracked = this.totals.state(key);
    if (tracked && !tracked.ready) this.totals.resume();
    if (tracked?.ready) return this.totals.count(tracked.id, f, (a, b) => this.inIndex(f, match, ...keyRange(a, b)));
    const total = this.inIndex(f, match, f.fromId, f.toId);
    if (!tracked && total >= this.trackMin) this.totals.track(key);
    return total;
  }

  /** The matches between two keys through the index: those above the floor as they are, the others checked. */
  private inIndex(f: Filters, match: string, from: bigint, to: bigint): number {
    const floor = this.parts.floorKey();
    let n = 0;
    for (const part of this.parts.tables(f.kinds, from, to)) {
      if (to > floor) n += this.countIn(part, match, from > floor ? from : floor + 1n, to, false);
      if (from <= floor) n += this.countIn(part, match, from, to < floor ? to : floor, true);
    }
    return n;
  }

  private countIn(part: TextPart, match: string, from: bigint, to: bigint, checked: boolean): number {
    const rows = part.matching;
    const sql = checked ? `SELECT count(*) FROM profile WHERE id IN (${rows})` : `SELECT count(*) FROM (${rows})`;
    return this.connection.statement(sql).pluck().get(match, from, to) as number;
  }

  /** The newest `limit` matches: the days newest first, until a day's matches complete them. */
  private newest(f: Filters, match: string, limit: number): SummaryRow[] {
    const floor = this.parts.floorKey();
    const ids: bigint[] = [];
    let day: number | null = null;
    for (const part of this.parts.tables(f.kinds, f.fromId, f.toId)) {
      if (part.day !== day && ids.length >= limit) break;
      day = part.day;
      const rows = part.matching;
      if (f.toId > floor) {
        const from = f.fromId > floor ? f.fromId : floor + 1n;
        ids.push(...this.ids(`${rows} ORDER BY rowid DESC LIMIT ?`, match, from, f.toId, limit));
      }
      if (f.fromId <= floor) {
        const to = f.toId < floor ? f.toId : floor;
        const checked = `SELECT id FROM profile WHERE id IN (${rows}) ORDER BY id DESC LIMIT ?`;
        ids.push(...this.ids(checked, match, f.fromId, to, limit));
      }
    }
    const newest = ids.sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)).slice(0, limit);
    return this.connection
      .statement(
        `SELECT ${COLUMNS} FROM ${FROM} WHERE p.id IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) ORDER BY p.id DESC`,
      )
      .all(JSON.stringify(newest.map(String))) as SummaryRow[];
  }

  private ids(sql: string, match: string, from: bigint, to: bigint, limit: number): bigint[] {
    return this.connection.statement(sql).safeIntegers(true).pluck().all(match, from, to, limit) as bigint[];
  }
}
