import { facetWords, indexWords, matchesWords, MAX_TERMS, queryTerms } from './search-words.js';

describe('indexWords', () => {
  it('keeps each word once, in lower case, accents removed', () => {
    expect(indexWords(['Insufficient stock for "Café crème"', 'insufficient STOCK'])).toEqual([
      'insufficient',
      'stock',
      'for',
      'cafe',
      'creme',
    ]);
  });

  it('adds the parts of snake_case and CamelCase identifiers', () => {
    expect(indexWords(['delete from cart_lines'])).toEqual(['delete', 'from', 'cart_lines', 'cart', 'lines']);
    expect(indexWords(['CartQuantityException'])).toEqual(['cartquantityexception', 'cart', 'quantity', 'exception']);
    expect(indexWords(['HTTPClient v2 sha256'])).toEqual(['httpclient', 'http', 'client', 'v2', 'sha256']);
  });

  it('leaves out runs longer than 64 characters, and keeps a trace id', () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    expect(indexWords([`${'a'.repeat(65)} ${traceId}`])).toEqual([traceId]);
  });
});

describe('queryTerms', () => {
  it('gives every word as a term, `*` making a prefix', () => {
    expect(queryTerms('Delete FROM cart_lines')).toEqual([
      { word: 'delete', prefix: false },
      { word: 'from', prefix: false },
      { word: 'cart_lines', prefix: false },
    ]);
    expect(queryTerms('CartQuant* é')).toEqual([
      { word: 'cartquant', prefix: true },
      { word: 'e', prefix: false },
    ]);
  });

  it('does not make a one-character prefix, and keeps each term once', () => {
    expect(queryTerms('c* stock stock')).toEqual([
      { word: 'c', prefix: false },
      { word: 'stock', prefix: false },
    ]);
  });

  it('is null for punctuation only, and keeps the first MAX_TERMS words', () => {
    expect(queryTerms('%%% "" ...')).toBeNull();
    const many = Array.from({ length: MAX_TERMS + 4 }, (_, i) => `w${i}`).join(' ');
    expect(queryTerms(many)).toHaveLength(MAX_TERMS);
  });
});

describe('facetWords', () => {
  it('names the method and the status with its prefixes, marked apart from any word', () => {
    expect(facetWords('get', 404)).toEqual(['\uE000mGET', '\uE000s4', '\uE000s40', '\uE000s404']);
    expect(facetWords('POST', 0)).toEqual(['\uE000mPOST', '\uE000s0', '\uE000s00', '\uE000s000']);
    // A query cannot name one: the mark is no word character.
    expect(queryTerms(facetWords('GET', 200).join(' '))?.map((t) => t.word)).toEqual(['mget', 's2', 's20', 's200']);
  });
});

describe('matchesWords', () => {
  it('matches words as the index does: every term, a prefix any word starting with it', () => {
    const words = new Set(['delete', 'from', 'cart_lines', 'cart', 'lines']);
    expect(matchesWords(queryTerms('cart lines')!, words)).toBe(true);
    expect(matchesWords(queryTerms('cart_l*')!, words)).toBe(true);
    expect(matchesWords(queryTerms('cart_l')!, words)).toBe(false);
    expect(matchesWords(queryTerms('delete stock')!, words)).toBe(false);
  });
});
