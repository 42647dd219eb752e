import { randomHex } from './random-hex.js';

describe('randomHex', () => {
  it('gives the bytes asked as lower-case hex, never the same twice across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = randomHex(24);
      expect(id).toMatch(/^[0-9a-f]{48}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
    expect(randomHex(8)).toMatch(/^[0-9a-f]{16}$/);
  });
});
