import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Agent, request as httpRequest } from 'node:http';
import pg from 'pg';
import request from 'supertest';
import { ProfilerService } from '../src/profiler/profiler.service.js';
import { ProfilerStorage } from '../src/profiler/storage/profiler-storage.js';
import { createTestApp } from './support/create-test-app.js';
import { describePostgres, POSTGRES_URL } from './support/postgres.js';
import { settle } from './support/profiler.js';
import { searchPageStats } from './support/store-faults.js';
import { TcpProxy } from './support/tcp-proxy.js';

const TOKEN = /^[0-9a-f]{6}$/;

/**
 * The PostgreSQL profile store going away while requests come in, through a TCP proxy the test cuts and restores
 * (the machine's server keeps running), and the server "restarting" under the application (pg_terminate_backend
 * of its connections). Requests keep their 200 and token; the profiles wait and are written when the store is
 * back, each exactly once (rows counted by token, through a connection of the test's own).
 */
describePostgres('PostgreSQL profile store faults (e2e)')(
  'Profiler: the PostgreSQL store down or restarted (e2e)',
  () => {
    const schema = `profiler_faults_${process.pid}_${randomBytes(3).toString('hex')}`;
    let proxy: TcpProxy;
    let admin: pg.Client;
    let app: NestExpressApplication;

    const rowsByToken = async (tokens: string[]): Promise<Map<string, number>> => {
      const { rows } = await admin.query<{ token: string; n: number }>(
        `SELECT token, count(*)::int AS n FROM "${schema}".profiler_profile WHERE token = ANY($1::text[]) GROUP BY token`,
        [tokens],
      );
      const counts = new Map(tokens.map((t) => [t, 0]));
      for (const row of rows) counts.set(row.token, row.n);
      return counts;
    };
    const expectStoredOnce = async (tokens: string[]) => {
      expect([...(await rowsByToken(tokens))].filter(([, n]) => n !== 1)).toEqual([]);
    };
    const requests = async (n: number, tag: string): Promise<string[]> => {
      const tokens: string[] = [];
      for (let i = 0; i < n; i++) {
        const res = await request(app.getHttpServer()).get(`/?${tag}=${i}`);
        expect(res.status).toBe(200);
        expect(res.headers['x-debug-token']).toMatch(TOKEN);
        tokens.push(res.headers['x-debug-token']);
      }
      await settle();
      return tokens;
    };
    const drained = async (ms = 15_000) => {
      const profiler = app.get(ProfilerService);
      const until = Date.now() + ms;
      while ((await profiler.stats()).pending > 0 && Date.now() < until) {
        await profiler.flush();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return profiler.stats();
    };
    /** Ends the server side of every connection the application has through the proxy, as a restart does. */
    const terminateBackends = async (): Promise<number> => {
      const { rows } = await admin.query<{ ok: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE client_port = ANY($1::int[]) AND pid <> pg_backend_pid()`,
        [proxy.upstreamPorts],
      );
      return rows.filter((r) => r.ok).length;
    };

    beforeAll(async () => {
      const target = new URL(POSTGRES_URL);
      proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
      admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      const dsn = new URL(POSTGRES_URL);
      dsn.host = `127.0.0.1:${proxy.port}`;
      dsn.searchParams.set('schema', schema);
      // pg's parameter: a query unanswered for 2 s fails (default 30 s), for the stalled server below.
      dsn.searchParams.set('query_timeout', '2000');
      app = await createTestApp({ env: { PROFILER_DSN: dsn.toString(), PROFILER_FLUSH_INTERVAL_MS: '20' } });
    });

    afterAll(async () => {
      await proxy?.restore();
      await app?.close();
      await proxy?.close();
      await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin?.end();
    });

    it('cut (connections destroyed, new ones refused): requests answer, the search page counts what waits, all written once back', async () => {
      const before = await requests(3, 'before');
      await app.get(ProfilerService).flush();
      await proxy.cut();
      const during = await requests(20, 'cut');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const page = await searchPageStats(app);
      expect(page.stats).toContain('20 waiting to be written');
      expect(page.stats).toContain('Stored profiles unknown');
      expect(page.storeError).toMatch(/^The profile store cannot be read: /);
      // A waiting profile opens from the buffer.
      await request(app.getHttpServer()).get(`/_profiler/${during[5]}`).expect(200);

      await proxy.restore();
      expect(await drained()).toMatchObject({ pending: 0, dropped: 0 });
      await expectStoredOnce([...before, ...during]);
      const json = await request(app.getHttpServer()).get(`/_profiler/${during[0]}.json`).expect(200);
      expect(json.body).toMatchObject({ token: during[0], statusCode: 200 });
      expect((await searchPageStats(app)).stats).toMatch(/^\d+ profiles stored/);
    });

    it('restarted (pg_terminate_backend of every connection, idle and busy) and cut, in turns under load: nothing lost, nothing twice', async () => {
      const { port } = await new Promise<AddressInfo>((resolve) => {
        const server = app.getHttpServer();
        if (server.listening) resolve(server.address() as AddressInfo);
        else server.listen(0, '127.0.0.1', () => resolve(server.address() as AddressInfo));
      });
      const agent = new Agent({ keepAlive: true, maxSockets: 20 });
      const get = (i: number) =>
        new Promise<{ status: number; token: string }>((resolve, reject) => {
          const req = httpRequest({ host: '127.0.0.1', port, path: `/?restart=${i}`, agent }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, token: String(res.headers['x-debug-token']) }));
          });
          req.on('error', reject);
          req.end();
        });
      await requests(2, 'warm'); // the pool has connections to lose
      let terminated = 0;
      const load = Promise.all(Array.from({ length: 400 }, (_, i) => get(i)));
      // Restarts and outages in turns while the requests come in.
      for (let i = 0; i < 6; i++) {
        await new Promise((resolve) => setTimeout(resolve, 60));
        if (i % 2 === 0) terminated += await terminateBackends();
        else {
          await proxy.cut();
          await new Promise((resolve) => setTimeout(resolve, 60));
          await proxy.restore();
        }
      }
      const results = await load;
      agent.destroy();
      expect(terminated).toBeGreaterThan(0);
      expect(results.filter((r) => r.status !== 200)).toEqual([]);
      const tokens = results.map((r) => r.token);
      expect(tokens.every((t) => TOKEN.test(t))).toBe(true);
      expect(new Set(tokens).size).toBe(tokens.length);
      await settle();
      expect(await drained()).toMatchObject({ pending: 0, dropped: 0 });
      await expectStoredOnce(tokens);
    });

    it('stalled (connections open, nothing answered: a partition): requests and pages answer, profiles written once it is back', async () => {
      const profiler = app.get(ProfilerService);
      await profiler.flush();
      const before = await requests(2, 'before-stall');
      await profiler.flush();
      // Idle connections in the pool (the page's count and list run at once): they are what will hang.
      await searchPageStats(app);
      expect(proxy.connections).toBeGreaterThanOrEqual(2);
      const storage = app.get(ProfilerStorage);
      const write = storage.write.bind(storage);
      const failures: string[] = [];
      storage.write = async (profiles) => {
        try {
          await write(profiles);
        } catch (error) {
          failures.push(String(error));
          throw error;
        }
      };
      proxy.stall();
      try {
        const during = await requests(10, 'stall');
        // The page waits at most 2 s for the (hanging) write, then reads, and the read times out (query_timeout).
        const page = await searchPageStats(app);
        expect(page.stats).toContain('11 waiting to be written'); // and the warm-up page's
        expect(page.storeError).toMatch(/^The profile store cannot be read: /);
        // The write that hung on a stalled connection gives up by itself (query_timeout), the network still down.
        for (let i = 0; i < 100 && !failures.some((f) => f.includes('Query read timeout')); i++)
          await new Promise((resolve) => setTimeout(resolve, 100));
        expect(failures.filter((f) => f.includes('Query read timeout')).length).toBeGreaterThan(0);
        await proxy.restore();
        expect(await drained()).toMatchObject({ pending: 0 });
        await expectStoredOnce([...before, ...during]);
      } finally {
        storage.write = write;
        await proxy.restore();
      }
    });

    it('a COMMIT that reached the server but whose answer was lost: the retry neither stores the profiles twice nor counts them dropped', async () => {
      await app.get(ProfilerService).flush();
      const droppedBefore = (await app.get(ProfilerService).stats()).dropped;
      proxy.loseNextCommitAck();
      const tokens = await requests(10, 'lost-ack');
      await app.get(ProfilerService).flush();
      expect(proxy.commitAckPending).toBe(false);
      expect(await drained()).toMatchObject({ pending: 0, dropped: droppedBefore });
      await expectStoredOnce(tokens);
    });

    it('a profile the store refuses for itself (a CHECK constraint, 23514) is dropped and counted; the others of its batch are written', async () => {
      const profiler = app.get(ProfilerService);
      await profiler.flush();
      const droppedBefore = (await profiler.stats()).dropped;
      await admin.query(
        `ALTER TABLE "${schema}".profiler_profile ADD CONSTRAINT refuse_poison CHECK (url NOT LIKE '%poison%') NOT VALID`,
      );
      try {
        const first = await requests(4, 'ok-a');
        const poisoned = (await request(app.getHttpServer()).get('/?poison').expect(200)).headers[
          'x-debug-token'
        ] as string;
        const last = await requests(4, 'ok-b');
        expect(await drained()).toMatchObject({ pending: 0, dropped: droppedBefore + 1 });
        expect((await rowsByToken([poisoned])).get(poisoned)).toBe(0);
        await expectStoredOnce([...first, ...last]);
        expect((await searchPageStats(app)).stats).toContain(`${droppedBefore + 1} dropped since start`);
      } finally {
        await admin.query(`ALTER TABLE "${schema}".profiler_profile DROP CONSTRAINT refuse_poison`);
      }
    });
  },
);
