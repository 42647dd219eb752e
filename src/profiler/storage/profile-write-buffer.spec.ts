import { jest } from '@jest/globals';
import type { ProfileRecord } from './profile-record.js';
import { ProfileWriteBuffer, UnwritableProfileError, type ProfileWriteBufferOptions } from './profile-write-buffer.js';
import { DuplicateTokenError, type ProfilerStorage } from './profiler-storage.js';

const record = (token: string): ProfileRecord => ({
  token,
  parent: null,
  ip: '127.0.0.1',
  method: 'GET',
  url: `http://localhost/${token}`,
  time: 0,
  statusCode: 200,
  kind: 'application',
  duration: 1.5,
  route: null,
  redirectedFrom: null,
  data: {},
});

/** A store that records each write, and fails while told to. */
class FakeStore {
  readonly writes: string[][] = [];
  readonly stored = new Set<string>();
  failures = 0;
  attempts = 0;
  batchLimit = Infinity;

  async write(profiles: readonly ProfileRecord[]): Promise<void> {
    this.attempts++;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('disk full');
    }
    const duplicates = profiles.filter((p) => this.stored.has(p.token)).map((p) => p.token);
    if (duplicates.length > 0) throw new DuplicateTokenError(duplicates);
    this.writes.push(profiles.map((p) => p.token));
    for (const p of profiles) this.stored.add(p.token);
  }
}

/** A store that can also write synchronously (SQLite): writeSync() goes where write() does. */
class SyncStore extends FakeStore {
  readonly writesSynchronously = true;
  /** Throws for a batch holding this token (the store refusing that profile). */
  refuse: { token: string; error: Error } | null = null;

  writeSync(profiles: readonly ProfileRecord[]): void {
    this.attempts++;
    if (this.refuse && profiles.some((p) => p.token === this.refuse!.token)) throw this.refuse.error;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('database is locked');
    }
    const duplicates = profiles.filter((p) => this.stored.has(p.token)).map((p) => p.token);
    if (duplicates.length > 0) throw new DuplicateTokenError(duplicates);
    this.writes.push(profiles.map((p) => p.token));
    for (const p of profiles) this.stored.add(p.token);
  }
}

describe('ProfileWriteBuffer', () => {
  let store: FakeStore;
  let errors: unknown[];
  const buffer = (options: Partial<ProfileWriteBufferOptions> = {}) =>
    new ProfileWriteBuffer(store as unknown as ProfilerStorage, {
      batchSize: 3,
      flushIntervalMs: 100,
      bufferLimit: 100,
      retryDelayMs: 1000,
      onError: (error) => errors.push(error),
      ...options,
    });

  beforeEach(() => {
    jest.useFakeTimers();
    store = new FakeStore();
    errors = [];
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('writes a batch as soon as batchSize profiles wait, the rest after flushIntervalMs', async () => {
    const b = buffer();
    for (const t of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) b.add(record(t));
    expect(store.writes).toEqual([]);
    await jest.advanceTimersByTimeAsync(0);
    expect(store.writes).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e', 'f'],
    ]);
    expect(b.pending).toBe(1);
    await jest.advanceTimersByTimeAsync(99);
    expect(store.writes).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(store.writes).toEqual([['a', 'b', 'c'], ['d', 'e', 'f'], ['g']]);
    expect(b.pending).toBe(0);
    expect(errors).toEqual([]);
  });

  it("cuts its batches to the store's batchLimit while the store asks for smaller ones", async () => {
    store.batchLimit = 2;
    const b = buffer();
    for (const t of ['a', 'b', 'c', 'd', 'e']) b.add(record(t));
    await b.flush();
    expect(store.writes).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    store.batchLimit = Infinity;
    for (const t of ['f', 'g', 'h', 'i']) b.add(record(t));
    await b.flush();
    expect(store.writes.slice(3)).toEqual([['f', 'g', 'h'], ['i']]);
  });

  it('writes at most flushIntervalMs after the first profile was added', async () => {
    const b = buffer({ batchSize: 100 });
    b.add(record('a'));
    await jest.advanceTimersByTimeAsync(60);
    b.add(record('b'));
    await jest.advanceTimersByTimeAsync(39);
    expect(store.writes).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(store.writes).toEqual([['a', 'b']]);
  });

  it('returns a profile while it waits, and not once written', async () => {
    const b = buffer();
    const a = record('a');
    b.add(a);
    expect(b.get('a')).toBe(a);
    expect(b.get('zz')).toBeUndefined();
    await jest.advanceTimersByTimeAsync(100);
    expect(store.writes).toEqual([['a']]);
    expect(b.get('a')).toBeUndefined();
  });

  it('flush() resolves once everything added before it is written, batch by batch', async () => {
    const b = buffer({ batchSize: 2 });
    for (const t of ['a', 'b', 'c', 'd', 'e']) b.add(record(t));
    await b.flush();
    expect(store.writes).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(b.pending).toBe(0);
    await b.flush();
    expect(store.writes).toHaveLength(3);
  });

  it('flushForeground() writes through the newest profile not added as background, in order, and leaves the rest to their batch', async () => {
    const b = buffer({ batchSize: 10 });
    b.add(record('a'), true);
    b.add(record('b'));
    b.add(record('c'), true);
    b.add(record('d'), true);
    await b.flushForeground();
    expect(store.writes).toEqual([['a', 'b', 'c', 'd']]);
    b.add(record('e'), true);
    b.add(record('f'), true);
    await b.flushForeground();
    expect(store.writes).toHaveLength(1);
    expect(b.pending).toBe(2);
    expect(b.get('e')?.token).toBe('e');
    await jest.advanceTimersByTimeAsync(100);
    expect(store.writes).toEqual([
      ['a', 'b', 'c', 'd'],
      ['e', 'f'],
    ]);
    expect(b.pending).toBe(0);
  });

  it('flushForeground() writes the background profiles before a foreground one, batch by batch', async () => {
    const b = buffer({ batchSize: 2 });
    for (const t of ['a', 'b', 'c']) b.add(record(t), true);
    b.add(record('d'));
    b.add(record('e'), true);
    await b.flushForeground();
    expect(store.writes).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(b.pending).toBe(1);
    expect(b.get('e')?.token).toBe('e');
  });

  it('flushForeground() waits for a write in flight that holds a foreground profile', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const write = store.write.bind(store);
    store.write = async (profiles) => {
      await gate;
      return write(profiles);
    };
    const b = buffer({ batchSize: 1 });
    b.add(record('a'));
    await jest.advanceTimersByTimeAsync(0);
    expect(b.pending).toBe(1);
    let done = false;
    void b.flushForeground().then(() => {
      done = true;
    });
    await jest.advanceTimersByTimeAsync(10);
    expect(done).toBe(false);
    release();
    await jest.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
    expect(store.writes).toEqual([['a']]);
  });

  it('keeps the order and loses nothing when the store fails, retrying with backoff', async () => {
    const b = buffer({ batchSize: 2, retryDelayMs: 1000 });
    store.failures = 2;
    for (const t of ['a', 'b', 'c', 'd', 'e']) b.add(record(t));
    await jest.advanceTimersByTimeAsync(0);
    expect(store.attempts).toBe(1);
    expect(b.pending).toBe(5);
    expect(b.get('a')).toEqual(record('a'));
    b.add(record('f'));
    await jest.advanceTimersByTimeAsync(999);
    expect(store.attempts).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(store.attempts).toBe(2);
    await jest.advanceTimersByTimeAsync(1999);
    expect(store.attempts).toBe(2);
    await jest.advanceTimersByTimeAsync(1);
    // The failed batch's profiles one at a time (one of them might have been bad), then full batches again.
    expect(store.writes).toEqual([['a'], ['b'], ['c', 'd'], ['e', 'f']]);
    expect(b.pending).toBe(0);
    expect(b.dropped).toBe(0);
    expect(errors).toEqual([new Error('disk full'), new Error('disk full')]);
  });

  it('flush() resolves when the write fails, the profiles staying queued', async () => {
    const b = buffer();
    store.failures = 1;
    b.add(record('a'));
    await b.flush();
    expect(store.writes).toEqual([]);
    expect(b.pending).toBe(1);
    expect(errors).toHaveLength(1);
    await b.flush();
    expect(store.writes).toEqual([['a']]);
  });

  it('releases what holds a waiting profile once it is written or dropped, never before, and never twice', async () => {
    const released: string[] = [];
    const releasing = (token: string): ProfileRecord =>
      Object.defineProperty(record(token), 'release', { value: () => released.push(token) });
    const b = buffer({ bufferLimit: 3, batchSize: 10 });
    store.failures = 1;
    for (const t of ['a', 'b', 'c', 'd']) b.add(releasing(t));
    expect(released).toEqual(['a']);
    await b.flush();
    expect(released).toEqual(['a']);
    await jest.advanceTimersByTimeAsync(1000);
    await b.flush();
    expect(store.writes).toEqual([['b'], ['c'], ['d']]);
    expect(released).toEqual(['a', 'b', 'c', 'd']);
  });

  it('drops the oldest profiles beyond bufferLimit and counts them', async () => {
    const b = buffer({ bufferLimit: 3, batchSize: 10 });
    store.failures = 1;
    for (const t of ['a', 'b', 'c', 'd', 'e']) b.add(record(t));
    expect(b.dropped).toBe(2);
    expect(b.pending).toBe(3);
    expect(b.get('a')).toBeUndefined();
    await b.flush();
    b.add(record('f'));
    expect(b.dropped).toBe(3);
    await b.flush();
    expect(store.writes).toEqual([['d'], ['e'], ['f']]);
  });

  it('splits a batch refused for duplicate tokens: writes the others, drops and counts the duplicates', async () => {
    store.stored.add('b');
    store.stored.add('d');
    const b = buffer({ batchSize: 4 });
    for (const t of ['a', 'b', 'c', 'd', 'e']) b.add(record(t));
    await b.flush();
    expect(store.writes).toEqual([['a', 'c', 'e']]);
    expect(b.dropped).toBe(2);
    expect(b.pending).toBe(0);
    expect(b.get('b')).toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(DuplicateTokenError);
  });

  it('close() writes everything, stops the timer and drops later profiles', async () => {
    const b = buffer({ batchSize: 100, flushIntervalMs: 60_000 });
    b.add(record('a'));
    b.add(record('b'));
    expect(jest.getTimerCount()).toBe(1);
    await b.close();
    expect(store.writes).toEqual([['a', 'b']]);
    expect(jest.getTimerCount()).toBe(0);
    b.add(record('c'));
    expect(b.dropped).toBe(1);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('close() reports the profiles it could not write', async () => {
    const b = buffer();
    store.failures = 1;
    b.add(record('a'));
    await b.close();
    expect(jest.getTimerCount()).toBe(0);
    expect(errors.map(String)).toEqual([
      'Error: disk full',
      'Error: 1 profile(s) could not be written before the profiler closed: they are lost.',
    ]);
    expect(b.dropped).toBe(1);
  });

  it('close(timeoutMs) retries a failing store until it answers, within the time given', async () => {
    const b = buffer({ retryDelayMs: 1000 });
    store.failures = 3;
    b.add(record('a'));
    b.add(record('b'));
    const closing = b.close(5000);
    await jest.advanceTimersByTimeAsync(5000);
    await expect(closing).resolves.toBe(0);
    expect(store.writes.flat().sort()).toEqual(['a', 'b']);
    expect(b.dropped).toBe(0);
  });

  it('close(timeoutMs) gives up at the deadline, even on a write that never returns, and counts what is lost', async () => {
    const b = buffer();
    const hanging = new Promise<void>(() => undefined);
    jest.spyOn(store, 'write').mockImplementation(() => hanging);
    b.add(record('a'));
    const closing = b.close(2000);
    await jest.advanceTimersByTimeAsync(2000);
    await expect(closing).resolves.toBe(1);
    expect(b.dropped).toBe(1);
    expect(String(errors.at(-1))).toBe(
      'Error: 1 profile(s) could not be written before the profiler closed: they are lost.',
    );
  });

  it('drops a profile the store refuses for itself (isProfileError), at once, and writes all the others', async () => {
    const bad = new Error('CHECK constraint failed');
    const write = store.write.bind(store);
    jest.spyOn(store, 'write').mockImplementation(async (profiles) => {
      if (profiles.some((p) => p.token === 'c')) throw bad;
      return write(profiles);
    });
    const b = buffer({ batchSize: 3, retryDelayMs: 1000, isProfileError: (error) => error === bad });
    for (const t of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) b.add(record(t));
    await b.flush();
    expect(store.writes.flat().sort()).toEqual(['a', 'b', 'd', 'e', 'f', 'g']);
    expect(b.pending).toBe(0);
    expect(b.dropped).toBe(1);
    expect(b.get('c')).toBeUndefined();
    const unwritable = errors.find((e) => e instanceof UnwritableProfileError) as UnwritableProfileError;
    expect(unwritable.token).toBe('c');
    expect(unwritable.cause).toBe(bad);
  });

  it('counts a profile as written when its retry finds it stored by a write whose acknowledgement was lost', async () => {
    const write = store.write.bind(store);
    let loseAck = true;
    jest.spyOn(store, 'write').mockImplementation(async (profiles) => {
      await write(profiles);
      if (loseAck) {
        loseAck = false;
        throw new Error('Connection terminated unexpectedly');
      }
    });
    const b = buffer({ batchSize: 3 });
    for (const t of ['a', 'b', 'c', 'd']) b.add(record(t));
    await b.flush();
    await b.flush();
    expect(store.writes.flat().sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(b.pending).toBe(0);
    expect(b.dropped).toBe(0);
    expect(errors.map(String)).toEqual(['Error: Connection terminated unexpectedly']);
  });

  it('never drops a profile for a failure of the store, even one that fails and recovers by turns', async () => {
    const b = buffer({ batchSize: 3, retryDelayMs: 1000, isProfileError: () => false });
    // Every other write fails.
    const write = store.write.bind(store);
    let calls = 0;
    jest.spyOn(store, 'write').mockImplementation(async (profiles) => {
      if (calls++ % 2 === 0) throw new Error('database is locked');
      return write(profiles);
    });
    for (const t of ['a', 'b', 'c', 'd']) b.add(record(t));
    for (let i = 0; i < 10; i++) {
      await b.flush();
      await jest.advanceTimersByTimeAsync(30_000);
    }
    expect(store.writes.flat()).toEqual(['a', 'b', 'c', 'd']);
    expect(b.dropped).toBe(0);
    expect(b.pending).toBe(0);
  });

  it('never drops a profile while the whole store fails', async () => {
    const b = buffer({ batchSize: 3, retryDelayMs: 1000 });
    store.failures = 1000;
    for (const t of ['a', 'b', 'c', 'd']) b.add(record(t));
    for (let i = 0; i < 6; i++) {
      await b.flush();
      await jest.advanceTimersByTimeAsync(30_000);
    }
    expect(b.dropped).toBe(0);
    expect(b.pending).toBe(4);
    store.failures = 0;
    await b.flush();
    await b.flush();
    expect(store.writes.flat()).toEqual(['a', 'b', 'c', 'd']);
    expect(b.dropped).toBe(0);
  });

  it('never throws into the caller, even when the store or the reporter throws synchronously', async () => {
    const throwing = {
      batchLimit: Infinity,
      write: () => {
        throw new Error('boom');
      },
    } as unknown as ProfilerStorage;
    const b = new ProfileWriteBuffer(throwing, {
      batchSize: 1,
      flushIntervalMs: 10,
      bufferLimit: 10,
      onError: () => {
        throw new Error('reporter broken');
      },
    });
    expect(() => b.add(record('a'))).not.toThrow();
    await expect(b.flush()).resolves.toBeUndefined();
    expect(b.pending).toBe(1);
  });

  describe('closeNow(), for a crashing process', () => {
    let sync: SyncStore;
    const syncBuffer = (options: Partial<ProfileWriteBufferOptions> = {}) => {
      sync = new SyncStore();
      store = sync;
      return buffer(options);
    };

    it('does nothing and returns null when the store cannot write synchronously', async () => {
      const b = buffer();
      b.add(record('a'));
      expect(b.closeNow()).toBeNull();
      expect(b.pending).toBe(1);
      await b.flush();
      expect(store.writes).toEqual([['a']]);
    });

    it('writes everything waiting before it returns, in batches and in order, then drops later profiles', async () => {
      const b = syncBuffer({ batchSize: 3, flushIntervalMs: 10_000 });
      for (const t of ['a', 'b', 'c', 'd', 'e']) b.add(record(t));
      await jest.advanceTimersByTimeAsync(0);
      store.writes.length = 0;
      for (const t of ['f', 'g', 'h', 'i']) b.add(record(t));
      expect(b.closeNow()).toBe(0);
      expect(store.writes).toEqual([
        ['d', 'e', 'f'],
        ['g', 'h', 'i'],
      ]);
      expect(b.pending).toBe(0);
      expect(b.get('g')).toBeUndefined();
      b.add(record('late'));
      await jest.advanceTimersByTimeAsync(20_000);
      expect(store.writes.flat()).not.toContain('late');
      expect(b.dropped).toBe(1);
      expect(errors).toEqual([]);
    });

    it('writes the batch whose asynchronous write is under way, and counts it written when that write committed after all', async () => {
      const b = syncBuffer({ batchSize: 2, flushIntervalMs: 10_000 });
      let finish: () => void = () => undefined;
      // The asynchronous write stalls (the SQLite store encoding its batch between turns of the event loop).
      jest.spyOn(sync, 'write').mockImplementation(() => new Promise<void>((resolve) => (finish = resolve)));
      for (const t of ['a', 'b', 'c']) b.add(record(t));
      await jest.advanceTimersByTimeAsync(0);
      expect(b.pending).toBe(3);
      expect(b.closeNow()).toBe(0);
      expect(sync.writes).toEqual([['a', 'b'], ['c']]);
      finish();

      // The write under way committed just before the crash; its answer had not been seen.
      const c = syncBuffer({ batchSize: 2, flushIntervalMs: 10_000 });
      jest.spyOn(sync, 'write').mockImplementation(() => new Promise<void>(() => undefined));
      for (const t of ['x', 'y', 'z']) c.add(record(t));
      await jest.advanceTimersByTimeAsync(0);
      sync.stored.add('x').add('y');
      expect(c.closeNow()).toBe(0);
      expect(sync.writes).toEqual([['z']]);
      expect(c.dropped).toBe(0);
    });

    it('drops a profile the store refuses for itself and writes the others, one at a time', () => {
      const bad = new Error('CHECK constraint failed');
      const b = syncBuffer({ batchSize: 3, flushIntervalMs: 10_000, isProfileError: (error) => error === bad });
      sync.refuse = { token: 'b', error: bad };
      for (const t of ['a', 'b', 'c', 'd']) b.add(record(t));
      expect(b.closeNow()).toBe(0);
      expect(sync.writes.flat()).toEqual(['a', 'c', 'd']);
      expect(b.dropped).toBe(1);
      expect((errors[0] as UnwritableProfileError).token).toBe('b');
    });

    it('stops at the first failure of the store, and counts and reports what is lost', () => {
      const b = syncBuffer({ batchSize: 2, flushIntervalMs: 10_000 });
      for (const t of ['a', 'b', 'c', 'd', 'e']) b.add(record(t));
      const write = sync.writeSync.bind(sync);
      jest.spyOn(sync, 'writeSync').mockImplementation((profiles) => {
        if (sync.writes.length === 1) throw new Error('database is locked');
        write(profiles);
      });
      expect(b.closeNow()).toBe(3);
      expect(sync.writes).toEqual([['a', 'b']]);
      expect(b.pending).toBe(0);
      expect(b.dropped).toBe(3);
      expect(errors.map(String)).toEqual([
        'Error: database is locked',
        'Error: 3 profile(s) could not be written before the profiler closed: they are lost.',
      ]);
    });

    it('counts exactly what is lost when the store fails while a batch is written one at a time', () => {
      const bad = new Error('CHECK constraint failed');
      const b = syncBuffer({ batchSize: 4, flushIntervalMs: 10_000, isProfileError: (error) => error === bad });
      for (const t of ['a', 'b', 'c', 'd', 'e', 'f']) b.add(record(t));
      const write = sync.writeSync.bind(sync);
      let calls = 0;
      jest.spyOn(sync, 'writeSync').mockImplementation((profiles) => {
        calls++;
        if (calls === 1) throw bad; // the batch a–d: one of them is bad, each alone then
        if (calls === 4) throw new Error('database is locked'); // while writing c alone
        write(profiles);
      });
      expect(b.closeNow()).toBe(4);
      expect(sync.writes).toEqual([['a'], ['b']]);
      expect(b.dropped).toBe(4);
    });
  });
});
