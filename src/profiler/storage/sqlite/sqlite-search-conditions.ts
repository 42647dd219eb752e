import type { CompiledCriteria } from '../search/compiled-criteria.js';
import { KIND_CODES, MAX_TIME } from '../search-helpers.js';
import { BY_TOKEN, keyRange } from './sqlite-keys.js';

/**
 * The URL filter: the LIKE pattern, and the ids of the distinct URLs holding the needle when they are few enough
 * to seek (null: the URL is checked with LIKE on each row).
 */
export interface UrlMatch {
  like: string;
  ids: number[] | null;
}
/** The filter whose index drives a search through the indexes (the others checked row by row). */
export type Driver = 'ip' | 'method' | 'status' | 'token' | 'url' | 'kinds';

/** A search as the SQLite store plans it: the compiled criteria, the URL's matches and the time range as keys. */
export interface Filters extends Omit<CompiledCriteria, 'url' | 'time' | 'limit'> {
  url: UrlMatch | null;
  timeBounded: boolean;
  fromId: bigint;
  toId: bigint;
}

/** The compiled criteria as the SQLite store plans them. */
export function filtersOf(compiled: CompiledCriteria, url: UrlMatch | null): Filters {
  const { time, limit: _limit, ...rest } = compiled;
  const [fromId, toId] = keyRange(...(time ?? [0, MAX_TIME]));
  return { ...rest, url, timeBounded: time !== null, fromId, toId };
}

/** The filters a search may drive through their index (a URL only through its distinct URLs' ids). */
export function indexedFilters(f: Filters): Driver[] {
  const drivers: Driver[] = [];
  if (f.ip !== null) drivers.push('ip');
  if (f.method !== null) drivers.push('method');
  if (f.status !== null) drivers.push('status');
  if (f.token !== null) drivers.push('token');
  if (f.url?.ids) drivers.push('url');
  // Only the other kinds than the application's are indexed (profile_kind_other).
  if (f.kinds !== null && !f.kinds.includes(KIND_CODES.application)) drivers.push('kinds');
  return drivers;
}

/**
 * The WHERE clause of a search between two keys, for a SELECT from profile `p` joined with its URL `u`, written so
 * that SQLite drives it the chosen way: with no `driver`, through the table's key range, checking every condition
 * row by row (hidden from the indexes by a unary +); else through that filter's index, the key range and the
 * others checked on the rows it leads to.
 */
export function conditions(f: Filters, fromId: bigint, toId: bigint, driver: Driver | null): [string, unknown[]] {
  const col = (key: Driver, name: string = key) => (driver === key ? `p.${name}` : `+p.${name}`);
  const where = [driver === null ? 'p.id BETWEEN ? AND ?' : '+p.id BETWEEN ? AND ?'];
  const params: unknown[] = [fromId, toId];
  const add = ([sql, values]: [string, unknown[]]) => {
    where.push(sql);
    params.push(...values);
  };
  if (f.ip !== null) add(rangeCondition(col('ip'), f.ip));
  // The codes are KIND_CODES' integers, in the text; `kind <> 0` lets SQLite use the partial index.
  if (f.kinds !== null)
    add([
      driver === 'kinds' ? `p.kind IN (${f.kinds.join(', ')}) AND p.kind <> 0` : `+p.kind IN (${f.kinds.join(', ')})`,
      [],
    ]);
  if (f.method !== null) add([`${col('method')} = ?`, [f.method]]);
  if (f.status !== null) add([`${col('status')} BETWEEN ? AND ?`, f.status]);
  if (f.token !== null) {
    // Through profile_token `t` (fromWhere() joins it), whose entries of pruned profiles point to no row or another
    // token's: the row checked.
    if (driver === 'token') add(rangeCondition('t.token', f.token));
    add(rangeCondition('+p.token', f.token));
  }
  if (f.url?.ids) add([`${col('url', 'url_id')} IN (SELECT value FROM json_each(?))`, [JSON.stringify(f.url.ids)]]);
  else if (f.url) add([`u.url LIKE ? ESCAPE '\\'`, [f.url.like]]);
  return [where.join(' AND '), params];
}

/**
 * The FROM clause for conditions(): profile `p`, behind the token table when the token prefix drives, and with its
 * URL `u` when `withUrl` (the listed columns) or when a URL is checked with LIKE.
 */
export function fromWhere(f: Filters, driver: Driver | null, withUrl: boolean): string {
  const profile = driver === 'token' ? BY_TOKEN : 'profile p';
  return withUrl || (f.url !== null && f.url.ids === null)
    ? `${profile} CROSS JOIN profile_url u ON u.id = p.url_id`
    : profile;
}

/** `column >= low AND column < high`: every string starting with the prefix (`high` null: no upper bound). */
export function rangeCondition(column: string, [low, high]: [string, string | null]): [string, unknown[]] {
  return high === null ? [`${column} >= ?`, [low]] : [`${column} >= ? AND ${column} < ?`, [low, high]];
}
