// Instructions executed per request, counted by valgrind's callgrind in a loaded server (every thread: the request,
// the store's writes, the GC's helpers): the same figure on a busy machine as on a quiet one, for A/Bs of changes
// smaller than the noise of CPU time (cpu-per-request.mjs). Each build runs under callgrind with instrumentation off
// while it warms up, then on for the measured requests; both builds are loaded at the same time.
//
//   node bench/instructions-per-request.mjs --compare=dist-before [--scenarios=static-profiled,catalogue,debug-404]
//     [--warmup=10000] [--requests=8000] [--rounds=2]
//   (the scenarios of cpu-per-request.mjs, without the baseline, and floor-0, floor-3, floor-5: bench/floor's levels,
//   one server whatever --compare says; build first: npm run build, and the floor as bench/run.mjs does; needs valgrind)
//   --keep: leave the callgrind files (one per build and round) for callgrind_annotate.
//   --scenarios=targets: every scenario issue 45's CPU targets compare, and those ratios in instructions.
//
// "GC" is the instructions of V8's collectors (scavenges, marking, sweeping), which move with what a request keeps
// alive. Rounds repeat the measure on the same servers. A round's figure moves by a few per cent with the
// mark-compacts and WAL checkpoints that fall in it: fewer requests than the default make that worse. Timers keep
// real time while the code runs far slower, so a write batch holds fewer profiles than under real load: the store's
// cost per batch weighs more here, and fewer profiles outlive a scavenge. Compare builds, not these with CPU time.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { appEnv, appNodeArgs, cleanEnv } from './lib/app-env.mjs';
import { load } from './lib/load.mjs';
import { arg, SCENARIO_PLAN, urlOf } from './lib/tool-setup.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
/** bench/floor's levels: the server, and the path the targets load it with. */
const FLOOR = { 'floor-0': [0, '/'], 'floor-3': [3, '/'], 'floor-5': [5, SCENARIO_PLAN['debug-404'][1]] };
const TARGETS = [
  'static-off',
  'static-profiled',
  'floor-0',
  'floor-3',
  'floor-5',
  'debug-404',
  'catalogue-off',
  'catalogue',
];
const SCENARIOS = arg('scenarios', 'static-profiled,catalogue,debug-404')
  .split(',')
  .flatMap((s) => (s === 'targets' ? TARGETS : [s]));
const BUILDS = ['dist', ...arg('compare', '').split(',').filter(Boolean)];
const WARMUP = Number(arg('warmup', 10000));
const REQUESTS = Number(arg('requests', 8000));
const ROUNDS = Number(arg('rounds', 2));
const GC =
  /v8::internal::(Scaveng|.*Marking|Sweeper|MarkCompact|.*Evacuat|Heap::|.*RememberedSet|SlotSet|ArrayBufferSweeper)/;
const TMP = mkdtempSync(join(os.tmpdir(), 'shopkernel-ipr-'));
for (const s of SCENARIOS) {
  if (!FLOOR[s] && (!SCENARIO_PLAN[s] || SCENARIO_PLAN[s][0] === 'baseline'))
    throw new Error(`Not an application or floor scenario: ${s}`);
}

// vgdb finds a valgrind process by the HOST its environment had: the servers' and callgrind_control's agree.
const control = (pid, ...args) =>
  execFileSync('callgrind_control', [...args, String(pid)], {
    env: { ...process.env, HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

let port = 39400;
/** `kind`: the application's `off` or `profiled`, or a floor level (a number). */
async function start(kind, build) {
  const p = port++;
  const out = join(TMP, `${p}.callgrind`);
  const floor = typeof kind === 'number';
  const [script, nodeArgs, env] = floor
    ? ['bench/floor/dist/main.js', [], { FLOOR_LEVEL: String(kind), FLOOR_DB: join(TMP, `floor-${p}.sqlite`) }]
    : [`${build}/main.js`, appNodeArgs(), appEnv(kind, join(TMP, `${kind}-${p}`))];
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--smc-check=all-non-file',
      `--callgrind-out-file=${out}`,
      process.execPath,
      ...nodeArgs,
      script,
    ],
    {
      cwd: ROOT,
      env: { ...cleanEnv(), ...env, PORT: String(p), HOST: '127.0.0.1' },
      stdio: ['ignore', 'ignore', 'ignore'],
    },
  );
  const base = `http://127.0.0.1:${p}`;
  for (let i = 0; ; i++) {
    try {
      const home = await fetch(`${base}/`, { headers: { accept: 'text/html' } });
      await home.text();
      return { child, base, out, build: floor ? 'floor' : build, token: home.headers.get('x-debug-token') };
    } catch {
      if (i === 1200 || child.exitCode !== null) throw new Error(`${build}/main.js did not start under valgrind`);
      await sleep(100);
    }
  }
}

/** Instructions of the server's dump number `n`, in all and in the GC's functions (callgrind_annotate's totals). */
async function dumped(server, n) {
  const name = `${server.out.split('/').pop()}.${n}`;
  // callgrind_control returns once the dump is asked for; valgrind writes it when the server's threads next run.
  const written = () =>
    readdirSync(TMP).includes(name) && readFileSync(join(TMP, name), 'latin1').includes('\ntotals:');
  for (let i = 0; !written(); i++) {
    if (i === 600) throw new Error(`callgrind wrote no ${name}`);
    await sleep(100);
  }
  const text = execFileSync('callgrind_annotate', ['--threshold=100', join(TMP, name)], {
    maxBuffer: 256 << 20,
  }).toString();
  let total = 0;
  let gc = 0;
  for (const line of text.split('\n')) {
    const m = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line);
    if (!m) continue;
    const ir = Number(m[1].replaceAll(',', ''));
    if (m[2].includes('PROGRAM TOTALS')) total = ir;
    else if (GC.test(m[2])) gc += ir;
  }
  return { total, gc };
}

const each = (servers, fn) => Promise.all(servers.map(fn));
const loadAll = (servers, path, amount) =>
  each(servers, (s) => load({ url: urlOf(s, path), connections: 4, amount, headers: { accept: 'text/html' } }));

const M = (n) => (n / 1e6).toFixed(3);
/** This build's median a request, by scenario. */
const measured = {};
for (const scenario of SCENARIOS) {
  const [kind, path] = FLOOR[scenario] ?? SCENARIO_PLAN[scenario];
  const servers = [];
  for (const build of FLOOR[scenario] ? ['floor'] : BUILDS) servers.push(await start(kind, build));
  const rounds = [];
  await loadAll(servers, path, WARMUP);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const s of servers) (control(s.child.pid, '-z'), control(s.child.pid, '-i', 'on'));
    const results = await loadAll(servers, path, REQUESTS);
    await sleep(2000); // the store's writes of these requests' profiles
    const figures = await Promise.all(
      servers.map(async (s, i) => {
        control(s.child.pid, '-i', 'off');
        control(s.child.pid, '-d');
        const { total, gc } = await dumped(s, round);
        return { build: s.build, perRequest: total / results[i].requests, gc: gc / results[i].requests };
      }),
    );
    rounds.push(figures[0].perRequest);
    for (const f of figures)
      console.log(
        `${scenario.padEnd(16)} ${f.build.padEnd(12)} round ${round}: ${M(f.perRequest)} M instructions a request (GC ${M(f.gc)} M)`,
      );
    for (const other of figures.slice(1)) {
      const delta = ((figures[0].perRequest - other.perRequest) / other.perRequest) * 100;
      console.log(`${scenario.padEnd(16)} dist against ${other.build}: ${delta >= 0 ? '+' : ''}${delta.toFixed(1)} %`);
    }
  }
  for (const s of servers) s.child.kill('SIGTERM');
  await sleep(1000);
  measured[scenario] = rounds.sort((a, b) => a - b)[Math.floor(rounds.length / 2)];
}

// Issue 45's CPU targets (bench/lib/targets.mjs), in instructions, for the scenarios measured.
const m = measured;
const ratio = (name, value, limit) =>
  console.log(`${value <= limit ? 'met    ' : 'NOT MET'}  ${name}: ${value.toFixed(2)}× (target ≤ ${limit}×)`);
if (m['static-profiled'] && m['static-off'] && m['floor-3'] && m['floor-0'])
  ratio(
    "profiler's added instructions on `/` ÷ the floor's (level 3 − level 0)",
    (m['static-profiled'] - m['static-off']) / (m['floor-3'] - m['floor-0']),
    1.5,
  );
if (m['debug-404'] && m['floor-5']) ratio("debug 404 ÷ the floor's level 5", m['debug-404'] / m['floor-5'], 1.5);
if (m.catalogue && m['catalogue-off']) ratio('catalogue profiled ÷ off', m.catalogue / m['catalogue-off'], 1.4);
if (process.argv.includes('--keep')) console.log(`callgrind files kept in ${TMP} (callgrind_annotate reads them)`);
else rmSync(TMP, { recursive: true, force: true });
