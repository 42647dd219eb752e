import { queryTerms } from './search-words.js';
import { matchesWords, queryKey, termsOfKey, trustedFrom } from './tracked-queries.js';

const HOUR = 3_600_000;

describe('tracked queries', () => {
  it('key the same terms in any order once, and give the terms back', () => {
    expect(queryKey(queryTerms('stock Insufficient stock')!)).toBe('insufficient stock');
    expect(queryKey(queryTerms('insufficient STOCK')!)).toBe('insufficient stock');
    expect(queryKey(queryTerms('cart* lines')!)).toBe('cart* lines');
    expect(termsOfKey('cart* lines')).toEqual([
      { word: 'cart', prefix: true },
      { word: 'lines', prefix: false },
    ]);
  });

  it('match a profile’s words as the index does: every term, a prefix any word starting with it', () => {
    const words = new Set(['delete', 'from', 'cart_lines', 'cart', 'lines']);
    expect(matchesWords(termsOfKey('cart lines'), words)).toBe(true);
    expect(matchesWords(termsOfKey('cart_l*'), words)).toBe(true);
    expect(matchesWords(termsOfKey('cart_l'), words)).toBe(false);
    expect(matchesWords(termsOfKey('delete stock'), words)).toBe(false);
  });

  it('trust the hours after the one pruning reached', () => {
    expect(trustedFrom(-1, HOUR)).toBe(0);
    expect(trustedFrom(0, HOUR)).toBe(HOUR);
    expect(trustedFrom(5 * HOUR - 1, HOUR)).toBe(5 * HOUR);
    expect(trustedFrom(5 * HOUR, HOUR)).toBe(6 * HOUR);
  });
});
