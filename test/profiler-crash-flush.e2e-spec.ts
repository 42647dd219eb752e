import { jest } from '@jest/globals';
import Database from 'better-sqlite3';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import request from 'supertest';
import {
  buildApp,
  buildProcessFixture,
  freePort,
  loadApp,
  runUntilExit,
  startApp,
  type AppProcess,
  type StartOptions,
} from './support/app-process.js';
import { describePostgres, dropSchema, POSTGRES_URL } from './support/postgres.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { inspectSqliteStore } from './support/sqlite-store.js';

/** Long: every profile is still in the write buffer when the crash comes, unless the crash writes it. */
const INTERVAL_MS = '5000';
const CRITICAL_UNCAUGHT = /process\.CRITICAL: Uncaught exception: Error: Crash fixture: an exception nobody caught/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isRoot = process.getuid?.() === 0;

// Each test starts the application once or more (a few seconds each on a shared machine).
jest.setTimeout(90_000);

/** Sends `n` requests one after the other; their X-Debug-Tokens. */
async function answered(port: number, n: number, tag: string): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < n; i++)
    tokens.push((await request(`http://127.0.0.1:${port}`).get(`/?${tag}=${i}`).expect(200)).headers['x-debug-token']);
  return tokens;
}

/** Asks for a crash; the request itself may be answered or cut by the exit. */
async function crash(port: number, kind: string): Promise<string | undefined> {
  try {
    return (await request(`http://127.0.0.1:${port}`).get(`/?crash=${kind}`)).headers['x-debug-token'];
  } catch {
    return undefined;
  }
}

/**
 * The application as a process of its own, crashed by a test-only preload (test/fixtures/process/crash-trigger.ts)
 * while its profiles wait in the write buffer: the crash is logged, every answered request's profile is stored,
 * and the process exits 1; a profile store that cannot be opened is one line and exit 1.
 */
describe('Profiler: a crash keeps the profiles that explain it (e2e)', () => {
  let main: string;
  let trigger: string;
  let dir: string;
  const running: AppProcess[] = [];

  beforeAll(() => {
    main = buildApp();
    trigger = buildProcessFixture('crash-trigger');
    dir = mkdtempSync(join(tmpdir(), 'shopkernel-crash-flush-'));
  });

  afterAll(() => {
    for (const app of running)
      if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (env: Record<string, string>, options: StartOptions = {}) => {
    const app = await startApp(main, { PROFILER_FLUSH_INTERVAL_MS: INTERVAL_MS, ...env }, 30_000, {
      ...options,
      nodeArgs: [...(options.nodeArgs ?? []), '--import', trigger],
    });
    running.push(app);
    return app;
  };

  describe('SQLite store', () => {
    it('an uncaught exception under load: logged, exit 1, every response received has its profile, the store is intact', async () => {
      const file = join(dir, 'uncaught-load.sqlite');
      const app = await start({ PROFILER_DSN: `sqlite:${file}` });
      const load = loadApp(app.port, 8);
      const started = Date.now();
      while (load.sent.length < 80 && Date.now() - started < 20_000) await sleep(50);
      const crashToken = await crash(app.port, 'uncaught');
      const exit = await app.exited;
      await load.stop();
      expect(exit).toEqual({ code: 1, signal: null });
      expect(app.output()).toMatch(CRITICAL_UNCAUGHT);
      // Printed as one log line, with the stack in its context, although LOG_LEVEL is "none" in tests.
      expect(
        app
          .output()
          .split('\n')
          .filter((line) => line.includes('process.CRITICAL')),
      ).toHaveLength(1);
      const { integrity, tokens } = inspectSqliteStore(file);
      expect(integrity).toBe('ok');
      expect(load.sent.length).toBeGreaterThanOrEqual(80);
      expect(load.sent.filter((s) => tokens.get(s.token) !== 1).map((s) => s.token)).toEqual([]);
      if (crashToken) expect(tokens.get(crashToken)).toBe(1);
    });

    it('an unhandled rejection crashes as Node does, after the profiles are written', async () => {
      const file = join(dir, 'rejection.sqlite');
      const app = await start({ PROFILER_DSN: `sqlite:${file}` });
      const tokens = await answered(app.port, 12, 'rejection');
      await crash(app.port, 'rejection');
      expect(await app.exited).toEqual({ code: 1, signal: null });
      expect(app.output()).toMatch(
        /process\.CRITICAL: Unhandled promise rejection: Error: Crash fixture: a rejection nobody handled/,
      );
      const stored = inspectSqliteStore(file);
      expect(stored.integrity).toBe('ok');
      expect(tokens.filter((t) => stored.tokens.get(t) !== 1)).toEqual([]);
    });

    it("a rejection with a value that is not an Error: Node's wrapper names it", async () => {
      const file = join(dir, 'rejection-value.sqlite');
      const app = await start({ PROFILER_DSN: `sqlite:${file}` });
      const tokens = await answered(app.port, 5, 'value');
      await crash(app.port, 'rejection-value');
      expect(await app.exited).toEqual({ code: 1, signal: null });
      expect(app.output()).toMatch(
        /process\.CRITICAL: Unhandled promise rejection: .*Crash fixture: a string rejected/,
      );
      expect(tokens.filter((t) => inspectSqliteStore(file).tokens.get(t) !== 1)).toEqual([]);
    });

    it("a crash just after a response was handed to Node, before its close: that response's profile is kept too", async () => {
      const file = join(dir, 'after-response.sqlite');
      const app = await start({ PROFILER_DSN: `sqlite:${file}` });
      const tokens = await answered(app.port, 5, 'before');
      const res = await request(`http://127.0.0.1:${app.port}`).get('/?crash=after-response').expect(200);
      expect(await app.exited).toEqual({ code: 1, signal: null });
      expect(app.output()).toMatch(
        /process\.CRITICAL: Uncaught exception: Error: Crash fixture: an exception just after a response/,
      );
      const stored = inspectSqliteStore(file).tokens;
      expect([...tokens, res.headers['x-debug-token']].filter((t) => stored.get(t) !== 1)).toEqual([]);
    });

    it('with the profiler off, a crash is logged all the same and exits 1', async () => {
      const app = await start({ PROFILER_ENABLED: '0' });
      await request(`http://127.0.0.1:${app.port}`).get('/?off=1').expect(200);
      await crash(app.port, 'uncaught');
      expect(await app.exited).toEqual({ code: 1, signal: null });
      expect(app.output()).toMatch(CRITICAL_UNCAUGHT);
    });

    it('with --unhandled-rejections=warn a rejection does not crash: the flag keeps its meaning', async () => {
      const file = join(dir, 'warn.sqlite');
      const app = await start({ PROFILER_DSN: `sqlite:${file}` }, { nodeArgs: ['--unhandled-rejections=warn'] });
      await crash(app.port, 'rejection');
      await sleep(300);
      await answered(app.port, 2, 'still');
      expect(app.child.exitCode).toBeNull();
      expect(app.output()).not.toMatch(/process\.CRITICAL/);
      app.child.kill('SIGTERM');
      expect(await app.exited).toEqual({ code: 0, signal: null });
    });

    it('a crash while another process holds the store locked: the last write waits a bounded time, the loss is logged, exit 1', async () => {
      const file = join(dir, 'locked.sqlite');
      const app = await start({ PROFILER_DSN: `sqlite:${file}`, LOG_LEVEL: 'critical' });
      await answered(app.port, 7, 'locked');
      const locker = new Database(file);
      locker.exec('BEGIN EXCLUSIVE');
      let elapsed: number;
      try {
        const crashedAt = Date.now();
        await crash(app.port, 'uncaught');
        expect(await app.exited).toEqual({ code: 1, signal: null });
        elapsed = Date.now() - crashedAt;
      } finally {
        locker.exec('COMMIT');
        locker.close();
      }
      expect(elapsed).toBeLessThan(10_000);
      expect(app.output()).toMatch(CRITICAL_UNCAUGHT);
      expect(app.output()).toMatch(/profiler\.CRITICAL: [78] profile\(s\) were lost in the crash: the store failed\./);
      expect(inspectSqliteStore(file).integrity).toBe('ok');
    });
  });

  describePostgres('PostgreSQL store (crash)')('PostgreSQL store', () => {
    const schema = `profiler_crash_${process.pid}_${randomBytes(3).toString('hex')}`;
    let admin: pg.Client;
    let proxy: TcpProxy;

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      const target = new URL(POSTGRES_URL);
      proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    });

    afterAll(async () => {
      await proxy?.cut();
      await admin?.end();
      await dropSchema(schema);
    });

    const dsn = (viaProxy: boolean) => {
      const url = new URL(POSTGRES_URL);
      if (viaProxy) url.port = String(proxy.port);
      url.searchParams.set('schema', schema);
      return url.toString();
    };

    const storedIn = async (tokens: string[]) => {
      const { rows } = await admin.query(
        `SELECT token, count(*)::int AS n FROM "${schema}".profiler_profile WHERE token = ANY($1::text[]) GROUP BY token`,
        [tokens],
      );
      return new Map((rows as { token: string; n: number }[]).map((r) => [r.token, r.n]));
    };

    it('an uncaught exception: the buffered profiles are written within the bounded wait, then exit 1', async () => {
      const app = await start({ PROFILER_DSN: dsn(false) });
      const tokens = await answered(app.port, 15, 'pg');
      await crash(app.port, 'uncaught');
      expect(await app.exited).toEqual({ code: 1, signal: null });
      expect(app.output()).toMatch(CRITICAL_UNCAUGHT);
      const stored = await storedIn(tokens);
      expect(tokens.filter((t) => stored.get(t) !== 1)).toEqual([]);
    });

    it('an unhandled rejection under load: every response received before the crash was asked for has its profile', async () => {
      const app = await start({ PROFILER_DSN: dsn(false) });
      const load = loadApp(app.port, 4);
      const started = Date.now();
      while (load.sent.length < 40 && Date.now() - started < 20_000) await sleep(50);
      const before = load.sent.length;
      await crash(app.port, 'rejection');
      expect(await app.exited).toEqual({ code: 1, signal: null });
      await load.stop();
      expect(app.output()).toMatch(
        /process\.CRITICAL: Unhandled promise rejection: Error: Crash fixture: a rejection nobody handled/,
      );
      const due = load.sent.slice(0, before).map((s) => s.token);
      const stored = await storedIn(due);
      expect(due.filter((t) => stored.get(t) !== 1)).toEqual([]);
    });

    it('keep-alive clients that go on sending through the crash: every response that carried a token has its profile', async () => {
      const app = await start({ PROFILER_DSN: dsn(false) });
      // Each request reaches the application 30 ms after it arrived: the crash finds every connection busy.
      const load = loadApp(app.port, 6, 'slow=30');
      const started = Date.now();
      while (load.sent.length < 60 && Date.now() - started < 20_000) await sleep(50);
      // The profiles table locked for a while: the crash's write waits for it, and the clients go on meanwhile.
      await admin.query('BEGIN');
      let crashToken: string | undefined;
      let late: request.Response | undefined;
      try {
        await admin.query(`LOCK TABLE "${schema}".profiler_profile IN SHARE ROW EXCLUSIVE MODE`);
        // Sent before the crash, it reaches the application well after it, while the store still waits.
        const pending = request(`http://127.0.0.1:${app.port}`)
          .get('/?slow=1500&late=1')
          .then(
            (res) => res,
            () => undefined,
          );
        crashToken = await crash(app.port, 'uncaught');
        late = await pending;
      } finally {
        await admin.query('COMMIT');
      }
      expect([late?.status, late?.headers.connection, late?.headers['x-debug-token']]).toEqual([
        503,
        'close',
        undefined,
      ]);
      expect(await app.exited).toEqual({ code: 1, signal: null });
      await load.stop();
      expect(app.output()).toMatch(CRITICAL_UNCAUGHT);
      expect(load.sent.length).toBeGreaterThanOrEqual(60);
      // Whatever arrived after the crash was refused (a 503 closing its connection), not answered with a token.
      expect(load.failures()).toBeGreaterThan(0);
      // Those answered while the store was being written too: a token once handed out names a stored profile.
      const handedOut = [...load.sent.map((s) => s.token), ...(crashToken ? [crashToken] : [])];
      const stored = await storedIn(handedOut);
      expect(handedOut.filter((t) => stored.get(t) !== 1)).toEqual([]);
      expect(app.output()).not.toMatch(/profile\(s\) were lost/);
    });

    it('a server that stopped answering: the wait ends at PROFILER_SHUTDOWN_TIMEOUT_MS, the loss is logged, exit 1', async () => {
      const app = await start({ PROFILER_DSN: dsn(true), PROFILER_SHUTDOWN_TIMEOUT_MS: '1000', LOG_LEVEL: 'critical' });
      await answered(app.port, 6, 'stalled');
      proxy.stall();
      try {
        const crashedAt = Date.now();
        await crash(app.port, 'uncaught');
        expect(await app.exited).toEqual({ code: 1, signal: null });
        expect(Date.now() - crashedAt).toBeLessThan(4000);
      } finally {
        await proxy.restore();
      }
      expect(app.output()).toMatch(CRITICAL_UNCAUGHT);
      expect(app.output()).toMatch(
        /profiler\.CRITICAL: [67] profile\(s\) were lost in the crash: the store did not take them within 1000 ms\./,
      );
    });

    it('a second crash while the first one waits for the store exits at once', async () => {
      const app = await start({ PROFILER_DSN: dsn(true), PROFILER_SHUTDOWN_TIMEOUT_MS: '4000' });
      await answered(app.port, 3, 'twice');
      proxy.stall();
      try {
        const crashedAt = Date.now();
        await crash(app.port, 'twice');
        expect(await app.exited).toEqual({ code: 1, signal: null });
        expect(Date.now() - crashedAt).toBeLessThan(2500);
      } finally {
        await proxy.restore();
      }
      expect(app.output()).toMatch(/process\.CRITICAL: Uncaught exception: Error: Crash fixture: the first exception/);
      expect(app.output()).toMatch(
        /process\.CRITICAL: Uncaught exception while handling a crash, exiting at once: Error: Crash fixture: the second exception/,
      );
    });
  });

  describe('a profile store that cannot be opened', () => {
    /** Runs the application on this DSN: it must exit 1 having printed exactly one line. */
    const refused = async (dsn: string, options: StartOptions = {}): Promise<string> => {
      const { code, signal, output } = await runUntilExit(main, { PROFILER_DSN: dsn }, 30_000, options);
      expect({ code, signal }).toEqual({ code: 1, signal: null });
      const lines = output.split('\n').filter((line) => line.trim() !== '');
      expect(lines).toHaveLength(1);
      return lines[0];
    };

    it('a parent directory that is a file', async () => {
      const file = join(dir, 'a-file');
      writeFileSync(file, 'not a directory');
      expect(await refused(`sqlite:${file}/profiler.sqlite`)).toBe(
        `PROFILER_DSN: Cannot open the SQLite profile store ${file}/profiler.sqlite: its directory cannot be created: ${file} is not a directory (EEXIST)`,
      );
      expect(await refused(`sqlite:${file}/deeper/profiler.sqlite`)).toBe(
        `PROFILER_DSN: Cannot open the SQLite profile store ${file}/deeper/profiler.sqlite: its directory cannot be created: ${file} is not a directory (ENOTDIR)`,
      );
    });

    it('a directory that cannot be created (mkdir -p would never return there)', async () => {
      expect(await refused('sqlite:/proc/shopkernel-missing/profiler.sqlite')).toBe(
        'PROFILER_DSN: Cannot open the SQLite profile store /proc/shopkernel-missing/profiler.sqlite: its directory /proc/shopkernel-missing cannot be created (ENOENT)',
      );
    });

    it('a directory given as the file, and a file that is not a database', async () => {
      const folder = join(dir, 'folder.sqlite');
      mkdirSync(folder);
      expect(await refused(`sqlite:${folder}`)).toBe(
        `PROFILER_DSN: Cannot open the SQLite profile store ${folder}: it is a directory (SQLITE_CANTOPEN)`,
      );
      const text = join(dir, 'text.sqlite');
      writeFileSync(text, 'Just some text, long enough to be read as a database header and refused.\n'.repeat(20));
      expect(await refused(`sqlite:${text}`)).toBe(
        `PROFILER_DSN: Cannot open the SQLite profile store ${text}: file is not a database (SQLITE_NOTADB)`,
      );
    });

    it('a store file that may only be read, also by root (the immutable flag)', async () => {
      const file = join(dir, 'immutable.sqlite');
      await createStore(file);
      try {
        execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
      } catch {
        process.stderr.write(
          'The immutable-file variant was skipped: chattr +i is not allowed here (not root, or the filesystem has no such flag).\n',
        );
        return;
      }
      try {
        expect(await refused(`sqlite:${file}`)).toBe(
          `PROFILER_DSN: Cannot open the SQLite profile store ${file}: attempt to write a readonly database (SQLITE_READONLY)`,
        );
      } finally {
        execFileSync('chattr', ['-i', file]);
      }
    });

    it('a read-only file and a directory without write rights, for a user permissions apply to', async () => {
      // As root, the application runs as nobody; otherwise as this user, for whom the modes apply already.
      const as: StartOptions = isRoot ? { uid: 65534, gid: 65534 } : {};
      if (isRoot && spawnSync(process.execPath, ['-e', ''], as).error) {
        process.stderr.write(
          'The permissions variant was skipped: this root may not run a process as nobody (no CAP_SETUID).\n',
        );
        return;
      }
      const own = join(dir, 'permissions');
      mkdirSync(own);
      chmodSync(dir, 0o755);
      const file = join(own, 'read-only.sqlite');
      await createStore(file);
      chmodSync(file, 0o444);
      chmodSync(own, 0o777);
      expect(await refused(`sqlite:${file}`, as)).toBe(
        `PROFILER_DSN: Cannot open the SQLite profile store ${file}: attempt to write a readonly database (SQLITE_READONLY)`,
      );
      const closed = join(dir, 'closed');
      mkdirSync(closed, 0o555);
      chmodSync(closed, 0o555);
      expect(await refused(`sqlite:${closed}/profiler.sqlite`, as)).toBe(
        `PROFILER_DSN: Cannot open the SQLite profile store ${closed}/profiler.sqlite: its directory ${closed} is not writable (EACCES, SQLITE_CANTOPEN)`,
      );
      expect(await refused(`sqlite:${closed}/sub/profiler.sqlite`, as)).toBe(
        `PROFILER_DSN: Cannot open the SQLite profile store ${closed}/sub/profiler.sqlite: its directory ${closed}/sub cannot be created: permission denied (EACCES)`,
      );
    });

    it('a PostgreSQL server that accepts connections but never answers: given up at the connection timeout (10 s)', async () => {
      const silent = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const port = (silent.address() as AddressInfo).port;
      try {
        expect(await refused(`postgres://postgres@127.0.0.1:${port}/test`)).toBe(
          `PROFILER_DSN: Cannot open the PostgreSQL profile store postgres://postgres@127.0.0.1:${port}/test (schema public): Connection terminated due to connection timeout`,
        );
      } finally {
        silent.close();
      }
    });

    it('a PostgreSQL server that refuses the connection (the password masked)', async () => {
      const port = await freePort();
      expect(await refused(`postgres://postgres:s3cret@127.0.0.1:${port}/test`)).toBe(
        `PROFILER_DSN: Cannot open the PostgreSQL profile store postgres://postgres:******@127.0.0.1:${port}/test (schema public): connect ECONNREFUSED 127.0.0.1:${port}`,
      );
    });
  });

  describe("the kernel's list of requests a crash would terminate", () => {
    it('is empty again once every response has closed: answered, failed, not found, or cut by the client', async () => {
      const { createTestApp } = await import('./support/create-test-app.js');
      const { HttpKernel } = await import('../src/lifecycle/http-kernel.js');
      const { rawRequest } = await import('./support/raw-http.js');
      const app = await createTestApp();
      try {
        await app.listen(0, '127.0.0.1');
        const port = (app.getHttpServer().address() as { port: number }).port;
        const base = `http://127.0.0.1:${port}`;
        await Promise.all(Array.from({ length: 20 }, (_, i) => request(base).get(`/?n=${i}`).expect(200)));
        await request(base).get('/no-such-page').expect(404);
        await request(base).post('/cart/add').send('{broken').set('Content-Type', 'application/json');
        await rawRequest(
          port,
          'POST /cart/add HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"cut',
          { timeoutMs: 300 },
        );
        await sleep(200);
        const kernel = app.get(HttpKernel) as unknown as { inFlight: Set<unknown> };
        expect(kernel.inFlight.size).toBe(0);
      } finally {
        await app.close();
      }
    });
  });

  /** A profile store file of the current schema, created by the application's own storage (opened and closed). */
  async function createStore(file: string): Promise<void> {
    const { SqliteProfilerStorage } = await import('../src/profiler/storage/sqlite/sqlite-profiler.storage.js');
    const storage = new SqliteProfilerStorage({ file });
    await storage.open();
    await storage.close();
  }
});
