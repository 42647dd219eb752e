import { TokenRegistry } from './token-registry.js';

describe('TokenRegistry', () => {
  it('draws tokens of 6 lowercase hexadecimal digits', () => {
    const registry = new TokenRegistry();
    for (let i = 0; i < 1000; i++) expect(registry.next()).toMatch(/^[0-9a-f]{6}$/);
    expect(registry.size).toBe(1000);
  });

  it('never draws the same token twice (100,000 tokens)', () => {
    const registry = new TokenRegistry();
    const tokens = new Set<string>();
    for (let i = 0; i < 100_000; i++) tokens.add(registry.next());
    expect(tokens.size).toBe(100_000);
    expect(registry.size).toBe(100_000);
  });

  it('never draws a token of the store it was seeded with', async () => {
    const registry = new TokenRegistry({ bits: 8, maxAttempts: 100_000 });
    const stored = Array.from({ length: 250 }, (_, i) => i.toString(16).padStart(6, '0'));
    async function* allTokens() {
      yield* stored;
    }
    await registry.seed(allTokens());
    expect(registry.size).toBe(250);
    const drawn = Array.from({ length: 6 }, () => registry.next()).sort();
    expect(drawn).toEqual(['0000fa', '0000fb', '0000fc', '0000fd', '0000fe', '0000ff']);
  });

  it('throws a clear error when the store is full', () => {
    const registry = new TokenRegistry({ bits: 4, maxAttempts: 100_000 });
    const all = Array.from({ length: 16 }, () => registry.next()).sort();
    expect(all).toEqual(Array.from({ length: 16 }, (_, i) => i.toString(16).padStart(6, '0')));
    expect(() => registry.next()).toThrow(
      /The profile store is full: 100000 random tokens in a row were taken \(16 of 16 in use\)\. Lower the retention/,
    );
  });

  it('gives up after 64 taken tokens in a row by default', async () => {
    const registry = new TokenRegistry({ bits: 3 });
    await registry.seed(Array.from({ length: 8 }, (_, i) => `00000${i}`));
    expect(() => registry.next()).toThrow('64 random tokens in a row were taken');
  });

  it('draws released tokens again', async () => {
    const registry = new TokenRegistry({ bits: 3, maxAttempts: 100_000 });
    await registry.seed(Array.from({ length: 8 }, (_, i) => `00000${i}`));
    registry.release(['000005', '000002', 'nonsense', '000002']);
    expect(registry.size).toBe(6);
    expect(registry.has('000005')).toBe(false);
    expect([registry.next(), registry.next()].sort()).toEqual(['000002', '000005']);
    expect(registry.has('000005')).toBe(true);
    registry.releaseAll();
    expect(registry.size).toBe(0);
  });

  it('ignores what is not a token when seeding or marking', async () => {
    const registry = new TokenRegistry();
    await registry.seed(['abcdef', 'ABCDEF', 'abc', 'abcdefa', '00000g', 'abcdef']);
    expect(registry.size).toBe(1);
    expect(registry.has('abcdef')).toBe(true);
    expect(registry.mark('abcdef')).toBe(false);
    expect(registry.mark('123456')).toBe(true);
  });

  it('refuses a token space it cannot hold', () => {
    expect(() => new TokenRegistry({ bits: 25 })).toThrow(RangeError);
    expect(() => new TokenRegistry({ bits: 2 })).toThrow(RangeError);
  });
});
