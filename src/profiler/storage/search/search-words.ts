/** The words of full-text search, stored as they are, one definition so that both stores find the same profiles. */

/** Accents are removed before. */
const SEPARATORS = /[^\p{L}\p{N}_]+/u;
const ASCII_SEPARATORS = /[^A-Za-z0-9_]+/;
const NON_ASCII = /[\u0080-\uffff]/;
const QUERY_WORD = /([\p{L}\p{N}_]+)(\*?)/gu;
/** `HTTPClient` → HTTP, Client. Digits are not parts (`utf8`, `sha256` stay whole). */
const CAMEL_PART = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+/gu;
const MIXED_CASE = /^(?=.*\p{Lu})(?=.*\p{Ll})/u;
/** Longer runs are blobs (encoded data, hashes longer than a trace id): nobody types them. */
const MAX_WORD_LENGTH = 64;
/** A log of thousands of distinct ids adds little to finding the request. */
export const MAX_WORDS = 4000;
export const MAX_TERMS = 16;
/** Shorter prefixes would read most of the index. */
const MIN_PREFIX = 2;

/** Marks the words added for method and status; private use, so a query's words never contain one. */
export const FACET_MARK = '\uE000';

export interface SearchTerm {
  word: string;
  prefix: boolean;
}

/** The case is kept, for the identifiers' parts. */
function unaccented(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '');
}

/** Words and identifiers' parts (`cart_lines` → cart, lines). It runs per profile: ASCII skips the Unicode tables. */
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

function addCamelParts(word: string, words: Set<string>): void {
  if (!MIXED_CASE.test(word)) return;
  const parts = word.match(CAMEL_PART);
  if (parts && parts.length > 1) for (const part of parts) words.add(part.toLowerCase());
}

/** Every term must match; `word*` is a prefix. Null for a query without words: it matches nothing. */
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

/** The SQLite store's words for method and status, the status with its prefixes (what a status filter may be). */
export function facetWords(method: string, status: number): string[] {
  const code = String(status).padStart(3, '0');
  const statuses = code.length === 3 ? [1, 2, 3].map((n) => statusFacet(code.slice(0, n))) : [];
  return [methodFacet(method), ...statuses];
}

export function methodFacet(method: string): string {
  return `${FACET_MARK}m${method.replace(/[a-z]+/g, (s) => s.toUpperCase())}`;
}

export function statusFacet(prefix: string): string {
  return `${FACET_MARK}s${prefix}`;
}

/** Whether text with these words matches every term, as the full-text index answers it. */
export function matchesWords(terms: readonly SearchTerm[], words: ReadonlySet<string>): boolean {
  return terms.every((term) => {
    if (!term.prefix) return words.has(term.word);
    for (const word of words) if (word.startsWith(term.word)) return true;
    return false;
  });
}
