// Shopkernel's HTTP benchmark (issues 7 and 45): every target of bench/lib/targets.mjs (bare NestJS with and without
// OpenTelemetry, bench/floor's levels 0, 3 and 5, the application off, traced by OpenTelemetry and profiled) in the
// same rounds (each once a round, the order reversed every other round), on loopback, loaded by autocannon in this
// process pinned to another core than the servers. Each run's CPU µs a request comes from its server's CPU time.
// Prints one table and a verdict per target of issue 45, and writes BENCHMARKS.md.
//
//   npm run bench                  quick: 3 rounds of 1.2 s a run, memory over 6,000 requests (< 5 min)
//   npm run bench -- --full        5 rounds of 10 s, memory over 100,000 requests, CPU profiles of the targeted
//                                  scenarios (npm run bench:full)
// Options: --rounds=N --duration=S --warmup=S --warmup-requests=N --prewarm=S --connections=N --memory=N (requests) --no-build --no-write
//          --out=FILE (default BENCHMARKS.md) --cpu-prof (profile the targeted scenarios in quick mode too)
//          --no-cpu-prof --store-scale (full mode: also run bench/store-scale.mjs and paste its output)
//          --profile=<scenario>[,…] only CPU-profile those scenarios (--cpu-prof-seconds=S) and print the summaries
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  copyFileSync,
} from 'node:fs';
import os from 'node:os';
import { join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { formatSummary, summarise } from './lib/cpuprofile-summary.mjs';
import { appEnv, appNodeArgs } from './lib/app-env.mjs';

/** Node's options for the application, as its start commands pass them (nest-cli.json's `exec`). */
const APP_NODE_ARGS = appNodeArgs();
import { cpuMicros } from './lib/cpu-time.mjs';
import { load as runLoad } from './lib/load.mjs';
import { consoleTable, markdownTable, markdownVerdicts } from './lib/results-table.mjs';
import { get, getText, HTML, serverStarter, vmRssKb } from './lib/servers.mjs';
import { MEASURES, NOT_FOUND_PATH, verdicts as judge } from './lib/targets.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name, fallback) => {
  const hit = argv.find((a) => a.startsWith(`--${name}=`));
  return hit === undefined ? fallback : hit.slice(name.length + 3);
};

const FULL = flag('full');
const MODE = FULL ? 'full' : 'quick';
const CONFIG = {
  rounds: Number(option('rounds', FULL ? 5 : 3)),
  duration: Number(option('duration', FULL ? 10 : 1.2)),
  warmup: Number(option('warmup', FULL ? 5 : 0.5)),
  prewarm: Number(option('prewarm', FULL ? 2 : 0)),
  warmupRequests: Number(option('warmup-requests', FULL ? 0 : 4_000)), // full mode: 5 s per scenario is plenty
  connections: Number(option('connections', 10)),
  memoryRequests: Number(option('memory', FULL ? 100_000 : 6_000)),
  memoryStep: FULL ? 10_000 : 2_000,
  cpuProf: flag('no-cpu-prof') ? false : FULL || flag('cpu-prof'),
  cpuProfSeconds: Number(option('cpu-prof-seconds', FULL ? 20 : 8)),
  build: !flag('no-build'),
  write: !flag('no-write'),
  out: resolve(ROOT, option('out', 'BENCHMARKS.md')),
  storeScale: flag('store-scale'),
};
if (CONFIG.rounds < 3 && !flag('allow-few-rounds'))
  throw new Error('At least 3 rounds (A B A B …): --rounds=3 or more');

const started = new Date();
const log = (message) =>
  process.stderr.write(`[bench ${((Date.now() - started.getTime()) / 1000).toFixed(0).padStart(3)}s] ${message}\n`);

// ---------------------------------------------------------------------------------------------------------------
// The machine, and where each process runs

const CPUS = os.availableParallelism?.() ?? os.cpus().length;
const HAS_TASKSET = process.platform === 'linux' && spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
const PINNED = HAS_TASKSET && CPUS >= 2;
const SERVER_CPU = CPUS - 1; // the servers (one at a time is loaded)
const LOAD_CPU = 0; // autocannon, in this process
if (PINNED) spawnSync('taskset', ['-a', '-p', '-c', String(LOAD_CPU), String(process.pid)], { stdio: 'ignore' });

// ---------------------------------------------------------------------------------------------------------------
// Building

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function build() {
  const appBuilt =
    existsSync(join(ROOT, 'dist/main.js')) &&
    statSync(join(ROOT, 'dist/main.js')).mtimeMs >= newestMtime(join(ROOT, 'src'));
  if (!CONFIG.build) log('--no-build: using dist/ as it is');
  else if (appBuilt && !FULL) log('dist/ is newer than src/: application build skipped (the full mode always builds)');
  else {
    log('building the application (npm run build)…');
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  // The bare NestJS baseline and the floor (bench/floor): small TypeScript projects of their own.
  for (const dir of ['bench/baseline', 'bench/floor']) {
    const built =
      existsSync(join(ROOT, dir, 'dist/main.js')) &&
      statSync(join(ROOT, dir, 'dist/main.js')).mtimeMs >= newestMtime(join(ROOT, dir, 'src'));
    if (built && !(CONFIG.build && FULL)) continue;
    log(`building ${dir} (tsc -p ${dir})…`);
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, dir, 'tsconfig.json')],
      { cwd: ROOT, stdio: 'inherit' },
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Servers

const TMP = mkdtempSync(join(os.tmpdir(), 'shopkernel-bench-'));
const { startServer, killAll } = serverStarter({ root: ROOT, cpu: SERVER_CPU, pinned: PINNED });

const SHOWN_ENV = {
  off: 'APP_ENV=prod APP_DEBUG=0 PROFILER_ENABLED=0 VIEW_CACHE=1 NODE_ENV=production LOG_LEVEL=none',
  profiled:
    'APP_ENV=dev APP_DEBUG=1 PROFILER_ENABLED=1 VIEW_CACHE=1 NODE_ENV=production LOG_LEVEL=none PROFILER_DSN=sqlite:<tmp>/profiler.sqlite DATABASE_URL=sqlite:<tmp>/shop.sqlite',
};

// ---------------------------------------------------------------------------------------------------------------
// Load

/** autocannon in this process, which runs on LOAD_CPU (pinned at start), the servers on SERVER_CPU. */
function load(spec) {
  return runLoad({ connections: CONFIG.connections, ...spec });
}

/** The measures this run takes (a quick run skips the `fullOnly` ones). */
const RUN_MEASURES = MEASURES.filter((m) => FULL || !m.fullOnly);
/** The measures --profile may name: the application's own servers (a CPU profile starts one afresh). */
const PROFILABLE = MEASURES.filter((m) => m.server === 'off' || m.server === 'profiled');
/** After each run, before its server's CPU time is read: what it writes after its responses belongs to the run. */
const SETTLE_MS = 300;
/** The measures the full mode (or --cpu-prof) CPU-profiles: the profiled app's targets. */
const CPU_PROFILED = ['static-profiled', 'debug-404', 'catalogue'];

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** A fresh token of the profiled server (retention may remove old ones during long runs). */
async function freshToken(server) {
  const response = await get(`${server.base}/`);
  const token = response.headers['x-debug-token'];
  if (!token) throw new Error('the profiled server sent no X-Debug-Token');
  await sleep(400); // PROFILER_FLUSH_INTERVAL_MS (100) and the write
  const check = await get(`${server.base}/_profiler/${token}?panel=request`);
  if (check.status !== 200) throw new Error(`profile ${token} answered ${check.status}`);
  return token;
}

function checkStatuses(what, result, expected) {
  const unexpected = Object.entries(result.statuses).filter(([code]) => Number(code) !== expected);
  const problems = [];
  if (unexpected.length) problems.push(`unexpected statuses ${unexpected.map(([c, n]) => `${c}×${n}`).join(', ')}`);
  if (result.errors) problems.push(`${result.errors} errors`);
  if (result.timeouts) problems.push(`${result.timeouts} timeouts`);
  if (problems.length) {
    log(`WARNING ${what}: ${problems.join('; ')}`);
    warnings.push(`${what}: ${problems.join('; ')}`);
  }
}
const warnings = [];

// ---------------------------------------------------------------------------------------------------------------
// Throughput rounds

async function throughput(servers) {
  const ctx = { token: await freshToken(servers.profiled) };
  const specOf = (m) => ({ ...m, path: typeof m.path === 'function' ? m.path(ctx) : m.path });
  // One run of a measure: its server's CPU time is read around the load and the settling after it (the profiles and
  // the floor's batches are written after the responses, and belong to these requests), every thread counted.
  const run = async (m, what, seconds, amount) => {
    const server = servers[m.server];
    const cpuBefore = cpuMicros(server.pid);
    const result = await load({
      url: `${server.base}${specOf(m).path}`,
      headers: HTML,
      ...(amount ? { amount } : { duration: seconds }),
    });
    checkStatuses(what, result, m.status);
    await sleep(SETTLE_MS);
    // The profiled server: wait until no profile is waiting, so that this run's writes do not slow the next run (on
    // the same core), and count how long they took.
    if (server === servers.profiled) Object.assign(result, await drain(server));
    result.cpu = (cpuMicros(server.pid) - cpuBefore) / result.requests;
    return result;
  };

  // Warm-up: each measure for CONFIG.warmup seconds, then each server up to CONFIG.warmupRequests requests: without
  // a count, a server with one measure would still be reaching its optimised code during the first rounds.
  log(
    `warm-up: ${CONFIG.warmup} s per target${CONFIG.warmupRequests > 0 ? `, at least ${CONFIG.warmupRequests.toLocaleString('en')} requests per server` : ''}`,
  );
  const warmed = new Map();
  for (const m of RUN_MEASURES) {
    const r = await run(m, `warm-up ${m.id}`, CONFIG.warmup);
    warmed.set(m.server, (warmed.get(m.server) ?? 0) + r.requests);
  }
  for (const [key, count] of warmed) {
    const missing = CONFIG.warmupRequests - count;
    if (missing > 0)
      await run(
        RUN_MEASURES.find((m) => m.server === key),
        `warm-up ${key}`,
        0,
        missing,
      );
  }

  const results = Object.fromEntries(RUN_MEASURES.map((m) => [m.id, []]));
  for (let round = 1; round <= CONFIG.rounds; round++) {
    ctx.token = await freshToken(servers.profiled);
    // Every target once a round, in the reverse order every other round, so that none always goes first.
    const steps = round % 2 === 0 ? [...RUN_MEASURES].reverse() : RUN_MEASURES;
    for (const m of steps) {
      // A measure that names a profile gets one written just now: the runs before it in the round may have stored
      // enough profiles for retention (PROFILER_MAX_PROFILES) to remove the round's first token.
      if (typeof m.path === 'function') ctx.token = await freshToken(servers.profiled);
      // A short unmeasured run first: a server that sat idle while the others were measured gets its heap and
      // code back to a loaded state before its measured run.
      if (CONFIG.prewarm > 0) await run(m, `round ${round} pre-warm ${m.id}`, CONFIG.prewarm);
      const r = await run(m, `round ${round} ${m.id}`, CONFIG.duration);
      results[m.id].push(r);
      log(
        `round ${round}/${CONFIG.rounds} ${m.id.padEnd(16)} ${r.rps.toFixed(0).padStart(6)} req/s  p99 ${r.p99.toFixed(2)} ms  ${r.cpu.toFixed(0).padStart(5)} CPU µs/req${r.drainSeconds !== undefined ? `  (${r.pendingAtEnd} profiles waiting at the end, written in ${r.drainSeconds.toFixed(1)} s more; ${r.dropped} dropped so far)` : ''}`,
      );
    }
  }
  return results;
}

/** Each measure's medians over the rounds, and its ratios to bare NestJS's same request. */
function tabulate(results) {
  const rows = RUN_MEASURES.map((m) => {
    const runs = results[m.id];
    const row = {
      measure: m,
      rps: median(runs.map((r) => r.rps)),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      cpu: median(runs.map((r) => r.cpu)),
      cpuRounds: runs.map((r) => r.cpu),
      bytes: median(runs.map((r) => r.bytesPerRequest)),
    };
    // Profiled measures: req/s counting the time the profiles of the run took to be written after it (sustained).
    if (runs.every((r) => r.drainSeconds !== undefined)) {
      row.sustainedRps = median(runs.map((r) => r.requests / (r.seconds + r.drainSeconds)));
      row.pendingAtEnd = median(runs.map((r) => r.pendingAtEnd));
      row.drainSeconds = median(runs.map((r) => r.drainSeconds));
      row.dropped = Math.max(...runs.map((r) => r.dropped));
    }
    return row;
  });
  const byId = Object.fromEntries(rows.map((r) => [r.measure.id, r]));
  for (const r of rows) {
    r.rpsRatio = r.rps / byId[r.measure.ref].rps;
    r.cpuRatio = r.cpu / byId[r.measure.ref].cpu;
  }
  return { rows, byId };
}

// ---------------------------------------------------------------------------------------------------------------
// Memory: one fresh profiled server, N requests in steps; after each step a full GC (node --expose-gc, asked over
// IPC by bench/lib/memory-probe.mjs) then heap from process.memoryUsage() and RSS from /proc/<pid>/status.

const MEMORY_MIX = [
  ...Array.from({ length: 8 }, () => ({ method: 'GET', path: '/', headers: HTML })),
  { method: 'GET', path: '/products?page=2', headers: HTML },
  { method: 'GET', path: NOT_FOUND_PATH, headers: HTML },
];

/**
 * Between two looks at the search page's figures. Each look is a profiled page view, which the profiler's pages
 * leave to its batch (written within PROFILER_FLUSH_INTERVAL_MS, 100 ms, after the late collectors' 20 ms): a look
 * sooner than that would always find the one before it still waiting.
 */
const STATS_POLL_MS = 250;

/**
 * Waits (at most 120 s) until the profiled server's write buffer is empty. `drainSeconds`: how long its profiles
 * kept being written after the load stopped; `pendingAtEnd`: how many were waiting then; `dropped`: since start.
 */
async function drain(server) {
  const started = performance.now();
  const first = await storeStats(server);
  let stats = first;
  const deadline = Date.now() + 120_000;
  while (stats.pending > 0 && Date.now() < deadline) {
    await sleep(STATS_POLL_MS);
    stats = await storeStats(server);
  }
  return {
    pendingAtEnd: first.pending,
    drainSeconds: first.pending > 0 ? (performance.now() - started) / 1000 : 0,
    dropped: stats.dropped,
    stillPending: stats.pending,
  };
}

/** The profile store's figures from the search page: stored, waiting to be written, dropped since start. */
async function storeStats(server) {
  const html = await getText(`${server.base}/_profiler/search?limit=10`);
  const number = (re) => Number((re.exec(html)?.[1] ?? '0').replace(/[^\d]/g, ''));
  return {
    // Counted up to 10,000: "10,000+ profiles stored" beyond, kept as that text.
    stored: /([\d,.\u202f]+\+) profiles stored/.exec(html)?.[1] ?? number(/([\d,.\u202f]+) profiles stored/),
    pending: number(/([\d,.\u202f]+) waiting to be written/),
    dropped: number(/([\d,.\u202f]+) dropped since start/),
  };
}

async function memory() {
  const varDir = join(TMP, 'memory');
  const server = await startServer('memory', {
    script: 'dist/main.js',
    env: appEnv('profiled', varDir),
    nodeArgs: [...APP_NODE_ARGS, '--expose-gc', '--import', join(ROOT, 'bench/lib/memory-probe.mjs')],
    ipc: true,
  });
  const samples = [];
  const measure = async () => {
    const { memory: m } = await server.ask('memory');
    return {
      rss: vmRssKb(server.pid) * 1024,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
    };
  };
  const sample = async (requests) => {
    // Right after the step (a full GC first): what the process holds under load, profiles waiting to be written
    // included; then, once the write buffer is empty (at most 60 s), the settled figures.
    const loaded = await measure();
    const atEnd = await storeStats(server);
    let stats = atEnd;
    const deadline = Date.now() + 60_000;
    while (stats.pending > 0 && Date.now() < deadline) {
      await sleep(500);
      stats = await storeStats(server);
    }
    // Settled also means the store's background work is over: worker threads beyond the WAL checkpointer are
    // waited for.
    while ((await server.ask('memory')).workers > baseWorkers && Date.now() < deadline + 15_000) await sleep(500);
    await sleep(300);
    const settled = await measure();
    samples.push({
      requests,
      loaded,
      settled,
      pendingAtEnd: atEnd.pending,
      stored: stats.stored,
      dropped: stats.dropped,
      pendingSettled: stats.pending,
    });
    log(
      `memory after ${requests.toLocaleString('en')} requests: ${atEnd.pending} profiles waiting; loaded RSS ${(loaded.rss / 2 ** 20).toFixed(1)} MB, heap ${(loaded.heapUsed / 2 ** 20).toFixed(1)} MB; settled RSS ${(settled.rss / 2 ** 20).toFixed(1)} MB, heap ${(settled.heapUsed / 2 ** 20).toFixed(1)} MB; ${stats.stored} stored, ${stats.dropped} dropped`,
    );
  };
  // The workers that always run (the store's WAL checkpointer).
  const baseWorkers = (await server.ask('memory')).workers;
  try {
    await sample(0);
    let done = 0;
    while (done < CONFIG.memoryRequests) {
      const amount = Math.min(CONFIG.memoryStep, CONFIG.memoryRequests - done);
      const r = await load({ url: `${server.base}/`, requests: MEMORY_MIX, amount });
      const bad = Object.entries(r.statuses).filter(([code]) => !['200', '404'].includes(code));
      if (bad.length || r.errors)
        warnings.push(`memory step at ${done}: ${JSON.stringify(r.statuses)} errors ${r.errors}`);
      done += r.requests;
      await sample(done);
    }
  } finally {
    await server.stop();
  }
  // From the 10,000th request; a quick run that stops earlier counts from its middle sample.
  const from =
    samples.find((x) => x.requests >= 10_000 && x !== samples.at(-1)) ?? samples[Math.floor(samples.length / 2)];
  const last = samples.at(-1);
  return {
    samples,
    from,
    last,
    rssGrowth: last.settled.rss - from.settled.rss,
    heapGrowth: last.settled.heapUsed - from.settled.heapUsed,
    loadedRssGrowth: last.loaded.rss - from.loaded.rss,
    loadedHeapGrowth: last.loaded.heapUsed - from.loaded.heapUsed,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// CPU profiles: a fresh server under `node --cpu-prof`, warmed, loaded for a while; only the samples of the loaded
// window are summarised (the probe marks its start and end on the profile's clock).

async function cpuProfile(scenario) {
  const dir = join(TMP, `cpu-${scenario.id}`);
  const kind = scenario.server;
  const server = await startServer(`cpu-prof ${scenario.id}`, {
    script: 'dist/main.js',
    env: appEnv(kind, join(TMP, `cpu-var-${scenario.id}`)),
    nodeArgs: [
      ...APP_NODE_ARGS,
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      '--import',
      join(ROOT, 'bench/lib/memory-probe.mjs'),
    ],
    ipc: true,
  });
  const ctx = kind === 'profiled' ? { token: await freshToken(server) } : {};
  const path = typeof scenario.path === 'function' ? scenario.path(ctx) : scenario.path;
  await load({ url: `${server.base}${path}`, headers: HTML, duration: 3 });
  const since = (await server.ask('mark')).micros;
  const result = await load({ url: `${server.base}${path}`, headers: HTML, duration: CONFIG.cpuProfSeconds });
  const until = (await server.ask('mark')).micros;
  await server.ask('exit');
  await server.exited;
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile written in ${dir}`);
  const keep = join(ROOT, 'bench/results');
  mkdirSync(keep, { recursive: true });
  const kept = join(keep, `${scenario.id}.cpuprofile`);
  copyFileSync(join(dir, file), kept);
  writeFileSync(
    kept.replace(/\.cpuprofile$/, '.window.json'),
    `${JSON.stringify({ since, until, requests: result.requests })}\n`,
  );
  const summary = summarise(JSON.parse(readFileSync(kept, 'utf8')), { since, until, top: 20 });
  log(
    `CPU profile of ${scenario.id}: ${result.rps.toFixed(0)} req/s under the profiler, kept in ${relative(ROOT, kept)}`,
  );
  return { scenario, summary, file: relative(ROOT, kept), rps: result.rps };
}

// ---------------------------------------------------------------------------------------------------------------
// Report

// A figure the page gives as text ("10,000+", a capped count) is printed as it is.
const fmt = (n, digits = 0) =>
  typeof n === 'string'
    ? n
    : Number.isFinite(n)
      ? n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })
      : '–';
const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const signedMb = (bytes) => `${bytes >= 0 ? '+' : '−'}${(Math.abs(bytes) / 2 ** 20).toFixed(1)} MB`;

/** Sections of an existing BENCHMARKS.md that people write (analysis) or another bench fills (store at scale). */
function keptSection(existing, name) {
  const m = new RegExp(`<!-- ${name}:start -->([\\s\\S]*?)<!-- ${name}:end -->`).exec(existing);
  return m ? m[1].trim() : null;
}

function machine() {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
  return {
    cpu,
    cores: CPUS,
    load,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
  };
}

function writeReport({ rows, verdicts, mem, profiles, storeScale, loadBefore, loadAfter, wallSeconds }) {
  const existing = existsSync(CONFIG.out) ? readFileSync(CONFIG.out, 'utf8') : '';
  const m = machine();
  const analysis =
    keptSection(existing, 'analysis') ??
    '_Nothing written yet: what the figures and profiles mean, and what would close each missed target._';
  const store =
    storeScale ??
    keptSection(existing, 'store-scale') ??
    [
      "_Not run by `npm run bench`: bench/store-scale.mjs (1,000,000 profiles, several minutes) belongs to the store's",
      'owner. Run `npm run build && node bench/store-scale.mjs` and paste its output here, or `npm run bench -- --full',
      '--store-scale`, which runs it and pastes it._',
    ].join('\n');
  const cmd = `npm run bench${FULL ? ' -- --full' : ''}`;
  const busy = Number(loadBefore.split(',')[0]) > 0.5 || Number(loadAfter.split(',')[0]) > 2.5;
  const out = [];
  out.push('# Benchmarks');
  out.push('');
  out.push(
    'Generated by `bench/run.mjs` (issues 7 and 45). The tables and figures below are rewritten by every run; the sections between',
  );
  out.push('`<!-- … -->` markers (analysis, store at scale) are kept.');
  out.push('');
  out.push('## Run');
  out.push('');
  out.push(`- Date: ${started.toISOString()} (${MODE} mode, ${fmt(wallSeconds)} s wall)`);
  out.push(`- Node ${process.version}, ${m.os}; ${m.cpu}, ${m.cores} cores, ${m.memory}`);
  out.push(
    `- Load average (1, 5, 15 min) before: ${loadBefore}; after: ${loadAfter}.${busy ? ' **The machine was not idle** (load average above 0.5 before or 2.5 after: other work on the machine, or what ran just before): absolute figures are noisier; the ratios come from baseline and application runs alternated within each round.' : ''}`,
  );
  out.push(`- Command: \`${cmd}\`${argv.length ? ` (arguments: \`${argv.join(' ')}\`)` : ''}`);
  out.push(
    `- Load: autocannon ${autocannonVersion()} in the bench's own process, ${CONFIG.connections} connections, no pipelining, ${CONFIG.duration} s a run, ${CONFIG.rounds} rounds (every target once a round, order reversed every other round), ${CONFIG.warmup} s warm-up per target at start${CONFIG.warmupRequests > 0 ? ` (at least ${CONFIG.warmupRequests.toLocaleString('en')} requests per server)` : ''} and ${CONFIG.prewarm} s unmeasured just before each measured run; latencies are every response's time (all statuses).`,
  );
  out.push(
    `- Pinning: ${PINNED ? `servers on CPU ${SERVER_CPU}, load generator on CPU ${LOAD_CPU} (taskset)` : 'none (taskset or a second core missing)'}.`,
  );
  out.push(
    "- Baseline: `bench/baseline` (a bare NestJS 12 app, platform-express, one controller answering `/` with a copy of the shop's home page, Nest's default 404 elsewhere), `node bench/baseline/dist/main.js`.",
  );
  out.push(
    `- Application: \`node ${[...APP_NODE_ARGS, 'dist/main.js'].join(' ')}\` (\`npm run build\`; Node's options are nest-cli.json's \`exec\`, as \`npm start\` and \`npm run start:prod\` pass them), fresh \`VAR_DIR\` in a temporary directory (the demo catalogue is loaded at start in dev).`,
  );
  out.push(`  - profiler off: \`${SHOWN_ENV.off}\``);
  out.push(
    '  - app-otel: the profiler-off environment, with `node --import ./bench/otel/preload.mjs` (OpenTelemetry Node SDK: http, express and nestjs-core instrumentations, a BatchSpanProcessor writing JSON lines to a temporary file); baseline-otel: the same preload on bench/baseline',
  );
  out.push(
    '  - floor: `node bench/floor/dist/main.js` with `FLOOR_LEVEL` 0, 3 or 5 (see bench/floor/src/main.ts) and a temporary `FLOOR_DB`',
  );
  out.push(
    `  - profiled: \`${SHOWN_ENV.profiled}\` (one process serves every profiled scenario; the store grows during the run)`,
  );
  out.push(
    "  - `VIEW_CACHE=1`: compiled templates are kept in memory (the default outside APP_ENV=dev); `NODE_ENV=production` turns Express's view cache on in builds that do not read VIEW_CACHE yet.",
  );
  out.push('- Requests send `Accept: text/html`; the 404 path is `' + NOT_FOUND_PATH + '`.');
  out.push('');
  out.push('## Targets, one run (medians over the rounds)');
  out.push('');
  out.push(
    "CPU µs a request: the server process's CPU time (utime + stime from `/proc/<pid>/stat`, every thread) over a measured run and the settling after it, divided by the run's responses; the profiled server's settling includes the few search-page requests that wait until its profiles are written. Ratios are to bare NestJS's same request (its `/` or its 404). Targets of issue 45:",
  );
  out.push('');
  out.push(markdownVerdicts(verdicts));
  out.push('');
  out.push(markdownTable(rows));
  out.push('');
  const profiledRows = rows.filter((r) => r.sustainedRps !== undefined);
  if (profiledRows.length) {
    out.push(
      'Profiled measures: the profiles are written after the responses (ProfileWriteBuffer: JSON, zstd and SQLite), so a run may end with',
    );
    out.push(
      'profiles still waiting; the bench waits until they are written before the next run. "Sustained" counts that time',
    );
    out.push(
      '(requests ÷ (run + time to write the rest)): what the server keeps up with when every request is stored.',
    );
    out.push('');
    out.push(
      '| target | req/s during the run | sustained req/s | waiting at the end of a run | written in | dropped |',
    );
    out.push('|---|---:|---:|---:|---:|---:|');
    for (const r of profiledRows)
      out.push(
        `| ${r.measure.id} | ${fmt(r.rps)} | ${fmt(r.sustainedRps)} | ${fmt(r.pendingAtEnd)} | ${fmt(r.drainSeconds, 1)} s | ${fmt(r.dropped)} |`,
      );
    out.push('');
  }
  out.push(
    `Bytes per response (headers included): ${rows.map((r) => `${r.measure.id} ${fmt(r.bytes)} B`).join('; ')}.`,
  );
  out.push('');
  if (warnings.length) {
    out.push('Warnings during the run:');
    out.push('');
    for (const w of warnings) out.push(`- ${w}`);
    out.push('');
  }
  out.push('## Memory');
  out.push('');
  if (mem) {
    out.push(
      `A fresh profiled server (\`node ${[...APP_NODE_ARGS, '--expose-gc --import ./bench/lib/memory-probe.mjs dist/main.js'].join(' ')}\`, same environment as above), ${fmt(mem.last.requests)} requests`,
    );
    out.push(
      `in steps of ${fmt(CONFIG.memoryStep)} (on each connection in turn: \`/\` eight times, \`/products?page=2\`, the unmatched path; ${CONFIG.connections} connections).`,
    );
    out.push(
      'After each step a full GC, then heap from `process.memoryUsage()` (asked over IPC) and RSS from `/proc/<pid>/status`: "loaded" right',
    );
    out.push(
      'after the step, with the profiles still waiting in the write buffer; "settled" once the search page reports none waiting (at most 60 s) and no worker thread beyond the store\'s WAL checkpointer runs (at most 15 s more).',
    );
    out.push('');
    out.push(
      '| requests | waiting at step end | stored | dropped | RSS loaded | heap used loaded | RSS settled | heap used settled | heap total settled | external settled |',
    );
    out.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const x of mem.samples)
      out.push(
        `| ${fmt(x.requests)} | ${fmt(x.pendingAtEnd)} | ${fmt(x.stored)} | ${fmt(x.dropped)} | ${mb(x.loaded.rss)} | ${mb(x.loaded.heapUsed)} | ${mb(x.settled.rss)} | ${mb(x.settled.heapUsed)} | ${mb(x.settled.heapTotal)} | ${mb(x.settled.external)} |`,
      );
    out.push('');
    out.push(
      `Growth from request ${fmt(mem.from.requests)} to ${fmt(mem.last.requests)}, settled: RSS ${signedMb(mem.rssGrowth)}, heap used ${signedMb(mem.heapGrowth)}; loaded: RSS ${signedMb(mem.loadedRssGrowth)}, heap used ${signedMb(mem.loadedHeapGrowth)}. (The targets, settled figures: see above.)${mem.last.requests < 100_000 ? ` (${MODE} mode: ${fmt(mem.last.requests)} requests, not the 100,000 of the target; see the full run.)` : ''}`,
    );
  } else out.push('_Not measured in this run._');
  out.push('');
  out.push('## Where the time goes (CPU profiles)');
  out.push('');
  if (profiles.length) {
    out.push(
      `Each: a fresh server under \`node --cpu-prof\`, 3 s warm-up, then ${CONFIG.cpuProfSeconds} s of the scenario's load; only the loaded window`,
    );
    out.push(
      'is summarised (`node bench/lib/cpuprofile-summary.mjs bench/results/<scenario>.cpuprofile` reads the window from the `.window.json` beside it). Self time as a share of the busy time;',
    );
    out.push(
      'dist/ frames mapped to src/ through the source maps. The profiles are kept in `bench/results/` (git-ignored; open them in Chrome DevTools).',
    );
    for (const p of profiles) {
      out.push('');
      out.push(`### ${p.scenario.label}`);
      out.push('');
      out.push(`${fmt(p.rps)} req/s under the profiler; \`${p.file}\`.`);
      out.push('');
      out.push(formatSummary(p.summary, { compact: true }));
    }
  } else out.push(`_No CPU profile in this run (${MODE} mode; \`--cpu-prof\` adds them)._`);
  out.push('');
  out.push('## Analysis');
  out.push('');
  out.push('<!-- analysis:start -->');
  out.push(analysis);
  out.push('<!-- analysis:end -->');
  out.push('');
  out.push('## Store at scale');
  out.push('');
  out.push('<!-- store-scale:start -->');
  out.push(store);
  out.push('<!-- store-scale:end -->');
  out.push('');
  writeFileSync(CONFIG.out, out.join('\n'));
  log(`wrote ${relative(ROOT, CONFIG.out)}`);
}

function autocannonVersion() {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules/autocannon/package.json'), 'utf8')).version;
}

// ---------------------------------------------------------------------------------------------------------------

async function main() {
  const only = option('profile', null);
  if (only) {
    // --profile=<id>[,<id>…]: only the CPU profiles of those scenarios, printed (BENCHMARKS.md untouched).
    build();
    for (const id of only.split(',')) {
      const scenario = PROFILABLE.find((s) => s.id === id);
      if (!scenario) throw new Error(`no scenario ${id} (${PROFILABLE.map((s) => s.id).join(', ')})`);
      const p = await cpuProfile(scenario);
      process.stdout.write(
        `\n## ${scenario.label}\n\n${fmt(p.rps)} req/s under the profiler; ${p.file}\n\n${formatSummary(p.summary)}\n`,
      );
    }
    return;
  }
  const loadBefore = machine().load;
  log(
    `${MODE} mode: ${CONFIG.rounds} rounds × ${CONFIG.duration} s, ${CONFIG.connections} connections; ${PINNED ? `servers on CPU ${SERVER_CPU}, load on CPU ${LOAD_CPU}` : 'no pinning'}; tmp ${TMP}`,
  );
  build();
  const servers = {};
  let rows;
  let byId;
  try {
    log('starting the servers: bare NestJS (with and without OpenTelemetry), the floor, the application…');
    const otel = (name) => ({
      nodeArgs: ['--import', join(ROOT, 'bench/otel/preload.mjs')],
      env: { OTEL_BENCH_FILE: join(TMP, `${name}-spans.jsonl`) },
    });
    const floor = (level) => ({
      script: 'bench/floor/dist/main.js',
      env: { FLOOR_LEVEL: String(level), FLOOR_DB: join(TMP, `floor-${level}.sqlite`) },
    });
    const specs = {
      baseline: { script: 'bench/baseline/dist/main.js' },
      baselineOtel: { script: 'bench/baseline/dist/main.js', ...otel('baseline') },
      floor0: floor(0),
      floor3: floor(3),
      floor5: floor(5),
      off: { script: 'dist/main.js', nodeArgs: APP_NODE_ARGS, env: appEnv('off', join(TMP, 'off')) },
      appOtel: {
        script: 'dist/main.js',
        nodeArgs: [...APP_NODE_ARGS, ...otel('app').nodeArgs],
        env: { ...appEnv('off', join(TMP, 'app-otel')), ...otel('app').env },
      },
      profiled: { script: 'dist/main.js', nodeArgs: APP_NODE_ARGS, env: appEnv('profiled', join(TMP, 'profiled')) },
    };
    const used = new Set(RUN_MEASURES.map((m) => m.server));
    await Promise.all(
      Object.entries(specs)
        .filter(([key]) => used.has(key))
        .map(async ([key, spec]) => (servers[key] = await startServer(key, spec))),
    );
    ({ rows, byId } = tabulate(await throughput(servers)));
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  }
  log(`memory: ${CONFIG.memoryRequests.toLocaleString('en')} profiled requests…`);
  let mem = null;
  if (CONFIG.memoryRequests > 0) {
    try {
      mem = await memory();
    } catch (error) {
      log(`memory measurement failed: ${error.stack ?? error}`);
      warnings.push(
        `memory measurement failed: ${String(error.message ?? error)
          .split('\n')
          .slice(0, 12)
          .join(' / ')}`,
      );
    }
  }
  const profiles = [];
  if (CONFIG.cpuProf) {
    for (const measure of PROFILABLE.filter((m) => CPU_PROFILED.includes(m.id))) {
      try {
        profiles.push(await cpuProfile(measure));
      } catch (error) {
        log(`CPU profile of ${measure.id} failed: ${error.stack ?? error}`);
        warnings.push(`CPU profile of ${measure.id} failed: ${String(error.message ?? error).split('\n')[0]}`);
      }
    }
  }
  let storeScale = null;
  if (CONFIG.storeScale) {
    log('store at scale: node bench/store-scale.mjs (several minutes)…');
    const r = spawnSync(process.execPath, [join(ROOT, 'bench/store-scale.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    storeScale = `\`node bench/store-scale.mjs\` (exit ${r.status}), run by \`npm run bench -- --full --store-scale\` on ${new Date().toISOString()}:\n\n\`\`\`\n${(r.stdout + (r.status ? r.stderr : '')).trim()}\n\`\`\``;
  }
  const loadAfter = machine().load;
  const wallSeconds = (Date.now() - started.getTime()) / 1000;
  process.stdout.write(
    `\nShopkernel vs bare NestJS 12 (${MODE} mode, ${CONFIG.rounds} rounds × ${CONFIG.duration} s, medians; Node ${process.version}, ${machine().cpu}, ${CPUS} cores)\n\n`,
  );
  const verdicts = judge(byId, mem);
  process.stdout.write(`${consoleTable(rows, verdicts)}\n\n`);
  // A quick run's p99 comes from runs of about a second, where one collection or one slow batch write is the 99th
  // percentile: it has read MISSED where the full run met the target (1.74x against 1.08x, 2026-11-25).
  if (!FULL)
    process.stdout.write(
      `Quick mode: ${CONFIG.rounds} rounds of ${CONFIG.duration} s; the verdicts are rough, the p99 ones especially; the full mode (npm run bench:full) gives the figures to commit.\n\n`,
    );
  if (warnings.length) process.stdout.write(`Warnings:\n${warnings.map((w) => `  - ${w}`).join('\n')}\n\n`);
  if (CONFIG.write) writeReport({ rows, verdicts, mem, profiles, storeScale, loadBefore, loadAfter, wallSeconds });
  log(`done in ${fmt(wallSeconds)} s`);
}

const cleanup = () => {
  killAll();
  rmSync(TMP, { recursive: true, force: true });
};
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exitCode = 1;
});
