import type { ProfileSearchCriteria, ProfileSearchResult } from '../profile-record.js';
import { compileCriteria } from '../search/compiled-criteria.js';
import { COUNT_CAP } from '../search-helpers.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { COLUMNS, FROM, type SummaryRow } from './sqlite-keys.js';
import {
  conditions,
  filtersOf,
  fromWhere,
  indexedFilters,
  type Driver,
  type Filters,
} from './sqlite-search-conditions.js';
import type { SqliteUrlMatcher } from './sqlite-url-matcher.js';
import { SqliteTextSearch } from './sqlite-text-search.js';
import type { SqliteTextParts } from './sqlite-text-parts.js';

/** Rows a walk from the newest key reads at most before the rows are sought through an index instead. */
const WALK_BUDGET = 20_000;
/**
 * Index entries (or walked rows) a count reads at most; beyond, the matches are a lower bound (`atLeast`), so filters
 * common alone but rare together never read the whole store. Entries whose rows must be checked read a quarter.
 */
export const COUNT_READ_BUDGET = 2 * COUNT_CAP;

/** The filter whose index matches the fewest profiles drives the search, the others checked on its rows. */
export class SqliteSearchPlanner {
  private readonly text: SqliteTextSearch;

  constructor(
    private readonly connection: SqliteConnection,
    private readonly urls: SqliteUrlMatcher,
    textParts: SqliteTextParts,
    private readonly readBudget = COUNT_READ_BUDGET,
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
    const driver = this.driver(f);
    const { total, atLeast } = this.count(f, driver);
    const counted = atLeast ? { total, atLeast } : { total };
    if (total === 0 || compiled.limit === 0) return { ...counted, rows: [] };
    return { ...counted, rows: this.newest(f, driver, atLeast ? COUNT_CAP + 1 : total, compiled.limit) };
  }

  /** When the driver's entries matched often, the newest rows are walked too: their matches may pass the cap. */
  private count(f: Filters, driver: Driver | null): { total: number; atLeast: boolean } {
    const checked =
      driver === 'token' || indexedFilters(f).length > 1 || f.kinds !== null || (f.url !== null && f.url.ids === null);
    const budget = driver !== null && checked ? Math.ceil(this.readBudget / 4) : this.readBudget;
    const [read, found] = this.candidates(f, driver, budget);
    if (found > COUNT_CAP) return { total: COUNT_CAP + 1, atLeast: false };
    if (read < budget) return { total: found, atLeast: false };
    if (driver !== null && found * this.readBudget > COUNT_CAP * read) {
      const [walked, walkFound] = this.candidates(f, null, this.readBudget);
      if (walkFound > COUNT_CAP) return { total: COUNT_CAP + 1, atLeast: false };
      if (walked < this.readBudget) return { total: walkFound, atLeast: false };
    }
    return { total: found, atLeast: true };
  }

  /** The matches are counted first, stopping at the cap (common ones end early); the candidates only below it. */
  private candidates(f: Filters, driver: Driver | null, budget: number): [read: number, found: number] {
    const [candidates, candidateParams] = conditions(only(f, driver), f.fromId, f.toId, driver);
    const [matches, matchParams] = conditions(f, f.fromId, f.toId, driver);
    const order = driver === null ? 'ORDER BY p.id DESC' : '';
    const read = (sql: string, ...params: unknown[]) =>
      this.connection
        .statement(sql)
        .pluck()
        .get(...params) as number;
    const found = read(
      `SELECT count(*) FROM (SELECT 1 FROM (SELECT (${matches}) AS m FROM ${fromWhere(f, driver, false)}
       WHERE ${candidates} ${order} LIMIT ${budget}) WHERE m LIMIT ${COUNT_CAP + 1})`,
      ...matchParams,
      ...candidateParams,
    );
    if (found > COUNT_CAP) return [budget, found];
    const from = driver === 'token' ? fromWhere(f, driver, false) : 'profile p';
    return [
      read(`SELECT count(*) FROM (SELECT 1 FROM ${from} WHERE ${candidates} LIMIT ${budget})`, ...candidateParams),
      found,
    ];
  }

  /** null: walk the key range (no filter with an index, or a time range holding fewer profiles than any). */
  private driver(f: Filters): Driver | null {
    const candidates = indexedFilters(f);
    if (candidates.length === 1 && !f.timeBounded) return candidates[0];
    let best: Driver | null = null;
    let fewest = f.timeBounded ? this.upToCap(none(f), f.fromId, null) : Infinity;
    for (const driver of candidates) {
      const n = this.upToCap({ ...none(f), [driver]: f[driver] }, f.fromId, driver);
      if (n < fewest) [best, fewest] = [driver, n];
    }
    return best;
  }

  private upToCap(f: Filters, fromId: bigint, driver: Driver | null): number {
    const [where, params] = conditions(f, fromId, f.toId, driver);
    return this.connection
      .statement(
        `SELECT count(*) FROM (SELECT 1 FROM ${fromWhere(f, driver, false)} WHERE ${where} LIMIT ${COUNT_CAP + 1})`,
      )
      .pluck()
      .get(...params) as number;
  }

  /** Through the index when the matches are few, else a walk of the newest rows, then the index if it found too few. */
  private newest(f: Filters, driver: Driver | null, total: number, limit: number): SummaryRow[] {
    const select = (fromId: bigint, by: Driver | null) => {
      const [where, params] = conditions(f, fromId, f.toId, by);
      // The keys first, from the index alone (a filter's index is in key order only within one kind), then the rows.
      return this.connection
        .statement(
          `SELECT ${COLUMNS} FROM ${FROM} WHERE p.id IN (SELECT p.id FROM ${fromWhere(f, by, false)} WHERE ${where}
           ORDER BY p.id DESC LIMIT ?) ORDER BY p.id DESC`,
        )
        .all(...params, limit) as SummaryRow[];
    };
    if (driver !== null && total <= COUNT_CAP) return select(f.fromId, driver);
    if (driver === null) return select(f.fromId, null);
    const floor = this.connection
      .statement('SELECT id FROM profile WHERE id <= ? ORDER BY id DESC LIMIT 1 OFFSET ?')
      .safeIntegers(true)
      .pluck()
      .get(f.toId, WALK_BUDGET) as bigint | undefined;
    const from = floor !== undefined && floor > f.fromId ? floor : f.fromId;
    const rows = select(from, null);
    return rows.length === limit || from === f.fromId ? rows : select(f.fromId, driver);
  }
}

/** The candidates a count reads: the driver's condition alone (and the time range). */
function only(f: Filters, driver: Driver | null): Filters {
  return driver === null ? none(f) : { ...none(f), [driver]: f[driver] };
}

function none(f: Filters): Filters {
  return { ...f, ip: null, method: null, status: null, token: null, url: null, kinds: null };
}
