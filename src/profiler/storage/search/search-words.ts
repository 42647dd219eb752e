/**
 * The words of full-text search, one definition for both stores: a profile's text becomes a set of words here,
 * stored as they are (SQLite's FTS5 re-tokenizes nothing it would split; PostgreSQL takes them as lexemes), and a
 * query becomes terms the same way, so that SQLite and PostgreSQL find the same profiles.
 */

/** What separates words: anything but letters, digits and underscores (accents removed before). */
const SEPARATORS = /[^\p{L}\p{N}_]+/u;
const ASCII_SEPARATORS = /[^A-Za-z0-9_]+/;
const NON_ASCII = /[\u0080-\uffff]/;
/** A query's word, a trailing `*` making it a prefix. */
const QUERY_WORD = /([\p{L}\p{N}_]+)(\*?)/gu;
/**
 * The parts of an identifier: `CartQuantityException` → Cart, Quantity, Exception; `HTTPClient` → HTTP, Client.
 * Digits are not parts (`utf8`, `sha256`, `v2` stay whole).
 */
const CAMEL_PART = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+/gu;
const MIXED_CASE = /^(?=.*\p{Lu})(?=.*\p{Ll})/u;
/** Longer runs are blobs (encoded data, hashes longer than a trace id): nobody types them. */
const MAX_WORD_LENGTH = 64;
/** Words of one profile, at most: a log of thousands of distinct ids adds little to finding the request. */
export const MAX_WORDS = 4000;
/** Terms of one query, at most. */
export const MAX_TERMS = 16;
/** A prefix term needs this many characters: shorter ones would read most of the index. */
const MIN_PREFIX = 2;

/**
 * Marks the words the store adds for the list columns (method, status) so that a filter is part of the same
 * index lookup. A private-use character: a query's words never contain one (QUERY_WORD has no such category).
 */
export const FACET_MARK = '\uE000';

export interface SearchTerm {
  word: string;
  prefix: boolean;
}

/** Accents removed (NFKD, marks dropped); the case is kept, for the identifiers' parts. */
function unaccented(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '');
}

/**
 * The distinct words of a profile's texts: each word whole, and the parts of an identifier too (`cart_lines`:
 * also cart and lines; `CartQuantityException`: also cart, quantity and exception), so that a part finds it.
 * Written for a write path that runs it for every profile: ASCII text (most of it) is split without Unicode
 * tables and without normalising.
 */
export function indexWords(texts: Iterable<string>): string[] {
  const words = new Set<string>();
  for (const text of texts) {
    const ascii = !NON_ASCII.test(text);
    for (const token of (ascii ? text : unaccented(text)).split(ascii ? ASCII_SEPARATORS : SEPARATORS)) {
      if (token === '' || token.length > MAX_WORD_LENGTH) continue;
      const lower = token.toLowerCase();
      words.add(lower);
      if (token.includes('_')) {
        for (const piece of token.split('_')) {
          if (piece === '') continue;
          words.add(piece.toLowerCase());
          if (piece !== piece.toLowerCase()) addCamelParts(piece, words);
        }
      } else if (lower !== token) addCamelParts(token, words);
      if (words.size >= MAX_WORDS) return [...words].slice(0, MAX_WORDS);
    }
  }
  return [...words];
}

/** The parts of a word with upper-case letters, when it has lower-case ones too and more than one part. */
function addCamelParts(word: string, words: Set<string>): void {
  if (!MIXED_CASE.test(word)) return;
  const parts = word.match(CAMEL_PART);
  if (parts && parts.length > 1) for (const part of parts) words.add(part.toLowerCase());
}

/**
 * A query's terms: every word must appear (in any order, anywhere in the profile's text); `word*` matches the
 * words starting with it. Null when the query has text but no word (punctuation only): it matches nothing.
 * Words beyond MAX_TERMS are left out.
 */
export function queryTerms(query: string): SearchTerm[] | null {
  const terms = new Map<string, SearchTerm>();
  for (const [, word, star] of unaccented(query).matchAll(QUERY_WORD)) {
    const lower = word.toLowerCase();
    if (lower.length > MAX_WORD_LENGTH) continue;
    const prefix = star === '*' && [...lower].length >= MIN_PREFIX;
    const key = `${lower}${prefix ? '*' : ''}`;
    if (!terms.has(key) && terms.size < MAX_TERMS) terms.set(key, { word: lower, prefix });
  }
  return terms.size === 0 ? null : [...terms.values()];
}

/**
 * The words the SQLite store adds for a profile's method and status (its kind has a table of its own), the status
 * as three digits and its prefixes of one and two (what a status filter may be: compileCriteria).
 */
export function facetWords(method: string, status: number): string[] {
  const code = String(status).padStart(3, '0');
  const statuses = code.length === 3 ? [1, 2, 3].map((n) => statusFacet(code.slice(0, n))) : [];
  return [methodFacet(method), ...statuses];
}

/** Method in upper case (ASCII letters), as the stores compare it. */
export function methodFacet(method: string): string {
  return `${FACET_MARK}m${method.replace(/[a-z]+/g, (s) => s.toUpperCase())}`;
}

/** A whole status code or a prefix of one (`4`, `40`, `404`). */
export function statusFacet(prefix: string): string {
  return `${FACET_MARK}s${prefix}`;
}

/** Whether text with these words matches every term, as the full-text index answers it: a word whole, a prefix any word starting with it. */
export function matchesWords(terms: readonly SearchTerm[], words: ReadonlySet<string>): boolean {
  return terms.every((term) => {
    if (!term.prefix) return words.has(term.word);
    for (const word of words) if (word.startsWith(term.word)) return true;
    return false;
  });
}
