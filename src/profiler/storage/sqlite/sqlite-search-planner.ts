import type { ProfileSearchCriteria, ProfileSearchResult } from '../profile-record.js';
import { compileCriteria } from '../search/compiled-criteria.js';
import { COUNT_CAP } from '../search-helpers.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { COLUMNS, FROM, type SummaryRow } from './sqlite-keys.js';
import { conditions, filtersOf, indexedFilters, type Driver, type Filters } from './sqlite-search-conditions.js';
import type { SqliteUrlMatcher } from './sqlite-url-matcher.js';
import { SqliteTextSearch } from './sqlite-text-search.js';
import type { SqliteTextParts } from './sqlite-text-parts.js';

/**
 * Plans and runs a search, counting at most COUNT_CAP + 1 matches. The plan: each filter with an index is counted
 * alone through it (at most COUNT_CAP + 1 entries each), and so are the profiles of a time range; the rarest, if
 * rare enough, drives the search, the other filters checked on the rows it leads to. When every filter is common,
 * the search walks the table from the newest key, where common matches are soon found. A search with full-text
 * terms is the full-text index's (SqliteTextSearch).
 */
export class SqliteSearchPlanner {
  private readonly text: SqliteTextSearch;

  constructor(
    private readonly connection: SqliteConnection,
    private readonly urls: SqliteUrlMatcher,
    textParts: SqliteTextParts,
  ) {
    this.text = new SqliteTextSearch(connection, textParts);
  }

  find(criteria: ProfileSearchCriteria): ProfileSearchResult {
    this.connection.assertOpen();
    const compiled = compileCriteria(criteria);
    if (!compiled) return { total: 0, rows: [] };
    const url = compiled.url === null ? null : this.urls.match(compiled.url);
    if (url?.ids?.length === 0) return { total: 0, rows: [] };
    const f = filtersOf(compiled, url);
    if (f.text !== null) return this.text.find(f, f.text, compiled.limit);
    const [where, params] = conditions(f, f.fromId, f.toId, this.driver(f));
    const total = this.connection
      .statement(`SELECT count(*) FROM (SELECT 1 FROM ${FROM} WHERE ${where} LIMIT ${COUNT_CAP + 1})`)
      .pluck()
      .get(...params) as number;
    if (total === 0 || compiled.limit === 0) return { total, rows: [] };
    const rows = this.connection
      .statement(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY p.id DESC LIMIT ?`)
      .all(...params, compiled.limit) as SummaryRow[];
    return { total, rows };
  }

  /**
   * The filter whose index leads to the fewest rows, when they are at most COUNT_CAP and fewer than the time
   * range's profiles; null: walk the key range (every filter common, or the range small).
   */
  private driver(f: Filters): Driver | null {
    let best: Driver | null = null;
    let fewest = f.timeBounded
      ? this.upToCap('SELECT 1 FROM profile WHERE id BETWEEN ? AND ?', [f.fromId, f.toId])
      : Infinity;
    for (const driver of indexedFilters(f)) {
      const alone = { ...f, ip: null, method: null, status: null, token: null, url: null, kinds: null };
      const [where, params] = conditions({ ...alone, [driver]: f[driver] }, f.fromId, f.toId, driver);
      const n = this.upToCap(`SELECT 1 FROM profile p WHERE ${where}`, params);
      if (n < fewest) [best, fewest] = [driver, n];
    }
    return fewest <= COUNT_CAP ? best : null;
  }

  /** The rows a query gives, counted up to COUNT_CAP + 1. */
  private upToCap(sql: string, params: unknown[]): number {
    return this.connection
      .statement(`SELECT count(*) FROM (${sql} LIMIT ${COUNT_CAP + 1})`)
      .pluck()
      .get(...params) as number;
  }
}
