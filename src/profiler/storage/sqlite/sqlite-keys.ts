import type Database from 'better-sqlite3';
import type { ProfileSummary } from '../profile-record.js';
import { kindName } from '../search-helpers.js';

/**
 * A key is time, then write sequence within the millisecond: the table is stored in list order, and a time range
 * is a key range. Times are clamped to MAX_TIME so that keys fit SQLite's 63 positive bits.
 */
export const SEQ_BITS = 20n;
export const MAX_ID = (1n << 63n) - 1n;

/** Both ends inclusive. */
export function keyRange(from: number, to: number): [bigint, bigint] {
  return [BigInt(from) << SEQ_BITS, ((BigInt(to) + 1n) << SEQ_BITS) - 1n];
}

export const COLUMNS = `p.token, p.parent, p.ip, p.method, u.url, p.time, p.status AS statusCode, ${kindName('p.kind')} AS kind, p.duration, p.route,
  p.redirected_from AS redirectedFrom`;
export const FROM = 'profile p CROSS JOIN profile_url u ON u.id = p.url_id';
/** An entry of a pruned profile points to no row, or another token's (keys are reused): it matches nothing. */
export const BY_TOKEN = 'profile_token t CROSS JOIN profile p ON p.id = t.id AND p.token = t.token';
export const ID_OF_TOKEN =
  '(SELECT q.id FROM profile_token k CROSS JOIN profile q ON q.id = k.id AND q.token = k.token WHERE k.token = ?)';

export type SummaryRow = ProfileSummary;

export type Statement = Database.Statement<unknown[], unknown>;

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
