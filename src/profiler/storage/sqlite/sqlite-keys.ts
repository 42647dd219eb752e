import type Database from 'better-sqlite3';
import type { ProfileSummary } from '../profile-record.js';
import { kindName } from '../search-helpers.js';

/**
 * The key of a profile: its time in the high bits, its write sequence within that millisecond in the low 20.
 * The table is thus stored in list order (newest last, equal times in write order), every index on one column
 * is ordered by (value, time, write order), and a time range is a key range. Times are clamped to [0, 2^42) ms
 * (until the year 2109) so that keys fit SQLite's 63 positive bits.
 */
export const SEQ_BITS = 20n;
/** The largest key. */
export const MAX_ID = (1n << 63n) - 1n;

/** The keys of the profiles of a time range (milliseconds, both ends inclusive), both ends inclusive. */
export function keyRange(from: number, to: number): [bigint, bigint] {
  return [BigInt(from) << SEQ_BITS, ((BigInt(to) + 1n) << SEQ_BITS) - 1n];
}

/** The list columns of profile `p` (joined with its URL `u`). */
export const COLUMNS = `p.token, p.parent, p.ip, p.method, u.url, p.time, p.status AS statusCode, ${kindName('p.kind')} AS kind, p.duration, p.route,
  p.redirected_from AS redirectedFrom`;
export const FROM = 'profile p CROSS JOIN profile_url u ON u.id = p.url_id';
/**
 * The live profile `p` of token `t` (profile_token): an entry whose profile was pruned points to no row, or to a
 * row of another token (keys are reused within a millisecond), and matches nothing.
 */
export const BY_TOKEN = 'profile_token t CROSS JOIN profile p ON p.id = t.id AND p.token = t.token';
/** The key of the live profile of token `?` (null: none). */
export const ID_OF_TOKEN =
  '(SELECT q.id FROM profile_token k CROSS JOIN profile q ON q.id = k.id AND q.token = k.token WHERE k.token = ?)';

/** A row of COLUMNS: the list columns as ProfileSummary names them. */
export type SummaryRow = ProfileSummary;

export type Statement = Database.Statement<unknown[], unknown>;

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
