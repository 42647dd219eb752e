import type { ProfileSearchCriteria } from '../profile-record.js';
import { escapeLike, kindCodes, MAX_TIME, prefixRange } from '../search-helpers.js';
import { queryTerms, type SearchTerm } from './search-words.js';

/**
 * A search as both stores run it, before any SQL: every value trimmed, normalised and bounded, so that SQLite and
 * PostgreSQL give a search the same meaning (the contract spec holds them to it).
 */
export interface CompiledCriteria {
  /** The addresses starting with the IP prefix, as a range of strings (see prefixRange). */
  ip: [string, string | null] | null;
  /** The exact method with its ASCII letters in upper case: both stores fold ASCII letters only. */
  method: string | null;
  /** The status codes a whole code or a prefix of one stands for, both ends inclusive. */
  status: [number, number] | null;
  /** The status filter as typed (`4`, `40`, `404`): the full-text index knows statuses by these prefixes. */
  statusPrefix: string | null;
  /** The full-text query's terms (every one must match); null: no full-text filter. */
  text: SearchTerm[] | null;
  /** The URL substring as given, and as a LIKE pattern matching it literally. */
  url: { needle: string; like: string } | null;
  /** The tokens starting with the token prefix (lower case). */
  token: [string, string | null] | null;
  /** The kinds' codes (null: every kind). */
  kinds: number[] | null;
  /** Milliseconds, both ends inclusive, within [0, MAX_TIME]; null when the criteria set no bound. */
  time: [number, number] | null;
  /** Rows to return, a whole number. */
  limit: number;
}

/**
 * The criteria as both stores search them; null when nothing can match. A text filter holding a NUL is one: no
 * stored address, method, URL or token holds one (Node refuses it in a request line, PostgreSQL in text), and the
 * stores would read it otherwise (SQLite's LIKE and FTS5 stop at it), so it is decided here, for both alike.
 */
export function compileCriteria(criteria: ProfileSearchCriteria): CompiledCriteria | null {
  const ipPrefix = trimmed(criteria.ip);
  const method = trimmed(criteria.method);
  const statusPrefix = trimmed(criteria.statusCode);
  const needle = typeof criteria.url === 'string' && criteria.url !== '' ? criteria.url : null;
  const tokenPrefix = trimmed(criteria.token)?.toLowerCase() ?? null;
  if ([ipPrefix, method, needle, tokenPrefix].some((value) => value?.includes('\0'))) return null;
  const kinds = kindCodes(criteria.kinds);
  if (kinds?.length === 0) return null;
  const query = trimmed(criteria.text);
  const text = query === null ? null : queryTerms(query);
  if (query !== null && text === null) return null;
  let status: [number, number] | null = null;
  if (statusPrefix !== null) {
    if (!/^\d{1,3}$/.test(statusPrefix)) return null;
    const scale = 10 ** (3 - statusPrefix.length);
    status = [Number(statusPrefix) * scale, Number(statusPrefix) * scale + scale - 1];
  }
  const start = typeof criteria.start === 'number' && Number.isFinite(criteria.start) ? criteria.start : null;
  const end = typeof criteria.end === 'number' && Number.isFinite(criteria.end) ? criteria.end : null;
  const fromTime = start === null ? 0 : Math.ceil(start);
  const toTime = end === null ? MAX_TIME : Math.floor(end);
  if (fromTime > MAX_TIME || toTime < 0 || fromTime > toTime) return null;
  return {
    ip: ipPrefix === null ? null : prefixRange(ipPrefix),
    method: method === null ? null : method.replace(/[a-z]+/g, (s) => s.toUpperCase()),
    status,
    statusPrefix: status === null ? null : statusPrefix,
    text,
    url: needle === null ? null : { needle, like: `%${escapeLike(needle)}%` },
    token: tokenPrefix === null ? null : prefixRange(tokenPrefix),
    kinds,
    time: start === null && end === null ? null : [Math.max(0, fromTime), Math.min(MAX_TIME, toTime)],
    limit: Math.max(0, Math.floor(Number(criteria.limit) || 0)),
  };
}

function trimmed(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}
