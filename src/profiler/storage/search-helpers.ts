/** Helpers both stores use, so that a search means the same in each. */
import { PROFILE_KINDS, type ProfileKind } from './profile-record.js';

/** Searches count their matches up to one more than this. */
export const COUNT_CAP = 10_000;

/** 42 bits of milliseconds (SQLite's keys). */
export const MAX_TIME = 2 ** 42 - 1;

/** [prefix, last code point incremented): both stores compare UTF-8 bytes, which order like code points. */
export function prefixRange(prefix: string): [string, string | null] {
  const points = [...prefix].map((c) => c.codePointAt(0)!);
  while (points.length > 0) {
    let last = points.pop()! + 1;
    if (last >= 0xd800 && last <= 0xdfff) last = 0xe000;
    if (last <= 0x10ffff) return [prefix, String.fromCodePoint(...points, last)];
  }
  return [prefix, null];
}

/** The backslash escapes (SQLite: ESCAPE '\'; PostgreSQL's default). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function clampTime(time: number): number {
  const t = Math.trunc(Number(time));
  return Number.isFinite(t) ? Math.min(MAX_TIME, Math.max(0, t)) : 0;
}

/** A small integer keeps the list columns narrow. A code neither store knows reads back as 'application'. */
export const KIND_CODES: Readonly<Record<ProfileKind, number>> = { application: 0, profiler: 1, asset: 2 };

/** An unknown value counts as 'application', as profiles written before kinds do. */
export function kindCode(kind: unknown): number {
  return Object.hasOwn(KIND_CODES, kind as string) ? KIND_CODES[kind as ProfileKind] : KIND_CODES.application;
}

/** Ascending; null when every kind is allowed, so the search plans as one without it; empty: none. */
export function kindCodes(kinds: readonly ProfileKind[] | undefined): number[] | null {
  if (kinds === undefined || kinds === null) return null;
  const codes = [...new Set(kinds.filter((k) => Object.hasOwn(KIND_CODES, k)).map((k) => KIND_CODES[k]))].sort(
    (a, b) => a - b,
  );
  return codes.length === PROFILE_KINDS.length ? null : codes;
}

export function kindName(column: string): string {
  return `CASE ${column} WHEN ${KIND_CODES.profiler} THEN 'profiler' WHEN ${KIND_CODES.asset} THEN 'asset' ELSE 'application' END`;
}

/** A profiler page's URL (isProfilerPage), read alike by JavaScript and PostgreSQL: for stores from before kinds. */
export const PROFILER_URL_PATTERN = '^([^/]*//[^/]*)?/_profiler([/?#]|$)';

export function cleanDuration(duration: unknown): number | null {
  return typeof duration === 'number' && Number.isFinite(duration) ? duration : null;
}

export function optionalText(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
