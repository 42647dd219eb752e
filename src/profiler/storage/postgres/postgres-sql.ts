import pg from 'pg';
import type { ProfileSummary } from '../profile-record.js';
import { kindName, optionalText } from '../search-helpers.js';

const INT4_MAX = 2 ** 31 - 1;
const PG_INT8 = 20;

export const COLUMNS = `p.token, p.parent, p.ip, p.method, p.url, p.time, p.status AS "statusCode", ${kindName('p.kind')} AS kind, p.duration, p.route,
  p.redirected_from AS "redirectedFrom"`;

/** A mapped type: pg wants rows with an index signature, which an interface lacks. */
export type SummaryRow = { [K in keyof ProfileSummary]: ProfileSummary[K] };

/** The codes written into the text, so the planner sees them (few distinct texts). */
export function kindCondition(codes: number[], column = 'p.kind'): string {
  return `${column} IN (${codes.join(', ')})`;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function hasNul(text: string): boolean {
  return text.includes('\u0000');
}

/** PostgreSQL text cannot hold NUL: written as U+FFFD. */
export function pgText(text: string): string {
  return hasNul(text) ? text.replaceAll('\u0000', '\uFFFD') : text;
}

export function nullableText(value: unknown): string | null {
  const text = optionalText(value);
  return text === null ? null : pgText(text);
}

/** A token with NUL is no stored one. */
export function validTokens(tokens: readonly string[]): string[] {
  return tokens.filter((t) => typeof t === 'string' && !hasNul(t));
}

export function clampStatus(status: number): number {
  const s = Math.trunc(Number(status)) || 0;
  return Math.max(-INT4_MAX - 1, Math.min(INT4_MAX, s));
}

/** int8 as a number: times, ids and counts are far below 2^53. */
export function getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === PG_INT8 && format !== 'binary') return (value: string) => Number(value);
  return pg.types.getTypeParser(oid, format as 'text');
}
