import { jest } from '@jest/globals';
import type { TokenStore, TokensSince } from './token-store.js';
import { TokenPoller } from './token-poller.js';
import { TokenRegistry } from './token-registry.js';

/** A store of written tokens in write order; cursors are positions. Can be made to fail. */
class FakeStore {
  readonly written: string[] = [];
  calls: (string | null)[] = [];
  failing: Error | null = null;

  async tokensSince(cursor: string | null, limit = 5000): Promise<TokensSince> {
    this.calls.push(cursor);
    if (this.failing) throw this.failing;
    const from = cursor === null ? 0 : Number(cursor);
    const tokens = this.written.slice(from, from + limit);
    return { tokens, cursor: tokens.length > 0 ? String(from + tokens.length) : cursor };
  }
}

const token = (i: number) => i.toString(16).padStart(6, '0');

describe('TokenPoller', () => {
  let store: FakeStore;
  let registry: TokenRegistry;
  let errors: unknown[];
  const poller = (options: { intervalMs?: number; pageSize?: number } = {}) =>
    new TokenPoller(store as unknown as TokenStore, registry, {
      intervalMs: 0,
      onError: (e) => errors.push(e),
      ...options,
    });

  beforeEach(() => {
    store = new FakeStore();
    registry = new TokenRegistry();
    errors = [];
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('seeds every stored token across pages, then marks only what was written since', async () => {
    store.written.push(...Array.from({ length: 25_001 }, (_, i) => token(i)));
    const p = poller({ pageSize: 100 });
    expect(await p.seed()).toBe(25_001);
    expect(registry.size).toBe(25_001);
    expect(p.position).toBe('25001');
    expect(await p.run()).toBe(0);
    store.written.push('abcdef', '123456');
    expect(await p.run()).toBe(2);
    expect(registry.has('abcdef') && registry.has('123456')).toBe(true);
    expect(p.position).toBe('25003');
  });

  it('reads a bounded number of pages per poll and goes on at the next', async () => {
    const p = poller({ pageSize: 10 });
    await p.seed();
    store.written.push(...Array.from({ length: 250 }, (_, i) => token(i)));
    expect(await p.run()).toBe(200);
    expect(await p.run()).toBe(50);
    expect(registry.size).toBe(250);
  });

  it('polls every interval with an unref timer, never two polls at once, and stops', async () => {
    jest.useFakeTimers();
    const unref = jest.spyOn(globalThis, 'setInterval');
    const p = poller({ intervalMs: 3000 });
    p.start();
    expect((unref.mock.results[0].value as NodeJS.Timeout).hasRef()).toBe(false);
    unref.mockRestore();
    store.written.push('00000a');
    await jest.advanceTimersByTimeAsync(2999);
    expect(registry.has('00000a')).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(registry.has('00000a')).toBe(true);
    const same = [p.run(), p.run()];
    expect(same[0]).toBe(same[1]);
    await Promise.all(same);
    p.stop();
    const calls = store.calls.length;
    store.written.push('00000b');
    await jest.advanceTimersByTimeAsync(30_000);
    expect(store.calls.length).toBe(calls);
    expect(registry.has('00000b')).toBe(false);
  });

  it('reports a failed poll without throwing, and the next one retries from the same cursor', async () => {
    jest.useFakeTimers();
    const p = poller({ intervalMs: 1000 });
    store.written.push('000001');
    await p.seed();
    store.written.push('000002');
    store.failing = new Error('connection lost');
    p.start();
    await jest.advanceTimersByTimeAsync(1000);
    expect(errors).toEqual([store.failing]);
    expect(registry.has('000002')).toBe(false);
    store.failing = null;
    await jest.advanceTimersByTimeAsync(1000);
    expect(registry.has('000002')).toBe(true);
    expect(store.calls.slice(-2)).toEqual(['1', '1']);
    p.stop();
  });

  it('survives a reporter that throws', async () => {
    jest.useFakeTimers();
    const p = new TokenPoller(store as unknown as TokenStore, registry, {
      intervalMs: 10,
      onError: () => {
        throw new Error('reporter down');
      },
    });
    store.failing = new Error('down');
    p.start();
    await jest.advanceTimersByTimeAsync(50);
    p.stop();
    expect(store.calls.length).toBe(5);
  });
});
