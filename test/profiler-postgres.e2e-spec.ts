import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse, type HTMLElement } from 'node-html-parser';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import request from 'supertest';
import { ProfilerService } from '../src/profiler/profiler.service.js';
import { TokenAllocator } from '../src/profiler/tokens/token-allocator.js';
import type { TokenRegistry } from '../src/profiler/tokens/token-registry.js';
import { TokenStore } from '../src/profiler/tokens/token-store.js';
import { buildApp, startApp, type AppProcess } from './support/app-process.js';
import { createTestApp } from './support/create-test-app.js';
import { describePostgres, dropSchema, POSTGRES_URL } from './support/postgres.js';
import { settle } from './support/profiler.js';

const HOST = 'shop.test';
const TOKEN = /^[0-9a-f]{6}$/;
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();

/** The profile store's DSN: the test server's database, in `schema`. */
function profilerDsn(schema: string): string {
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('schema', schema);
  return url.toString();
}

describePostgres('PostgreSQL profile store (e2e)')('Two instances sharing one PostgreSQL profile store (e2e)', () => {
  const schema = `profiler_e2e_${process.pid}_${randomBytes(3).toString('hex')}`;
  let a: NestExpressApplication;
  let b: NestExpressApplication;
  let baseA: string;
  let baseB: string;

  const listen = async (app: NestExpressApplication): Promise<string> => {
    await app.listen(0, '127.0.0.1');
    return `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  };
  /** The instance's waiting profiles written (kernel.terminate runs a turn after the response). */
  const flushed = async (app: NestExpressApplication) => {
    await settle();
    await app.get(ProfilerService).flush();
  };
  const search = async (base: string, query: string) => {
    const res = await request(base).get(`/_profiler/search?${query}`).set('Host', HOST).expect(200);
    const html = parse(res.text);
    return {
      heading: text(html.querySelector('#results')),
      rows: html.querySelectorAll('table.results tbody tr').map((tr) => tr.querySelectorAll('td').map(text)),
    };
  };

  beforeAll(async () => {
    const env = { PROFILER_DSN: profilerDsn(schema) };
    // Started together, as instances behind a load balancer are: both create the schema at once.
    [a, b] = await Promise.all([createTestApp({ env }), createTestApp({ env })]);
    baseA = await listen(a);
    baseB = await listen(b);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await dropSchema(schema);
  });

  it('listens on two ports', () => {
    expect(baseA).not.toBe(baseB);
  });

  it("opens on instance B the profile of a request instance A served, and B's search lists it", async () => {
    const path = `/?from=instance-a-${randomBytes(4).toString('hex')}`;
    const res = await request(baseA).get(path).set('Host', HOST).expect(200);
    const token: string = res.headers['x-debug-token'];
    expect(token).toMatch(TOKEN);
    await flushed(a);

    const page = await request(baseB).get(`/_profiler/${token}`).set('Host', HOST).expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const html = parse(page.text);
    expect(text(html.querySelector('div.url'))).toBe(`http://${HOST}${path}`);
    expect(text(html.querySelector('title'))).toBe(`Request · GET http://${HOST}${path} · Shopkernel Profiler`);

    const json = await request(baseB).get(`/_profiler/${token}.json`).set('Host', HOST).expect(200);
    expect(json.body).toMatchObject({ token, method: 'GET', url: `http://${HOST}${path}`, statusCode: 200 });

    const found = await search(baseB, `url=${encodeURIComponent(path.slice(2))}&limit=10`);
    expect(found.heading).toBe('1 results found');
    expect(found.rows.map((r) => [r[0], r[2], r[3], r[5]])).toEqual([['200', 'GET', `http://${HOST}${path}`, token]]);
    expect((await search(baseB, `token=${token}`)).rows.map((r) => r[5])).toEqual([token]);
  });

  it('lists the requests of both instances on either, newest first', async () => {
    const tag = randomBytes(4).toString('hex');
    const first = await request(baseA).get(`/missing-${tag}-a`).set('Host', HOST).expect(404);
    await flushed(a);
    const second = await request(baseB).get(`/missing-${tag}-b`).set('Host', HOST).expect(404);
    await flushed(b);
    const expected = [second.headers['x-debug-token'], first.headers['x-debug-token']];
    for (const base of [baseA, baseB]) {
      const found = await search(base, `url=missing-${tag}&status_code=404&limit=10`);
      expect(found.heading).toBe('2 results found');
      expect(found.rows.map((r) => r[5])).toEqual(expected);
    }
    await request(baseA).get(`/_profiler/${second.headers['x-debug-token']}`).set('Host', HOST).expect(200);
  });

  it("marks the tokens A stored as taken in B's token registry after B polls", async () => {
    const res = await request(baseA).get('/?poll').set('Host', HOST).expect(200);
    const token: string = res.headers['x-debug-token'];
    await flushed(a);
    const registryOfB = (b.get(TokenAllocator) as unknown as { registry: TokenRegistry }).registry;
    expect(await b.get(ProfilerService).syncTokens()).toBeGreaterThanOrEqual(1);
    expect(registryOfB.has(token)).toBe(true);
  });

  it("keeps B's profile when B's registry is made to draw a token A stored: the store refuses it before it is sent", async () => {
    const res = await request(baseA).get('/?collide').set('Host', HOST).expect(200);
    const taken: string = res.headers['x-debug-token'];
    await flushed(a);
    // B forgets the token (as if it had not polled yet) and asks the store for it, as its reservation pool does.
    const registryOfB = (b.get(TokenAllocator) as unknown as { registry: TokenRegistry }).registry;
    registryOfB.release([taken]);
    expect(await b.get(TokenStore).reserveTokens([taken])).toEqual([]);
    // Every token B sends is one it reserved: its profiles are all written, none refused.
    const sent: string[] = [];
    for (let i = 0; i < 20; i++)
      sent.push((await request(baseB).get(`/?from-b=${i}`).set('Host', HOST).expect(200)).headers['x-debug-token']);
    await flushed(b);
    expect(sent).not.toContain(taken);
    expect((await b.get(ProfilerService).stats()).dropped).toBe(0);
    expect((await b.get(ProfilerService).stats()).unreserved).toBe(0);
    for (const token of sent) await request(baseA).get(`/_profiler/${token}.json`).set('Host', HOST).expect(200);
  });
});

/**
 * The same with each instance a process of its own (the app transpiled into .test-build/ and started with node, on
 * its own port, as behind a load balancer): no memory in common, only the PostgreSQL schema named by PROFILER_DSN.
 */
describePostgres('PostgreSQL profile store, two processes (e2e)')(
  'Two application processes sharing one PostgreSQL profile store (e2e)',
  () => {
    const schema = `profiler_procs_${process.pid}_${randomBytes(3).toString('hex')}`;
    const running: AppProcess[] = [];
    let baseA: string;
    let baseB: string;

    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const search = async (base: string, query: string) => {
      const res = await request(base).get(`/_profiler/search?${query}`).expect(200);
      const html = parse(res.text);
      return {
        heading: text(html.querySelector('#results')),
        stats: text(html.querySelector('p.stats')),
        rows: html.querySelectorAll('table.results tbody tr').map((tr) => tr.querySelectorAll('td').map(text)),
      };
    };
    /** Searches on `base` until it finds `expected` results (the other process writes its batch within its flush interval). */
    const searchUntil = async (base: string, query: string, expected: number) => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const found = await search(base, query);
        if (found.heading === `${expected} results found` || Date.now() > deadline) return found;
        await sleep(100);
      }
    };
    /** `count` GETs of `/?from=<from>&n=<i>` to `base`, one after the other: the tokens and URLs the client got. */
    const send = async (base: string, from: string, count: number) => {
      const sent: { token: string; url: string }[] = [];
      for (let i = 0; i < count; i++) {
        const path = `/?from=${from}&n=${i}`;
        const res = await request(base).get(path).expect(200);
        const token: string = res.headers['x-debug-token'];
        expect(token).toMatch(TOKEN);
        expect(res.headers['x-debug-token-link']).toBe(`${base}/_profiler/${token}`);
        sent.push({ token, url: `${base}${path}` });
      }
      return sent;
    };
    /** What the schema holds, read by the test: the stored tokens, and the reservations (token → owner). */
    const schemaTokens = async (): Promise<{ stored: Set<string>; reserved: Map<string, string> }> => {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      try {
        const profiles = await client.query<{ token: string }>(`SELECT token FROM "${schema}".profiler_profile`);
        const reservations = await client.query<{ token: string; owner: string }>(
          `SELECT token, owner FROM "${schema}".profiler_token`,
        );
        return {
          stored: new Set(profiles.rows.map((r) => r.token)),
          reserved: new Map(reservations.rows.map((r) => [r.token, r.owner])),
        };
      } finally {
        await client.end();
      }
    };

    beforeAll(async () => {
      const main = buildApp();
      const env = { PROFILER_DSN: profilerDsn(schema), PROFILER_FLUSH_INTERVAL_MS: '50' };
      // Started together, as instances behind a load balancer are: both create the schema at once.
      const [a, b] = await Promise.all([startApp(main, env), startApp(main, env)]);
      running.push(a, b);
      baseA = `http://127.0.0.1:${a.port}`;
      baseB = `http://127.0.0.1:${b.port}`;
    });

    afterAll(async () => {
      // SIGTERM: each writes what it still holds and exits 0 (SIGKILL after 10 s, so that the run never hangs).
      for (const app of running) app.child.kill('SIGTERM');
      const killer = setTimeout(() => running.forEach((app) => app.child.kill('SIGKILL')), 10_000);
      const exits = await Promise.all(running.map((app) => app.exited));
      clearTimeout(killer);
      await dropSchema(schema);
      expect(exits).toEqual([
        { code: 0, signal: null },
        { code: 0, signal: null },
      ]);
    }, 30_000);

    it('opens on each process the profiles of requests the other served, finds them with its search, and the two never send the same token', async () => {
      const tag = randomBytes(4).toString('hex');
      // Both at once: the two processes draw and send tokens at the same time.
      const [fromA, fromB] = await Promise.all([send(baseA, `a-${tag}`, 15), send(baseB, `b-${tag}`, 15)]);

      for (const [other, sent, from] of [
        [baseB, fromA, 'a'],
        [baseA, fromB, 'b'],
      ] as const) {
        // Listed by the other process's search page, newest first, once the sender has written its batches.
        const found = await searchUntil(
          other,
          `url=${encodeURIComponent(`from=${from}-${tag}`)}&limit=50`,
          sent.length,
        );
        expect(found.heading).toBe(`${sent.length} results found`);
        expect(found.rows.map((r) => [r[0], r[2], r[3], r[5]])).toEqual(
          sent.map((s) => ['200', 'GET', s.url, s.token]).reverse(),
        );
        expect(found.stats).not.toContain('dropped');
        // Opened there: the profile page and the JSON export.
        for (const { token, url } of [sent[0], sent[sent.length - 1]]) {
          const page = await request(other).get(`/_profiler/${token}`).expect(200);
          expect(text(parse(page.text).querySelector('div.url'))).toBe(url);
          const json = await request(other).get(`/_profiler/${token}.json`).expect(200);
          expect(json.body).toMatchObject({ token, method: 'GET', url, statusCode: 200 });
        }
      }

      // No token sent twice; each stored, its reservation claimed by the write (gone); each process holds
      // reservations drawn ahead, under an owner of its own.
      const tokens = [...fromA, ...fromB].map((s) => s.token);
      expect(new Set(tokens).size).toBe(tokens.length);
      const { stored, reserved } = await schemaTokens();
      expect(tokens.filter((t) => !stored.has(t))).toEqual([]);
      expect(tokens.filter((t) => reserved.has(t))).toEqual([]);
      expect(new Set(reserved.values()).size).toBe(2);
    });
  },
);
