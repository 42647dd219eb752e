import Database from 'better-sqlite3';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ProfilerService } from '../src/profiler/profiler.service.js';
import { ProfilerStorage } from '../src/profiler/storage/profiler-storage.js';
import { createTestApp } from './support/create-test-app.js';
import { settle } from './support/profiler.js';
import { searchPageStats, storeConnection, storedTokenCounts, storeFile, TmpfsDisk } from './support/store-faults.js';

const TOKEN = /^[0-9a-f]{6}$/;

/**
 * The SQLite profile store failing for real while requests come in: locked by another connection, its disk full,
 * read-only. Requests must keep their 200 and their token; the profiles wait (the search page says how many),
 * are written once the store is back (read back from the file itself, each exactly once), and what a small
 * buffer could not keep is dropped oldest first and counted on the search page.
 */
describe('Profiler: the SQLite store failing (e2e)', () => {
  let dir: string;
  let app: NestExpressApplication | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'shopkernel-faults-'));
  });

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (name: string, env: Record<string, string> = {}, storeDir = dir) => {
    app = await createTestApp({
      env: { PROFILER_DSN: `sqlite:${join(storeDir, `${name}.sqlite`)}`, PROFILER_FLUSH_INTERVAL_MS: '20', ...env },
    });
    return app;
  };

  /** `n` requests, one after the other; every one must be a 200 with a token. */
  const requests = async (target: NestExpressApplication, n: number, tag: string): Promise<string[]> => {
    const tokens: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await request(target.getHttpServer()).get(`/?${tag}=${i}`);
      expect(res.status).toBe(200);
      expect(res.headers['x-debug-token']).toMatch(TOKEN);
      tokens.push(res.headers['x-debug-token']);
    }
    await settle();
    return tokens;
  };

  /** Waits until the buffer is empty (the background retries got through), at most `ms`. */
  const drained = async (target: NestExpressApplication, ms = 10_000) => {
    const profiler = target.get(ProfilerService);
    const until = Date.now() + ms;
    while ((await profiler.stats()).pending > 0 && Date.now() < until) {
      await profiler.flush();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return profiler.stats();
  };

  const expectStoredOnce = (file: string, tokens: string[]) => {
    expect([...storedTokenCounts(file, tokens)].filter(([, n]) => n !== 1)).toEqual([]);
  };

  it('locked by another connection (BEGIN EXCLUSIVE): requests answer, profiles wait, then are all written once', async () => {
    const target = await start('locked');
    const file = storeFile(target);
    const before = await requests(target, 3, 'before');
    await target.get(ProfilerService).flush();

    // better-sqlite3 is synchronous: a transaction waiting out busy_timeout for the lock (250 ms) would hold the
    // event loop, and every request with it, at every retry. The time each transaction of the store takes:
    const db = storeConnection(target);
    const transaction = db.transaction.bind(db);
    let longest = 0;
    let attempts = 0;
    db.transaction = ((fn: (...args: unknown[]) => unknown) => {
      const run = transaction(fn);
      return Object.assign((...args: unknown[]) => {
        const started = performance.now();
        attempts++;
        try {
          return run(...args);
        } finally {
          longest = Math.max(longest, performance.now() - started);
        }
      }, run);
    }) as typeof db.transaction;

    const locker = new Database(file);
    locker.exec('BEGIN EXCLUSIVE');
    let during: string[];
    try {
      during = await requests(target, 30, 'locked');
      await new Promise((resolve) => setTimeout(resolve, 300)); // several flush intervals: writes tried and failed
      const page = await searchPageStats(target);
      expect(page.stats).toContain('30 waiting to be written');
      expect(page.stats).not.toContain('dropped');
      // The profiles open from the buffer meanwhile.
      await request(target.getHttpServer()).get(`/_profiler/${during[0]}`).expect(200);
      // Not a speed check: a failed attempt must not have waited for the lock (it fails at once, SQLITE_BUSY).
      expect(attempts).toBeGreaterThan(0);
      expect(longest).toBeLessThan(200);
    } finally {
      locker.exec('COMMIT');
      locker.close();
    }

    const stats = await drained(target);
    expect(stats).toMatchObject({ pending: 0, dropped: 0 });
    expectStoredOnce(file, [...before, ...during]);
    const storage = target.get(ProfilerStorage);
    for (const token of during) expect((await storage.read(token))?.token).toBe(token);
    expect((await searchPageStats(target)).stats).toMatch(/^\d+ profiles stored/);
  });

  it('disk full (ENOSPC on a small tmpfs, else SQLITE_FULL from max_page_count): profiles wait, then are all written', async () => {
    const disk = TmpfsDisk.mount(join(dir, 'tmpfs'), 4 * 1024 * 1024);
    try {
      const target = await start('full', {}, disk?.dir ?? dir);
      const file = storeFile(target);
      const before = await requests(target, 3, 'before');
      await target.get(ProfilerService).flush();
      const db = storeConnection(target);
      const pageLimit = db.pragma('max_page_count', { simple: true }) as number;
      if (disk) disk.fill();
      else db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);

      const during = await requests(target, 20, 'full');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await searchPageStats(target)).stats).toContain('20 waiting to be written');
      const failure = await target
        .get(ProfilerStorage)
        .write([{ ...(await target.get(ProfilerService).load(during[0]))!, token: 'f00000' }])
        .catch((e: unknown) => e);
      expect(String(failure)).toMatch(/database or disk is full/);

      if (disk) disk.free();
      else db.pragma(`max_page_count = ${pageLimit}`);
      const stats = await drained(target);
      expect(stats).toMatchObject({ pending: 0, dropped: 0 });
      expectStoredOnce(file, [...before, ...during]);
    } finally {
      await app?.close();
      app = undefined;
      disk?.unmount();
    }
  });

  it('read-only (query_only on the store connection: SQLITE_READONLY): profiles wait, then are all written', async () => {
    const target = await start('readonly');
    const file = storeFile(target);
    const db = storeConnection(target);
    db.pragma('query_only = 1');
    const during = await requests(target, 15, 'ro');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const page = await searchPageStats(target);
    expect(page.stats).toContain('15 waiting to be written');
    // Reads still work: the search page counts what is stored.
    expect(page.stats).toMatch(/^0 profiles stored/);
    db.pragma('query_only = 0');
    expect(await drained(target)).toMatchObject({ pending: 0, dropped: 0 });
    expectStoredOnce(file, during);
  });

  it('with a small PROFILER_BUFFER_LIMIT, drops the oldest waiting profiles, counts them on the search page, writes the rest', async () => {
    // No write before the search page asks for one: the counts are exact.
    const target = await start('overflow', { PROFILER_BUFFER_LIMIT: '10', PROFILER_FLUSH_INTERVAL_MS: '60000' });
    const file = storeFile(target);
    const locker = new Database(file);
    locker.exec('BEGIN EXCLUSIVE');
    let tokens: string[];
    try {
      tokens = await requests(target, 25, 'overflow');
      const page = await searchPageStats(target);
      expect(page.stats).toContain('10 waiting to be written');
      expect(page.stats).toContain('15 dropped since start (the store could not keep up or failed)');
    } finally {
      locker.exec('COMMIT');
      locker.close();
    }
    // The search page's own profile came after it was rendered, and pushed out one more (the 16th oldest).
    await settle();
    await target.get(ProfilerService).flush();
    const counts = storedTokenCounts(file, tokens);
    expect(tokens.filter((t) => counts.get(t) === 1)).toEqual(tokens.slice(16));
    expect(tokens.filter((t) => counts.get(t) === 0)).toEqual(tokens.slice(0, 16));
    expect((await searchPageStats(target)).stats).toContain('16 dropped since start');
  });

  it('a profile the store refuses on its own (a trigger aborting its insert) is dropped and counted; the others are written', async () => {
    const target = await start('poison', { PROFILER_FLUSH_INTERVAL_MS: '60000' });
    const file = storeFile(target);
    const admin = new Database(file);
    admin.exec('CREATE TABLE poison (token TEXT)');
    admin.exec(
      `CREATE TRIGGER refuse_poison BEFORE INSERT ON profile WHEN NEW.token IN (SELECT token FROM poison) BEGIN SELECT RAISE(ABORT, 'poisoned profile'); END`,
    );
    try {
      const first = await requests(target, 5, 'a');
      const poisoned = (await request(target.getHttpServer()).get('/?poison').expect(200)).headers[
        'x-debug-token'
      ] as string;
      admin.prepare('INSERT INTO poison VALUES (?)').run(poisoned);
      const last = await requests(target, 5, 'b');
      const profiler = target.get(ProfilerService);
      await profiler.flush(); // the batch of 11 fails: the retry goes one profile at a time
      expect(await drained(target)).toMatchObject({ pending: 0, dropped: 1 });
      const counts = storedTokenCounts(file, [...first, poisoned, ...last]);
      expect(counts.get(poisoned)).toBe(0);
      expectStoredOnce(file, [...first, ...last]);
      expect((await searchPageStats(target)).stats).toContain('1 dropped since start');
    } finally {
      admin.close();
    }
  });
});
