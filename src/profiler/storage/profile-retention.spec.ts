import { jest } from '@jest/globals';
import type { ProfileRecord, RetentionPolicy } from './profile-record.js';
import { storedCount } from './testing/profiler-storage.contract.js';
import { ProfileRetention } from './profile-retention.js';
import type { ProfilerStorage } from './profiler-storage.js';
import { SqliteProfilerStorage } from './sqlite/sqlite-profiler.storage.js';
import { TokenRegistry } from '../tokens/token-registry.js';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const record = (token: string, time: number): ProfileRecord => ({
  token,
  parent: null,
  ip: '127.0.0.1',
  method: 'GET',
  url: 'http://localhost/',
  time,
  statusCode: 200,
  kind: 'application',
  duration: 1.5,
  route: null,
  redirectedFrom: null,
  data: {},
});

describe('ProfileRetention', () => {
  describe('with the SQLite store', () => {
    let storage: SqliteProfilerStorage;
    let tokens: TokenRegistry;

    beforeEach(async () => {
      storage = new SqliteProfilerStorage({ file: ':memory:' });
      await storage.open();
      tokens = new TokenRegistry();
      const profiles = Array.from({ length: 6 }, (_, i) => record(`00000${i}`, T0 + i * 1000));
      await storage.write(profiles);
      await tokens.seed(storage.tokens.allTokens());
    });

    afterEach(async () => {
      await storage.close();
    });

    it('removes the oldest beyond maxProfiles and releases their tokens', async () => {
      const retention = new ProfileRetention(storage, tokens, { maxProfiles: 4, maxAgeMs: 0, intervalMs: 0 });
      expect(await retention.run()).toEqual(['000000', '000001']);
      expect(await storedCount(storage)).toBe(4);
      expect(tokens.has('000000')).toBe(false);
      expect(tokens.has('000002')).toBe(true);
      expect(tokens.size).toBe(4);
    });

    it('releases the tokens of a large prune a slice at a time, the event loop free between', async () => {
      const gone = Array.from({ length: 25_000 }, (_, i) => (0x100000 + i).toString(16));
      const registry = new TokenRegistry();
      for (const token of gone) registry.mark(token);
      const store = { prune: async () => gone } as unknown as ProfilerStorage;
      const running = new ProfileRetention(store, registry, { maxProfiles: 1, maxAgeMs: 0, intervalMs: 0 }).run();
      await Promise.resolve();
      let seenBetween = -1;
      setImmediate(() => (seenBetween = registry.size));
      expect(await running).toBe(gone);
      expect(registry.size).toBe(0);
      expect(seenBetween).toBeGreaterThan(0);
      expect(seenBetween).toBeLessThan(gone.length);
    });

    it('removes profiles older than maxAgeMs', async () => {
      const retention = new ProfileRetention(storage, tokens, {
        maxProfiles: 0,
        maxAgeMs: 2000,
        intervalMs: 0,
        now: () => T0 + 5000,
      });
      expect(await retention.run()).toEqual(['000000', '000001', '000002']);
      expect(tokens.size).toBe(3);
    });
  });

  describe('scheduling', () => {
    /** A store whose prune is held until the test releases it. */
    class SlowStore {
      calls: RetentionPolicy[] = [];
      private release: Array<(tokens: string[]) => void> = [];
      failWith: Error | null = null;

      prune(policy: RetentionPolicy): Promise<string[]> {
        this.calls.push(policy);
        if (this.failWith) return Promise.reject(this.failWith);
        return new Promise((resolve) => this.release.push(resolve));
      }

      finish(tokens: string[] = []): void {
        this.release.shift()?.(tokens);
      }
    }

    let store: SlowStore;
    let errors: unknown[];
    const retention = (options: Partial<ConstructorParameters<typeof ProfileRetention>[2]> = {}) =>
      new ProfileRetention(store as unknown as ProfilerStorage, new TokenRegistry(), {
        maxProfiles: 10,
        maxAgeMs: 60_000,
        intervalMs: 1000,
        now: () => 5_000_000,
        onError: (error) => errors.push(error),
        ...options,
      });

    beforeEach(() => {
      jest.useFakeTimers();
      store = new SlowStore();
      errors = [];
    });

    afterEach(() => {
      jest.useRealTimers();
    });

    it('runs at start and then every intervalMs, never two at once', async () => {
      const r = retention();
      r.start();
      expect(store.calls).toEqual([{ maxProfiles: 10, maxAgeMs: 60_000, now: 5_000_000 }]);
      await jest.advanceTimersByTimeAsync(2500);
      expect(store.calls).toHaveLength(1);
      store.finish();
      await jest.advanceTimersByTimeAsync(500);
      expect(store.calls).toHaveLength(2);
      store.finish();
      await jest.advanceTimersByTimeAsync(1000);
      expect(store.calls).toHaveLength(3);
      r.stop();
      store.finish();
      await jest.advanceTimersByTimeAsync(10_000);
      expect(store.calls).toHaveLength(3);
      expect(jest.getTimerCount()).toBe(0);
    });

    it('gives a run asked for during another that one result', async () => {
      const r = retention();
      const first = r.run();
      const second = r.run();
      store.finish(['abcdef']);
      expect(await first).toEqual(['abcdef']);
      expect(await second).toEqual(['abcdef']);
      expect(store.calls).toHaveLength(1);
    });

    it('reports the failures of periodic runs; run() rejects with them', async () => {
      store.failWith = new Error('locked');
      const r = retention();
      r.start();
      await jest.advanceTimersByTimeAsync(0);
      expect(errors).toEqual([new Error('locked')]);
      await expect(r.run()).rejects.toThrow('locked');
      r.stop();
    });

    it('does nothing without limits', async () => {
      const r = retention({ maxProfiles: 0, maxAgeMs: 0 });
      expect(await r.run()).toEqual([]);
      expect(store.calls).toEqual([]);
    });
  });
});
