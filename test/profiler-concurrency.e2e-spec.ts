import type { NestExpressApplication } from '@nestjs/platform-express';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProfilerService } from '../src/profiler/profiler.service.js';
import { createTestApp } from './support/create-test-app.js';

const TOTAL = 1000;
const CONCURRENCY = 100;

function get(port: number, path: string, agent: Agent): Promise<{ status: number; token: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, token: res.headers['x-debug-token'] as string | undefined }));
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
    const results = await Promise.all(Array.from({ length: TOTAL }, (_, i) => get(port, i % 10 === 0 ? `/missing/${i}` : `/?i=${i}`, agent)));
    agent.destroy();
    expect(results.filter((r) => r.status === 200)).toHaveLength(900);
    expect(results.filter((r) => r.status === 404)).toHaveLength(100);
    const tokens = results.map((r) => r.token);
    expect(tokens.every((t) => t !== undefined && /^[0-9a-f]{6}$/.test(t))).toBe(true);
    expect(new Set(tokens).size).toBe(TOTAL);
    const profiler = app.get(ProfilerService);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const all = await profiler.find({ limit: 100 });
    expect(all.total).toBe(TOTAL);
    expect((await profiler.find({ statusCode: '404', limit: 100 })).total).toBe(100);
    expect((await profiler.find({ url: '/missing/', limit: 100 })).total).toBe(100);
    for (const token of tokens.slice(0, 50)) expect((await profiler.find({ token: token!, limit: 1 })).rows[0]?.token).toBe(token);
  });
});
