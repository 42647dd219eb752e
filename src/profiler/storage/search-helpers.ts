/** Helpers both profile stores use to turn search criteria into SQL (one definition, the same semantics). */

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
