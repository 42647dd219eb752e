import { ProfileArena } from './profile-arena.js';

const json = (n: number) => JSON.stringify({ n, text: `profile ${n} ${'é'.repeat(n % 7)}` });

describe('ProfileArena', () => {
  it('gives back each profile as written, its JSON and its words, across slabs', () => {
    const arena = new ProfileArena(1024);
    const regions = Array.from({ length: 40 }, (_, n) => arena.write([json(n).slice(0, 5), json(n).slice(5)], `w${n}`));
    regions.forEach((region, n) => {
      expect(region?.jsonText()).toBe(json(n));
      expect(Buffer.from(region!.json()).toString('utf8')).toBe(json(n));
      expect(region?.words()).toBe(`w${n}`);
    });
    expect(arena.allocatedSlabs).toBeGreaterThan(1);
  });

  it('reuses emptied slabs: a steady stream of profiles written and released allocates no new memory', () => {
    const arena = new ProfileArena(1024, 2);
    const waiting: ReturnType<ProfileArena['write']>[] = [];
    for (let n = 0; n < 2000; n++) {
      waiting.push(arena.write([json(n)], 'words'));
      // The store writes batches of ten.
      if (waiting.length === 10) for (const region of waiting.splice(0)) region?.release();
    }
    expect(arena.allocatedSlabs).toBeLessThanOrEqual(3);
    const last = arena.write([json(2001)], 'last');
    expect(last?.jsonText()).toBe(json(2001));
    expect(last?.words()).toBe('last');
  });

  it('never writes over a region still waiting, however many come and go after it', () => {
    const arena = new ProfileArena(512, 1);
    const old = arena.write([json(1)], 'kept');
    for (let n = 0; n < 500; n++) arena.write([json(n)], 'gone')?.release();
    expect(old?.jsonText()).toBe(json(1));
    expect(old?.words()).toBe('kept');
  });

  it('refuses what might not fit one slab, so that its caller keeps it as text', () => {
    const arena = new ProfileArena(300);
    expect(arena.write(['x'.repeat(101)], '')).toBeNull();
    expect(arena.write(['x'.repeat(90)], '')?.jsonText()).toBe('x'.repeat(90));
  });
});
