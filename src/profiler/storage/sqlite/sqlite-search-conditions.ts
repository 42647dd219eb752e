import type { CompiledCriteria } from '../search/compiled-criteria.js';
import { KIND_CODES, MAX_TIME } from '../search-helpers.js';
import { BY_TOKEN, keyRange } from './sqlite-keys.js';

/** `ids`: the distinct URLs holding the needle, when few enough to seek (null: LIKE on each row). */
export interface UrlMatch {
  like: string;
  ids: number[] | null;
}
/** The filter whose index drives a search (the others checked row by row). */
export type Driver = 'ip' | 'method' | 'status' | 'token' | 'url' | 'kinds';

export interface Filters extends Omit<CompiledCriteria, 'url' | 'time' | 'limit'> {
  url: UrlMatch | null;
  timeBounded: boolean;
  fromId: bigint;
  toId: bigint;
}

export function filtersOf(compiled: CompiledCriteria, url: UrlMatch | null): Filters {
  const { time, limit: _limit, ...rest } = compiled;
  const [fromId, toId] = keyRange(...(time ?? [0, MAX_TIME]));
  return { ...rest, url, timeBounded: time !== null, fromId, toId };
}

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

/** A unary + hides the other columns from the indexes: no `driver` walks the key range, else its index drives. */
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
    // profile_token's entries of pruned profiles may point to another token's row: the row checked too.
    if (driver === 'token') add(rangeCondition('t.token', f.token));
    add(rangeCondition('+p.token', f.token));
  }
  if (f.url?.ids) add([`${col('url', 'url_id')} IN (SELECT value FROM json_each(?))`, [JSON.stringify(f.url.ids)]]);
  else if (f.url) add([`u.url LIKE ? ESCAPE '\\'`, [f.url.like]]);
  return [where.join(' AND '), params];
}

/** For conditions(): with the URL `u` when listed (`withUrl`) or checked with LIKE. */
export function fromWhere(f: Filters, driver: Driver | null, withUrl: boolean): string {
  const profile = driver === 'token' ? BY_TOKEN : 'profile p';
  return withUrl || (f.url !== null && f.url.ids === null)
    ? `${profile} CROSS JOIN profile_url u ON u.id = p.url_id`
    : profile;
}

/** Every string starting with the prefix (prefixRange). */
export function rangeCondition(column: string, [low, high]: [string, string | null]): [string, unknown[]] {
  return high === null ? [`${column} >= ?`, [low]] : [`${column} >= ? AND ${column} < ?`, [low, high]];
}
