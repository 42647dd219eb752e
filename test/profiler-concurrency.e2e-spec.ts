import Database from 'better-sqlite3';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfilerService } from '../src/profiler/profiler.service.js';
import { ProfilerStorage } from '../src/profiler/storage/profiler-storage.js';
import { createTestApp } from './support/create-test-app.js';
import { storeConnection, storedTokenCounts } from './support/store-faults.js';

const TOTAL = 1000;
const CONCURRENCY = 100;

function get(port: number, path: string, agent: Agent): Promise<{ status: number; token: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, token: res.headers['x-debug-token'] as string | undefined }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Profiler under concurrent load (e2e)', () => {
  let app: NestExpressApplication;

  afterAll(async () => {
    await app?.close();
  });

  it(`stores exactly ${TOTAL} profiles for ${TOTAL} concurrent requests, all searchable`, async () => {
    app = await createTestApp({ env: { PROFILER_DSN: 'sqlite::memory:' } });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const results = await Promise.all(
      Array.from({ length: TOTAL }, (_, i) => get(port, i % 10 === 0 ? `/missing/${i}` : `/?i=${i}`, agent)),
    );
    agent.destroy();
    expect(results.filter((r) => r.status === 200)).toHaveLength(900);
    expect(results.filter((r) => r.status === 404)).toHaveLength(100);
    const tokens = results.map((r) => r.token);
    expect(tokens.every((t) => t !== undefined && /^[0-9a-f]{6}$/.test(t))).toBe(true);
    expect(new Set(tokens).size).toBe(TOTAL);
    const profiler = app.get(ProfilerService);
    // Read while they wait for the store, kept until after it has written them: what was read stays as read.
    const early = await Promise.all(tokens.slice(-20).map((token) => profiler.load(token!)));
    const urls = early.map((record) => (record?.data.request as { url?: string } | undefined)?.url);
    await profiler.flush();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(early.map((record) => (record?.data.request as { url?: string } | undefined)?.url)).toEqual(urls);
    expect(urls.every((url) => /^http:\/\/127\.0\.0\.1:\d+\/(\?i=|missing\/)\d+$/.test(url ?? ''))).toBe(true);
    const all = await profiler.find({ limit: 100 });
    expect(all.total).toBe(TOTAL);
    expect((await profiler.find({ statusCode: '404', limit: 100 })).total).toBe(100);
    expect((await profiler.find({ url: '/missing/', limit: 100 })).total).toBe(100);
    for (const token of tokens.slice(0, 50))
      expect((await profiler.find({ token: token!, limit: 1 })).rows[0]?.token).toBe(token);
  });

  it(`loses and duplicates none of ${TOTAL} concurrent requests' profiles while the store keeps failing and coming back`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shopkernel-chaos-'));
    const file = join(dir, 'profiler.sqlite');
    const chaotic = await createTestApp({ env: { PROFILER_DSN: `sqlite:${file}`, PROFILER_FLUSH_INTERVAL_MS: '10' } });
    try {
      await chaotic.listen(0, '127.0.0.1');
      const { port } = chaotic.getHttpServer().address() as AddressInfo;
      const db = storeConnection(chaotic);
      // Counts the writes the faults made fail (the buffer calls the store object's method).
      const storage = chaotic.get(ProfilerStorage);
      const write = storage.write.bind(storage);
      let failedWrites = 0;
      storage.write = async (profiles) => {
        try {
          await write(profiles);
        } catch (error) {
          failedWrites++;
          throw error;
        }
      };
      const locker = new Database(file);
      let faults = 0;
      let done = false;
      // Locked by another connection, then read-only, then fine, in turns of a few flush intervals each.
      const chaos = (async () => {
        while (!done) {
          const turn = faults++ % 3;
          if (turn === 0) locker.exec('BEGIN EXCLUSIVE');
          if (turn === 1) db.pragma('query_only = 1');
          await new Promise((resolve) => setTimeout(resolve, 40));
          if (turn === 0) locker.exec('COMMIT');
          if (turn === 1) db.pragma('query_only = 0');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      const results = await Promise.all(Array.from({ length: TOTAL }, (_, i) => get(port, `/?chaos=${i}`, agent)));
      done = true;
      await chaos;
      locker.close();
      agent.destroy();
      expect(faults).toBeGreaterThan(3);
      expect(failedWrites).toBeGreaterThan(0);
      expect(results.filter((r) => r.status !== 200)).toEqual([]);
      const tokens = results.map((r) => r.token!);
      expect(new Set(tokens).size).toBe(TOTAL);
      const profiler = chaotic.get(ProfilerService);
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (let i = 0; i < 100 && (await profiler.stats()).pending > 0; i++) await profiler.flush();
      expect(await profiler.stats()).toMatchObject({ pending: 0, dropped: 0, stored: TOTAL });
      const counts = storedTokenCounts(file, tokens);
      expect(tokens.filter((t) => counts.get(t) !== 1)).toEqual([]);
    } finally {
      await chaotic.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
