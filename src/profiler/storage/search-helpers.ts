/** Helpers both profile stores use to turn search criteria into SQL (one definition, the same semantics). */
import { PROFILE_KINDS, type ProfileKind } from './profile-record.js';

/** Searches count their matches up to one more than this: a total above it says "more than COUNT_CAP". */
export const COUNT_CAP = 10_000;

/** The latest time a store keeps (milliseconds since the epoch; 42 bits: year 2109). */
export const MAX_TIME = 2 ** 42 - 1;

/**
 * The strings starting with `prefix` are those in [prefix, next) where `next` is the smallest string greater than
 * all of them: the prefix with its last code point incremented. Both stores compare UTF-8 bytes (SQLite's default,
 * PostgreSQL's "C" collation), which order like code points. `next` null: no upper bound.
 */
export function prefixRange(prefix: string): [string, string | null] {
  const points = [...prefix].map((c) => c.codePointAt(0)!);
  while (points.length > 0) {
    let last = points.pop()! + 1;
    if (last >= 0xd800 && last <= 0xdfff) last = 0xe000;
    if (last <= 0x10ffff) return [prefix, String.fromCodePoint(...points, last)];
  }
  return [prefix, null];
}

/** A LIKE pattern matching `text` literally, with the backslash as escape character (SQLite: ESCAPE '\'; PostgreSQL's default). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A time as the stores keep it: a whole number of milliseconds in [0, MAX_TIME]. */
export function clampTime(time: number): number {
  const t = Math.trunc(Number(time));
  return Number.isFinite(t) ? Math.min(MAX_TIME, Math.max(0, t)) : 0;
}

/**
 * A profile's kind as both stores keep it, a small integer: the list columns stay narrow and the running totals
 * take one more integer per key. A code neither store knows reads back as 'application'.
 */
export const KIND_CODES: Readonly<Record<ProfileKind, number>> = { application: 0, profiler: 1, asset: 2 };

/** The code of a kind (an unknown value counts as 'application', as profiles written before kinds do). */
export function kindCode(kind: unknown): number {
  return Object.hasOwn(KIND_CODES, kind as string) ? KIND_CODES[kind as ProfileKind] : KIND_CODES.application;
}

/**
 * The codes a `kinds` criterion allows, ascending: null when it allows every kind (undefined, or all of them), so
 * that such a search plans as one without it; empty when it allows none (unknown names match nothing).
 */
export function kindCodes(kinds: readonly ProfileKind[] | undefined): number[] | null {
  if (kinds === undefined || kinds === null) return null;
  const codes = [...new Set(kinds.filter((k) => Object.hasOwn(KIND_CODES, k)).map((k) => KIND_CODES[k]))].sort(
    (a, b) => a - b,
  );
  return codes.length === PROFILE_KINDS.length ? null : codes;
}

/** SQL giving a kind's name from the code in `column` (both stores' list columns). */
export function kindName(column: string): string {
  return `CASE ${column} WHEN ${KIND_CODES.profiler} THEN 'profiler' WHEN ${KIND_CODES.asset} THEN 'asset' ELSE 'application' END`;
}

/**
 * A URL whose path is one of the profiler's pages (isProfilerPage: `/_profiler`, `/_profiler/…`), as a regular
 * expression JavaScript and PostgreSQL read alike: what made a profile of a store written before kinds 'profiler'.
 */
export const PROFILER_URL_PATTERN = '^([^/]*//[^/]*)?/_profiler([/?#]|$)';

/** A profile's duration as the stores keep it: a finite number of milliseconds, else null (not measured). */
export function cleanDuration(duration: unknown): number | null {
  return typeof duration === 'number' && Number.isFinite(duration) ? duration : null;
}

/** An optional text column (route, redirectedFrom): a string, else null. */
export function optionalText(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
