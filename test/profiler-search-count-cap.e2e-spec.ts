import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { COUNT_CAP } from '../src/profiler/storage/search-helpers.js';
import { ProfilerStorage } from '../src/profiler/storage/profiler-storage.js';
import { record, T0 } from '../src/profiler/storage/testing/profiler-storage.contract.js';
import { createTestApp } from './support/create-test-app.js';

describe('The search page counts up to 10,000 and says "10,000+" beyond (e2e)', () => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    app = await createTestApp();
    const storage = app.get(ProfilerStorage);
    // More than the cap of requests, 1,234 of them POSTs, written as a long-running shop would have.
    const profiles = Array.from({ length: COUNT_CAP + 20 }, (_, i) =>
      record((0x400000 + i).toString(16), { time: T0 + i, method: i < 1234 ? 'POST' : 'GET' }),
    );
    for (let i = 0; i < profiles.length; i += 2000) await storage.write(profiles.slice(i, i + 2000));
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  const search = (query: string) =>
    request(app.getHttpServer()).get(`/_profiler/search?limit=10&${query}`).set('Host', 'shop.test').expect(200);

  it('shows "10,000+ results found" and "10,000+ profiles stored" above the cap, and lists the newest', async () => {
    const page = await search('profiler=1');
    expect(page.text).toContain('<h2 id="results">10,000+ results found</h2>');
    expect(page.text).toMatch(/<p class="stats">10,000\+ profiles stored \(/);
    expect(page.text).toContain(`href="/_profiler/${(0x400000 + COUNT_CAP + 19).toString(16)}"`);
  });

  it('counts exactly below the cap, with thousands separated', async () => {
    const page = await search('method=POST');
    expect(page.text).toContain('<h2 id="results">1,234 results found</h2>');
  });
});
