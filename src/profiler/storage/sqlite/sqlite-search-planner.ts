import type { ProfileSearchCriteria, ProfileSearchResult } from '../profile-record.js';
import { compileCriteria } from '../search/compiled-criteria.js';
import { splitByHours } from '../search/hours.js';
import { MAX_TIME } from '../search-helpers.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { COLUMNS, FROM, keyRange, type SummaryRow } from './sqlite-keys.js';
import type { SqliteRunningTotals } from './sqlite-running-totals.js';
import { conditions, filtersOf, type Driver, type Filters } from './sqlite-search-conditions.js';
import type { SqliteUrlMatcher } from './sqlite-url-matcher.js';
import { SqliteTextSearch } from './sqlite-text-search.js';
import type { SqliteTextTotals } from './sqlite-text-totals.js';
import type { SqliteTextParts } from './sqlite-text-parts.js';

/** Reading the next row of a walk costs about this fraction of a match sought through an index. */
const WALK_ROW_COST = 0.25;
/** A combination of filters with a time range holding at most this many profiles is counted over that range. */
const RANGE_COUNT_MAX = 50_000;

/**
 * Plans and runs a search. Counting: the running totals answer every search by method, status and time (and by
 * IP alone) from a few thousand rows, adding the rows of the partial hours at the ends of a time range; a URL
 * alone is counted by summing its distinct matching URLs' counts; other combinations count through the indexes.
 * Rows: the newest `limit` matches, either walking the table from the newest key (when matches are common: few
 * rows to read) or through the filters' indexes (when they are rare), whichever reads fewer rows by the exact count.
 * A search with full-text terms is the full-text index's (SqliteTextSearch).
 */
export class SqliteSearchPlanner {
  private readonly text: SqliteTextSearch;

  constructor(
    private readonly connection: SqliteConnection,
    private readonly totals: SqliteRunningTotals,
    private readonly urls: SqliteUrlMatcher,
    textParts: SqliteTextParts,
    textTotals: SqliteTextTotals,
    trackTextMatches: number,
  ) {
    this.text = new SqliteTextSearch(connection, textParts, textTotals, trackTextMatches);
  }

  find(criteria: ProfileSearchCriteria): ProfileSearchResult {
    this.connection.assertOpen();
    const compiled = compileCriteria(criteria);
    if (!compiled) return { total: 0, rows: [] };
    const url = compiled.url === null ? null : this.urls.match(compiled.url);
    if (
      url?.ids?.length === 0 ||
      (url?.skeletons && url.skeletons.all.length === 0 && url.skeletons.check.length === 0)
    )
      return { total: 0, rows: [] };
    const filters = filtersOf(compiled, url);
    if (filters.text !== null) return this.text.find(filters, filters.text, compiled.limit);
    const total = this.countMatches(filters);
    if (total === 0 || compiled.limit === 0) return { total, rows: [] };
    return { total, rows: this.newest(filters, total, compiled.limit) };
  }

  /**
   * The hours' and the IPs' totals count per kind too; the token prefixes', URLs' and skeletons' do not, so a
   * search by token or URL with `kinds` is counted through the indexes (the search page makes those with every kind).
   */
  private countMatches(f: Filters): number {
    const others = f.ip !== null || f.method !== null || f.status !== null || f.token !== null;
    const everyKind = f.kinds === null;
    if (f.ip === null && f.url === null && f.token === null) return this.countByTotals(f, f.fromTime, f.toTime);
    // An IP, with a method, a status or kinds or none: from its running totals.
    if (f.ip !== null && f.url === null && f.token === null && !f.timeBounded) return this.totals.ip(f.ip, f);
    if (!everyKind) return this.countThroughIndexes(f);
    if (
      f.token !== null &&
      [...f.token[0]].length <= 2 &&
      f.ip === null &&
      f.method === null &&
      f.status === null &&
      f.url === null &&
      !f.timeBounded
    ) {
      return this.totals.tokenPrefix(f.token);
    }
    if (f.url !== null && !others && !f.timeBounded) return this.totals.url(f.url);
    // A URL with a method, a status or both (alone it is counted above): from its running totals.
    if (!f.timeBounded && f.token === null && f.ip === null && f.url !== null)
      return this.totals.urlWithStatus(f.url, f);
    return this.countThroughIndexes(f);
  }

  /** Counts the matches row by row: over the time range when it holds few profiles, else through the filters' indexes. */
  private countThroughIndexes(f: Filters): number {
    const inRange = f.timeBounded ? this.rowsInRange(f) : Infinity;
    const [where, params] =
      inRange <= RANGE_COUNT_MAX
        ? conditions(f, 'range', f.fromId, f.toId)
        : conditions(f, 'index', f.fromId, f.toId, this.driver(f));
    return this.connection
      .statement(`SELECT count(*) FROM profile p WHERE ${where}`)
      .pluck()
      .get(...params) as number;
  }

  /** The profiles in the criteria's time range, whatever the other filters: the rows a walk over the range may read. */
  private rowsInRange(f: Filters): number {
    return this.countByTotals(
      { ...f, ip: null, method: null, status: null, url: null, token: null, kinds: null },
      f.fromTime,
      f.toTime,
    );
  }

  /**
   * For a combination of filters searched through the indexes: the filter matching the fewest profiles (known
   * from the running totals and URL counts), whose index then drives the query, the others checked row by row.
   * SQLite alone would often pick the index of a common value. Null for a single filter.
   */
  private driver(f: Filters): Driver | null {
    const estimates: [Driver, number][] = [];
    // Index entries each would read: of every kind (kinds are checked row by row).
    const none = { ip: null, url: null, token: null, method: null, status: null, kinds: null };
    if (f.ip !== null) estimates.push(['ip', this.totals.ip(f.ip)]);
    if (f.method !== null)
      estimates.push(['method', this.countByTotals({ ...f, ...none, method: f.method }, 0, MAX_TIME)]);
    if (f.status !== null)
      estimates.push(['status', this.countByTotals({ ...f, ...none, status: f.status }, 0, MAX_TIME)]);
    if (f.token !== null) estimates.push(['token', this.totals.total() / 16 ** f.token[0].length]);
    if (f.url !== null) {
      const { ids, skeletons } = f.url;
      estimates.push([
        'url',
        ids ? this.totals.urlIds(ids) : skeletons ? skeletons.allProfiles + skeletons.checkProfiles : Infinity,
      ]);
    }
    if (estimates.length < 2) return null;
    return estimates.reduce((best, e) => (e[1] < best[1] ? e : best))[0];
  }

  /** Matches by method, status and time, from the hourly totals plus the rows of the partial hours at the ends. */
  private countByTotals(f: Filters, from: number, to: number): number {
    const { hours, partial } = splitByHours(from, to);
    let n = hours ? this.totals.hours(f, hours[0], hours[1]) : 0;
    for (const [a, b] of partial) {
      const [where, params] = conditions(f, 'range', ...keyRange(a, b));
      n += this.connection
        .statement(`SELECT count(*) FROM profile p WHERE ${where}`)
        .pluck()
        .get(...params) as number;
    }
    return n;
  }

  private newest(f: Filters, total: number, limit: number): SummaryRow[] {
    const select = (where: string, params: unknown[]) =>
      this.connection
        .statement(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY p.id DESC LIMIT ?`)
        .all(...params, limit) as SummaryRow[];
    if (f.ip === null && f.method === null && f.status === null && f.url === null && f.token === null) {
      // No filter with an index (kinds at most, checked row by row): the key range from its newest end, as far as
      // it takes to find `limit` matches, however rare they are among the newest.
      return select(...conditions(f, 'range', f.fromId, f.toId));
    }
    // Walking the table from the newest key reads about limit × inRange / total rows, cheap ones (the table is
    // in key order); seeking reads `total` index entries and as many rows, then sorts them.
    const inRange = f.timeBounded ? this.rowsInRange(f) : this.totals.total();
    const expectedWalk = (limit * inRange) / total;
    if (expectedWalk * WALK_ROW_COST <= total) {
      const budget = Math.ceil(4 * expectedWalk) + 1000;
      const floor = this.connection
        .statement('SELECT id FROM profile WHERE id <= ? ORDER BY id DESC LIMIT 1 OFFSET ?')
        .safeIntegers(true)
        .pluck()
        .get(f.toId, budget) as bigint | undefined;
      const from = floor !== undefined && floor > f.fromId ? floor : f.fromId;
      const rows = select(...conditions(f, 'walk', from, f.toId));
      // Done if enough were found, or if the walk covered the whole range (then these are all there are).
      // Otherwise the matches are rarer among the newest than overall: seek them.
      if (rows.length === limit || from === f.fromId) return rows;
    }
    if (f.timeBounded && inRange <= 4 * total + 2000) return select(...conditions(f, 'range', f.fromId, f.toId));
    return select(...conditions(f, 'index', f.fromId, f.toId, this.driver(f)));
  }
}
