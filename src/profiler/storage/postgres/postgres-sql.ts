import pg from 'pg';
import type { ProfileSummary } from '../profile-record.js';
import { COUNT_CAP, kindName, optionalText } from '../search-helpers.js';

const INT4_MAX = 2 ** 31 - 1;
/** pg's type ids of what would otherwise come back as strings. */
const PG_INT8 = 20;

/** The list columns of profile `p`, named as ProfileSummary names them. */
export const COLUMNS = `p.token, p.parent, p.ip, p.method, p.url, p.time, p.status AS "statusCode", ${kindName('p.kind')} AS kind, p.duration, p.route,
  p.redirected_from AS "redirectedFrom"`;

/** A row of COLUMNS (a mapped type: pg wants rows with an index signature, which an interface lacks). */
export type SummaryRow = { [K in keyof ProfileSummary]: ProfileSummary[K] };

/**
 * `column` (p.kind by default) among the kinds' codes, written into the text: KIND_CODES' integers, so the planner
 * sees the values (at most seven texts).
 */
export function kindCondition(codes: number[], column = 'p.kind'): string {
  return `${column} IN (${codes.join(', ')})`;
}

/**
 * The matches of `from` (`<tables> WHERE <conditions>`), counted up to COUNT_CAP + 1: the count stops there, so it
 * reads at most that many rows, however many match.
 */
export async function countCapped(pool: pg.Pool, from: string, params: unknown[]): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${from} LIMIT ${COUNT_CAP + 1}) AS capped`,
    params,
  );
  return rows[0].n;
}

/**
 * The list order, newest first, for `total` matches of rows `alias`: many (above the cap), the time index read
 * backwards finds the newest soon; fewer, they are all read through the filters' indexes and sorted (`time + 0`
 * keeps the planner from walking the time index past rows that do not match, which it does when it misjudges how
 * rare the matches are).
 */
export function newestFirst(alias: string, total: number): string {
  return total > COUNT_CAP ? `${alias}.time DESC, ${alias}.id DESC` : `${alias}.time + 0 DESC, ${alias}.id DESC`;
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

/** An optional text column as PostgreSQL can hold it. */
export function nullableText(value: unknown): string | null {
  const text = optionalText(value);
  return text === null ? null : pgText(text);
}

/** Tokens PostgreSQL text can hold (a token with NUL is no stored one). */
export function validTokens(tokens: readonly string[]): string[] {
  return tokens.filter((t) => typeof t === 'string' && !hasNul(t));
}

export function clampStatus(status: number): number {
  const s = Math.trunc(Number(status)) || 0;
  return Math.max(-INT4_MAX - 1, Math.min(INT4_MAX, s));
}

/** int8 as a number (times, ids and counts are far below 2^53); everything else as pg parses it. */
export function getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === PG_INT8 && format !== 'binary') return (value: string) => Number(value);
  return pg.types.getTypeParser(oid, format as 'text');
}
