import type { ProfileSearchResult } from '../profile-record.js';
import { KIND_CODES } from '../search-helpers.js';
import { methodFacet, statusFacet, type SearchTerm } from '../search/search-words.js';
import { queryKey } from '../search/tracked-queries.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { ftsQuery } from './sqlite-fts-query.js';
import { COLUMNS, FROM, keyRange, type SummaryRow } from './sqlite-keys.js';
import { textTable } from './sqlite-schema.js';
import { conditions, type Filters } from './sqlite-search-conditions.js';
import type { SqliteTextTotals } from './sqlite-text-totals.js';

/** Every kind's code: a search with no kinds criterion reads every kind's full-text table. */
const ALL_KINDS = Object.values(KIND_CODES);

/**
 * A search with full-text terms: the full-text tables of its kinds drive it. Method and status are words of the
 * same index (facetWords) and the time range its rowid range, so that a word alone, or with a method or status,
 * is counted and listed from the index alone, and a query matching many profiles is counted from its running
 * totals once tracked (SqliteTextTotals); an IP, URL or token is checked on each matching row.
 */
export class SqliteTextSearch {
  constructor(
    private readonly connection: SqliteConnection,
    private readonly totals: SqliteTextTotals,
    private readonly trackMin: number,
  ) {}

  find(f: Filters, terms: SearchTerm[], limit: number): ProfileSearchResult {
    const match = ftsQuery(terms, [
      ...(f.method !== null ? [methodFacet(f.method)] : []),
      ...(f.statusPrefix !== null ? [statusFacet(f.statusPrefix)] : []),
    ]);
    const tables = (f.kinds ?? ALL_KINDS).map(textTable);
    const ids = (perTable: (table: string) => string) => tables.map(perTable).join(' UNION ALL ');
    const inRange = (table: string) => `SELECT rowid FROM ${table} WHERE ${table} MATCH ? AND rowid BETWEEN ? AND ?`;
    const rangeParams = tables.flatMap(() => [match, f.fromId, f.toId]);
    if (f.ip === null && f.url === null && f.token === null) {
      const total = this.count(f, terms, match, tables);
      if (total === 0 || limit === 0) return { total, rows: [] };
      // The newest `limit` of each table, then the newest of those.
      const newest = ids((table) => `SELECT * FROM (${inRange(table)} ORDER BY rowid DESC LIMIT ?)`);
      const rows = this.connection
        .statement(`SELECT ${COLUMNS} FROM ${FROM} WHERE p.id IN (${newest}) ORDER BY p.id DESC LIMIT ?`)
        .all(...tables.flatMap(() => [match, f.fromId, f.toId, limit]), limit) as SummaryRow[];
      return { total, rows };
    }
    // The other filters row by row (method, status and kinds are in the index already).
    const [where, params] = conditions({ ...f, method: null, status: null, kinds: null }, 'range', f.fromId, f.toId);
    const matching = `p.id IN (${ids(inRange)}) AND ${where}`;
    const total = this.connection
      .statement(`SELECT count(*) FROM profile p WHERE ${matching}`)
      .pluck()
      .get(...rangeParams, ...params) as number;
    if (total === 0 || limit === 0) return { total, rows: [] };
    const rows = this.connection
      .statement(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${matching} ORDER BY p.id DESC LIMIT ?`)
      .all(...rangeParams, ...params, limit) as SummaryRow[];
    return { total, rows };
  }

  /**
   * The matches by kinds, method, status and time: from the query's totals when it is tracked and they are
   * complete, else through the index, which then tracks it if it matched many.
   */
  private count(f: Filters, terms: SearchTerm[], match: string, tables: string[]): number {
    const inIndex = (from: bigint, to: bigint) =>
      tables.reduce(
        (n, table) =>
          n +
          (this.connection
            .statement(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ? AND rowid BETWEEN ? AND ?`)
            .pluck()
            .get(match, from, to) as number),
        0,
      );
    const key = queryKey(terms);
    const tracked = this.totals.state(key);
    if (tracked?.ready) return this.totals.count(tracked.id, f, (a, b) => inIndex(...keyRange(a, b)));
    const total = inIndex(f.fromId, f.toId);
    if (!tracked && total >= this.trackMin) this.totals.track(key);
    return total;
  }
}
