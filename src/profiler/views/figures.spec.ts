import { matchCount } from './figures.js';

describe('matchCount', () => {
  it('says a count as exact below the cap, 10,000+ above it, and n+ when the store stopped counting early', () => {
    expect(matchCount(0)).toBe('0');
    expect(matchCount(1234)).toBe('1,234');
    expect(matchCount(10_000)).toBe('10,000');
    expect(matchCount(10_001)).toBe('10,000+');
    expect(matchCount(10_001, true)).toBe('10,000+');
    expect(matchCount(812, true)).toBe('812+');
  });
});
