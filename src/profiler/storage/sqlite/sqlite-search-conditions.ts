import type { CompiledCriteria } from '../search/compiled-criteria.js';
import { MAX_TIME } from '../search-helpers.js';
import { keyRange } from './sqlite-keys.js';

/**
 * The URL filter: the LIKE pattern, and either the ids of the matching distinct URLs (when few) or the URL
 * skeletons (see the schema) whose every URL matches (`all`, with their number of profiles) and those some of
 * whose URLs may match (`check`: their URLs are checked with LIKE); null both: LIKE over every distinct URL.
 */
export interface UrlMatch {
  like: string;
  ids: number[] | null;
  skeletons: { all: number[]; allProfiles: number; check: number[]; checkProfiles: number } | null;
}
/** The filter whose index drives a search through the indexes (the others checked row by row). */
export type Driver = 'ip' | 'method' | 'status' | 'token' | 'url';

/** A search as the SQLite store plans it: the compiled criteria, the URL's matches and the time range as keys. */
export interface Filters extends Omit<CompiledCriteria, 'url' | 'time' | 'limit'> {
  url: UrlMatch | null;
  timeBounded: boolean;
  fromTime: number;
  toTime: number;
  fromId: bigint;
  toId: bigint;
}

/** The compiled criteria as the SQLite store plans them. */
export function filtersOf(compiled: CompiledCriteria, url: UrlMatch | null): Filters {
  const { time, limit: _limit, ...rest } = compiled;
  const [fromTime, toTime] = time ?? [0, MAX_TIME];
  const [fromId, toId] = keyRange(fromTime, toTime);
  return { ...rest, url, timeBounded: time !== null, fromTime, toTime, fromId, toId };
}

/**
 * The method and status conditions of the filters on a running totals table (`alias` its prefix), and the kinds'
 * for a table counting per kind (`perKind`); '1' for none.
 */
export function totalsConditions(
  f: { method: string | null; status: [number, number] | null; kinds: number[] | null },
  alias: string,
  perKind = false,
): [string, unknown[]] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (perKind && f.kinds !== null) where.push(`${alias}kind IN (${f.kinds.join(', ')})`);
  if (f.method !== null) {
    where.push(`${alias}method = ?`);
    params.push(f.method);
  }
  if (f.status !== null) {
    where.push(`${alias}status BETWEEN ? AND ?`);
    params.push(f.status[0], f.status[1]);
  }
  return [where.length > 0 ? where.join(' AND ') : '1', params];
}

/**
 * The WHERE clause of a search between two keys, written so that SQLite drives the query the chosen way: `walk`
 * and `range` through the table's key range, checking the other conditions row by row (hidden from the indexes
 * by a unary +); `index` through the filters' indexes (the key range hidden), for rare matches: only the
 * `driver`'s index when one is given (the others hidden too), else SQLite picks. `walk` is only
 * used in a SELECT that joins the profile's URL (u).
 */
export function conditions(
  f: Filters,
  mode: 'walk' | 'range' | 'index',
  fromId: bigint,
  toId: bigint,
  driver: Driver | null = null,
): [string, unknown[]] {
  const indexed = (key: Driver) => mode === 'index' && (driver === null || driver === key);
  const col = (key: Driver, name: string = key) => (indexed(key) ? `p.${name}` : `+p.${name}`);
  const where = [mode === 'index' ? '+p.id BETWEEN ? AND ?' : 'p.id BETWEEN ? AND ?'];
  const params: unknown[] = [fromId, toId];
  const add = ([sql, values]: [string, unknown[]]) => {
    where.push(sql);
    params.push(...values);
  };
  if (f.ip !== null) add(rangeCondition(col('ip'), f.ip));
  // Never through an index (there is none): checked row by row. The codes are KIND_CODES' integers, in the text.
  if (f.kinds !== null) add([`+p.kind IN (${f.kinds.join(', ')})`, []]);
  if (f.method !== null) add([`${col('method')} = ?`, [f.method]]);
  if (f.status !== null) add([`${col('status')} BETWEEN ? AND ?`, f.status]);
  if (f.token !== null) {
    // Through profile_token, whose entries of pruned profiles point to no row or another token's: the row checked.
    if (indexed('token'))
      add(prefixed('p.id IN (SELECT id FROM profile_token WHERE ', rangeCondition('token', f.token), ')'));
    add(rangeCondition('+p.token', f.token));
  }
  if (f.url?.ids) add([`${col('url', 'url_id')} IN (SELECT value FROM json_each(?))`, [JSON.stringify(f.url.ids)]]);
  else if (f.url?.skeletons && indexed('url')) {
    const { all, check } = f.url.skeletons;
    add([
      `p.url_id IN (SELECT id FROM profile_url WHERE skel_id IN (SELECT value FROM json_each(?))
                    UNION ALL SELECT id FROM profile_url WHERE skel_id IN (SELECT value FROM json_each(?)) AND url LIKE ? ESCAPE '\\')`,
      [JSON.stringify(all), JSON.stringify(check), f.url.like],
    ]);
  } else if (f.url?.skeletons && mode !== 'walk') {
    // Row by row: the profile's URL's skeleton among those matching whole, or among the others and the URL matching.
    const { all, check } = f.url.skeletons;
    add([
      `EXISTS (SELECT 1 FROM profile_url x WHERE x.id = p.url_id
                 AND (x.skel_id IN (SELECT value FROM json_each(?)) OR (x.skel_id IN (SELECT value FROM json_each(?)) AND x.url LIKE ? ESCAPE '\\')))`,
      [JSON.stringify(all), JSON.stringify(check), f.url.like],
    ]);
  } else if (f.url && mode === 'walk') add([`u.url LIKE ? ESCAPE '\\'`, [f.url.like]]);
  else if (f.url)
    add([`${col('url', 'url_id')} IN (SELECT id FROM profile_url WHERE url LIKE ? ESCAPE '\\')`, [f.url.like]]);
  return [where.join(' AND '), params];
}

/** A condition wrapped in text before and after. */
function prefixed(before: string, [sql, params]: [string, unknown[]], after: string): [string, unknown[]] {
  return [`${before}${sql}${after}`, params];
}

/** `column >= low AND column < high`: every string starting with the prefix (`high` null: no upper bound). */
export function rangeCondition(column: string, [low, high]: [string, string | null]): [string, unknown[]] {
  return high === null ? [`${column} >= ?`, [low]] : [`${column} >= ? AND ${column} < ?`, [low, high]];
}
