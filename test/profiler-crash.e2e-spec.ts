import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { buildApp, loadApp, startApp, type AppProcess, type Sent } from './support/app-process.js';
import { inspectSqliteStore } from './support/sqlite-store.js';

/** PROFILER_FLUSH_INTERVAL_MS of these runs: a profile is written at most this long after its response. */
const INTERVAL_MS = 100;
/**
 * What the write itself may add on top of the interval on this 2-core machine under load (the batch is
 * compressed, then committed in one transaction): a profile whose response arrived earlier than
 * INTERVAL_MS + WRITE_MARGIN_MS before the kill must be in the store.
 */
const WRITE_MARGIN_MS = 400;
const CONCURRENCY = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Lets the load run at least `ms`, and until `responses` have arrived (at most 20 s): the machine may be shared and
 * slow, and the tests need enough profiles in flight and behind them to mean something.
 */
async function underLoad(load: { sent: Sent[] }, ms: number, responses: number): Promise<void> {
  const started = Date.now();
  while ((Date.now() - started < ms || load.sent.length < responses) && Date.now() - started < 20_000) await sleep(50);
}

/**
 * The real application as a process of its own, on a SQLite store file, under load: killed with SIGKILL, its store
 * opens cleanly and holds every profile whose response was sent more than a batch interval (and the write) before
 * the kill; stopped with SIGTERM, it exits 0 with every profile it answered stored, also those of requests in
 * flight at the signal, and a store that fails at that moment is retried for a bounded time only.
 */
describe('Profiler: kill -9 and SIGTERM under load (e2e)', () => {
  let main: string;
  let dir: string;
  const running: AppProcess[] = [];

  beforeAll(() => {
    main = buildApp();
    dir = mkdtempSync(join(tmpdir(), 'shopkernel-crash-'));
  });

  afterAll(() => {
    for (const app of running)
      if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (file: string, env: Record<string, string> = {}) => {
    const app = await startApp(main, {
      PROFILER_DSN: `sqlite:${file}`,
      PROFILER_FLUSH_INTERVAL_MS: String(INTERVAL_MS),
      ...env,
    });
    running.push(app);
    return app;
  };

  it('kill -9 under load: the store passes its integrity check and holds every profile sent more than a batch interval earlier', async () => {
    const file = join(dir, 'killed.sqlite');
    const app = await start(file);
    const load = loadApp(app.port, CONCURRENCY);
    await underLoad(load, 1500, 100);
    const killedAt = Date.now();
    app.child.kill('SIGKILL');
    expect((await app.exited).signal).toBe('SIGKILL');
    await load.stop();

    const { integrity, tokens } = inspectSqliteStore(file);
    expect(integrity).toBe('ok');
    const due = load.sent.filter((s: Sent) => s.at < killedAt - INTERVAL_MS - WRITE_MARGIN_MS);
    expect(due.length).toBeGreaterThan(20);
    expect(
      due.filter((s) => !tokens.has(s.token)).map((s) => `${s.token} (${killedAt - s.at} ms before the kill)`),
    ).toEqual([]);
    expect([...tokens.values()].every((n) => n === 1)).toBe(true);
    const sentTokens = new Set(load.sent.map((s) => s.token));
    // Nothing in the store that no client was sent (a response cut by the kill may still have its profile).
    expect([...tokens.keys()].filter((t) => !sentTokens.has(t)).length).toBeLessThanOrEqual(CONCURRENCY);
    const missing = load.sent.filter((s) => !tokens.has(s.token));
    if (process.env.FAULTS_VERBOSE) {
      const newestMissing = Math.min(...missing.map((s) => killedAt - s.at));
      process.stderr.write(
        `kill -9: ${load.sent.length} responses, ${tokens.size} profiles stored, ${missing.length} missing (the oldest sent ${newestMissing === Infinity ? '-' : Math.max(...missing.map((s) => killedAt - s.at))} ms before the kill), integrity ${integrity}\n`,
      );
    }

    // Started again on that file: it opens, and serves the profiles of before the crash.
    const again = await start(file);
    const base = `http://127.0.0.1:${again.port}`;
    for (const { token } of due.slice(0, 3).concat(due.slice(-3))) {
      const res = await request(base).get(`/_profiler/${token}.json`).expect(200);
      expect(res.body).toMatchObject({ token, statusCode: 200 });
    }
    // The six exports above were profiled too: stored, or still waiting for their batch (the search page does not
    // write the profiler's own pages first).
    const page = await request(base).get('/_profiler/search?limit=10').expect(200);
    // Figures as the page writes them, thousands separated.
    const stats = /([\d,]+) profiles stored \([^)]*\)(?: · ([\d,]+) waiting to be written)?/.exec(page.text);
    expect(stats).not.toBeNull();
    const [stored, waiting] = [stats![1], stats![2] ?? '0'].map((figure) => Number(figure.replace(/,/g, '')));
    expect(stored + waiting).toBe(tokens.size + 6);
    expect(stored).toBeGreaterThanOrEqual(tokens.size);
    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
  });

  it('SIGTERM under load: exits 0 and every profile it answered is stored, those in flight at the signal too', async () => {
    const file = join(dir, 'terminated.sqlite');
    // A long interval: nearly every profile is still in the buffer when the signal comes.
    const app = await start(file, { PROFILER_FLUSH_INTERVAL_MS: '5000' });
    const load = loadApp(app.port, CONCURRENCY);
    await underLoad(load, 1000, 60);
    const signalledAt = Date.now();
    app.child.kill('SIGTERM');
    const exit = await app.exited;
    await load.stop();
    expect(exit).toEqual({ code: 0, signal: null });
    const { integrity, tokens } = inspectSqliteStore(file);
    expect(integrity).toBe('ok');
    expect(load.sent.length).toBeGreaterThanOrEqual(60);
    expect(load.sent.filter((s) => !tokens.has(s.token)).map((s) => s.token)).toEqual([]);
    expect(tokens.size).toBe(load.sent.length);
    // Responses that arrived after the signal: their requests were in flight, and their profiles are stored.
    if (process.env.FAULTS_VERBOSE) {
      process.stderr.write(
        `SIGTERM: ${load.sent.length} responses (${load.sent.filter((s) => s.at >= signalledAt).length} after the signal), ${tokens.size} stored\n`,
      );
    }
  });

  it('SIGTERM while the store is locked: retries until the lock goes, within PROFILER_SHUTDOWN_TIMEOUT_MS, and stores everything', async () => {
    const file = join(dir, 'locked-at-exit.sqlite');
    const app = await start(file, { PROFILER_FLUSH_INTERVAL_MS: '5000', PROFILER_SHUTDOWN_TIMEOUT_MS: '10000' });
    const base = `http://127.0.0.1:${app.port}`;
    const tokens: string[] = [];
    for (let i = 0; i < 20; i++)
      tokens.push((await request(base).get(`/?locked=${i}`).expect(200)).headers['x-debug-token']);
    const locker = new Database(file);
    locker.exec('BEGIN EXCLUSIVE');
    app.child.kill('SIGTERM');
    await sleep(800);
    expect(app.child.exitCode).toBeNull(); // still retrying
    locker.exec('COMMIT');
    locker.close();
    expect(await app.exited).toEqual({ code: 0, signal: null });
    const stored = inspectSqliteStore(file).tokens;
    expect(tokens.filter((t) => stored.get(t) !== 1)).toEqual([]);
  });

  it('SIGTERM while the store stays locked: gives up after PROFILER_SHUTDOWN_TIMEOUT_MS, says how many were lost, exits', async () => {
    const file = join(dir, 'lost-at-exit.sqlite');
    const app = await start(file, {
      PROFILER_FLUSH_INTERVAL_MS: '5000',
      PROFILER_SHUTDOWN_TIMEOUT_MS: '1000',
      LOG_LEVEL: 'critical',
    });
    const base = `http://127.0.0.1:${app.port}`;
    for (let i = 0; i < 12; i++) await request(base).get(`/?lost=${i}`).expect(200);
    const locker = new Database(file);
    locker.exec('BEGIN EXCLUSIVE');
    try {
      app.child.kill('SIGTERM');
      expect(await app.exited).toEqual({ code: 0, signal: null });
    } finally {
      locker.exec('COMMIT');
      locker.close();
    }
    expect(app.output()).toMatch(/12 profile\(s\) were lost at shutdown: the store did not take them within 1000 ms\./);
    expect(inspectSqliteStore(file).tokens.size).toBe(0);
  });
});
