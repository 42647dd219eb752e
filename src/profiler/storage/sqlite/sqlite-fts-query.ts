import type { SearchTerm } from '../search/search-words.js';

/** An FTS5 query requiring every term (a prefix `*`) and every extra word (the facets' marked words). */
export function ftsQuery(terms: readonly SearchTerm[], words: readonly string[] = []): string {
  return [...terms.map((t) => `${quoted(t.word)}${t.prefix ? ' *' : ''}`), ...words.map(quoted)].join(' AND ');
}

/** An FTS5 string: the word as one token, whatever it holds. */
function quoted(word: string): string {
  return `"${word.replaceAll('"', '""')}"`;
}
