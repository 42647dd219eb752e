import type { ProfileSearchCriteria } from '../profile-record.js';
import { escapeLike, kindCodes, MAX_TIME, prefixRange } from '../search-helpers.js';
import { queryTerms, type SearchTerm } from './search-words.js';

/** A search normalised before any SQL, so that both stores give it the same meaning (the contract spec checks). */
export interface CompiledCriteria {
  /** A range of strings (prefixRange). */
  ip: [string, string | null] | null;
  /** ASCII letters in upper case: both stores fold ASCII letters only. */
  method: string | null;
  /** Both ends inclusive. */
  status: [number, number] | null;
  /** As typed: the full-text index knows statuses by these prefixes. */
  statusPrefix: string | null;
  text: SearchTerm[] | null;
  url: { needle: string; like: string } | null;
  /** Lower case. */
  token: [string, string | null] | null;
  kinds: number[] | null;
  /** Both ends inclusive, within [0, MAX_TIME]. */
  time: [number, number] | null;
  limit: number;
}

/** Null when nothing can match, as with a NUL: nothing stored holds one, and SQLite's LIKE and FTS5 stop at it. */
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
