import type { SearchTerm } from './search-words.js';

/**
 * Full-text queries with running totals. Counting a common word reads its whole entry in the index (most of a
 * million profiles); a query that matched this many is "tracked": its matches are counted per hour, kind, method
 * and status as profiles are written, as the list columns' totals are, so that its next counts read a few
 * thousand rows.
 */
export const TRACK_MIN_MATCHES = 20_000;
/** Tracked queries at most (each adds its totals to every write): the oldest makes room for a new one. */
export const MAX_TRACKED_QUERIES = 64;

/** A written profile with text, as the tracked queries' totals count it. */
export interface TextTotalsRow {
  time: number;
  kind: number;
  /** In upper case (ASCII letters), as the totals keep it. */
  method: string;
  status: number;
  /** Its distinct words (indexWords): made a set only when some query is tracked. */
  words: readonly string[];
}

/** A query's terms as one key, the same for the same terms in any order: sorted, a prefix ending in `*`. */
export function queryKey(terms: readonly SearchTerm[]): string {
  return [...new Set(terms.map((t) => `${t.word}${t.prefix ? '*' : ''}`))].sort().join(' ');
}

/** The terms of a key. */
export function termsOfKey(key: string): SearchTerm[] {
  return key
    .split(' ')
    .map((term) => (term.endsWith('*') ? { word: term.slice(0, -1), prefix: true } : { word: term, prefix: false }));
}

/**
 * Whether a profile with these words matches every term, as the full-text index answers it (a write counts its
 * tracked queries' matches with it): a word whole, a prefix any word starting with it.
 */
export function matchesWords(terms: readonly SearchTerm[], words: ReadonlySet<string>): boolean {
  return terms.every((term) => {
    if (!term.prefix) return words.has(term.word);
    for (const word of words) if (word.startsWith(term.word)) return true;
    return false;
  });
}

/**
 * The first millisecond whose hour the totals count whole: the hour after the newest one pruning has reached
 * (`floor`, the newest time pruned; -1: none). Earlier hours, which lost some profiles, are counted row by row.
 */
export function trustedFrom(floor: number, hour: number): number {
  return floor < 0 ? 0 : (Math.floor(floor / hour) + 1) * hour;
}
