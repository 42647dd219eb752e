import type { TokenStore } from './token-store.js';
import { TokenRegistry } from './token-registry.js';
import { TokenReservations } from './token-reservations.js';

/** A shared store's reservations: `others` are held by another instance; can be made to fail or to wait. */
class FakeStore {
  readonly others = new Set<string>();
  readonly reserved = new Set<string>();
  readonly released: string[] = [];
  calls = 0;
  failing: Error | null = null;
  gate: Promise<void> | null = null;

  async reserveTokens(tokens: readonly string[]): Promise<string[]> {
    this.calls++;
    if (this.gate) await this.gate;
    if (this.failing) throw this.failing;
    const free = tokens.filter((t) => !this.others.has(t) && !this.reserved.has(t));
    for (const t of free) this.reserved.add(t);
    return free;
  }

  async releaseTokens(tokens: readonly string[]): Promise<void> {
    for (const t of tokens) this.reserved.delete(t);
    this.released.push(...tokens);
  }
}

describe('TokenReservations', () => {
  let store: FakeStore;
  let registry: TokenRegistry;
  let errors: unknown[];
  let clock: number;
  const pool = (options: { batchSize?: number; maxAgeMs?: number } = {}) =>
    new TokenReservations(store as unknown as TokenStore, registry, {
      batchSize: 8,
      onError: (e) => errors.push(e),
      now: () => clock,
      ...options,
    });

  beforeEach(() => {
    store = new FakeStore();
    registry = new TokenRegistry({ bits: 8, maxAttempts: 100_000 });
    errors = [];
    clock = 0;
  });

  it('sends only tokens the store reserved for it, never one another instance holds', async () => {
    for (let i = 0; i < 128; i++) store.others.add(i.toString(16).padStart(6, '0'));
    const p = pool();
    await p.start();
    const sent: string[] = [];
    for (let i = 0; i < 64; i++) {
      while (p.size === 0) await p.maintain();
      sent.push(p.next());
    }
    expect(p.unreserved).toBe(0);
    expect(new Set(sent).size).toBe(64);
    expect(sent.every((t) => store.reserved.has(t) && !store.others.has(t))).toBe(true);
    // The refused tokens are known as taken now: the registry does not draw them again.
    expect([...store.others].filter((t) => registry.has(t)).length).toBeGreaterThan(0);
    await p.close();
  });

  it('refills in the background when half a batch is left', async () => {
    const p = pool();
    await p.start();
    expect(store.calls).toBe(1);
    for (let i = 0; i < 4; i++) p.next();
    expect(store.calls).toBe(1);
    p.next();
    expect(store.calls).toBe(2);
    await p.maintain();
    expect(p.size).toBe(11);
    await p.close();
  });

  it('falls back to an unreserved token when the pool is empty, reports it once, and reserves bigger batches', async () => {
    store.failing = new Error('store down');
    const p = pool();
    await expect(p.start()).rejects.toThrow('store down');
    expect(registry.size).toBe(0);
    const tokens = [p.next(), p.next(), p.next()];
    expect(new Set(tokens).size).toBe(3);
    expect(p.unreserved).toBe(3);
    expect(errors.filter((e) => String(e).includes('unreserved'))).toHaveLength(1);
    store.failing = null;
    clock += 60_000;
    await p.maintain();
    expect(p.size).toBe(64);
    p.next();
    expect(p.unreserved).toBe(3);
    await p.close();
  });

  it('waits after a failed reservation before asking again (backoff)', async () => {
    store.failing = new Error('store down');
    const p = pool({ batchSize: 2 });
    await p.start().catch(() => undefined);
    p.next();
    p.next();
    expect(store.calls).toBe(1);
    clock += 1000;
    p.next();
    await p.maintain();
    expect(store.calls).toBe(2);
    await p.close();
  });

  it('gives back batches before they are too old, and every unused token on close', async () => {
    const p = pool({ maxAgeMs: 1000 });
    await p.start();
    const first = [...store.reserved];
    clock += 500;
    await p.maintain();
    expect(store.released.sort()).toEqual(first.sort());
    expect(p.size).toBe(8);
    const token = p.next();
    await p.close();
    expect(store.reserved).toEqual(new Set([token]));
    expect(p.size).toBe(0);
  });

  it('never sends a token older than maxAgeMs, even without maintenance', async () => {
    const p = pool({ maxAgeMs: 1000 });
    await p.start();
    clock += 1000;
    const token = p.next();
    expect(p.unreserved).toBe(1);
    expect(store.reserved.has(token)).toBe(false);
    await p.close();
  });

  it('gives back what a reservation in flight at close returns', async () => {
    let open!: () => void;
    store.gate = new Promise((resolve) => (open = resolve));
    const p = pool();
    const starting = p.start();
    const closing = p.close();
    open();
    await starting;
    await closing;
    expect(store.reserved.size).toBe(0);
    expect(store.released).toHaveLength(8);
  });
});
