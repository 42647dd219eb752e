// Instructions executed per request, counted by valgrind's callgrind in a loaded server (every thread: the request,
// the store's writes, the GC's helpers): the same figure on a busy machine as on a quiet one, for A/Bs of changes
// smaller than the noise of CPU time (cpu-per-request.mjs). Each build runs under callgrind with instrumentation off
// while it warms up, then on for the measured requests; both builds are loaded at the same time.
//
//   node bench/instructions-per-request.mjs --compare=dist-before [--scenarios=static-profiled,catalogue,debug-404]
//     [--warmup=10000] [--requests=8000] [--rounds=2]
//   (the scenarios of cpu-per-request.mjs, without the baseline; build first: npm run build; needs valgrind)
//
// "GC" is the instructions of V8's collectors (scavenges, marking, sweeping), which move with what a request keeps
// alive. Rounds repeat the measure on the same servers. A round's figure moves by a few per cent with the
// mark-compacts and WAL checkpoints that fall in it: fewer requests than the default make that worse.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { appEnv, appNodeArgs, cleanEnv } from './lib/app-env.mjs';
import { load } from './lib/load.mjs';
import { arg, SCENARIO_PLAN, urlOf } from './lib/tool-setup.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const SCENARIOS = arg('scenarios', 'static-profiled,catalogue,debug-404').split(',');
const BUILDS = ['dist', ...arg('compare', '').split(',').filter(Boolean)];
const WARMUP = Number(arg('warmup', 10000));
const REQUESTS = Number(arg('requests', 8000));
const ROUNDS = Number(arg('rounds', 2));
const GC =
  /v8::internal::(Scaveng|.*Marking|Sweeper|MarkCompact|.*Evacuat|Heap::|.*RememberedSet|SlotSet|ArrayBufferSweeper)/;
const TMP = mkdtempSync(join(os.tmpdir(), 'shopkernel-ipr-'));
for (const s of SCENARIOS) {
  if (!SCENARIO_PLAN[s] || SCENARIO_PLAN[s][0] === 'baseline') throw new Error(`Not an application scenario: ${s}`);
}

// vgdb finds a valgrind process by the HOST its environment had: the servers' and callgrind_control's agree.
const control = (pid, ...args) =>
  execFileSync('callgrind_control', [...args, String(pid)], {
    env: { ...process.env, HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

let port = 39400;
async function start(kind, build) {
  const p = port++;
  const out = join(TMP, `${p}.callgrind`);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--smc-check=all-non-file',
      `--callgrind-out-file=${out}`,
      process.execPath,
      ...appNodeArgs(),
      `${build}/main.js`,
    ],
    {
      cwd: ROOT,
      env: { ...cleanEnv(), ...appEnv(kind, join(TMP, `${kind}-${p}`)), PORT: String(p), HOST: '127.0.0.1' },
      stdio: ['ignore', 'ignore', 'ignore'],
    },
  );
  const base = `http://127.0.0.1:${p}`;
  for (let i = 0; ; i++) {
    try {
      const home = await fetch(`${base}/`, { headers: { accept: 'text/html' } });
      await home.text();
      return { child, base, out, build, token: home.headers.get('x-debug-token') };
    } catch {
      if (i === 1200 || child.exitCode !== null) throw new Error(`${build}/main.js did not start under valgrind`);
      await sleep(100);
    }
  }
}

/** Instructions of the newest dump, in all and in the GC's functions (callgrind_annotate's totals). */
function dumped(server) {
  const name = readdirSync(TMP)
    .filter((f) => f.startsWith(`${server.out.split('/').pop()}.`))
    .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()))
    .pop();
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
for (const scenario of SCENARIOS) {
  const [kind, path] = SCENARIO_PLAN[scenario];
  const servers = [];
  for (const build of BUILDS) servers.push(await start(kind, build));
  await loadAll(servers, path, WARMUP);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const s of servers) (control(s.child.pid, '-z'), control(s.child.pid, '-i', 'on'));
    const results = await loadAll(servers, path, REQUESTS);
    await sleep(2000); // the store's writes of these requests' profiles
    const figures = servers.map((s, i) => {
      control(s.child.pid, '-i', 'off');
      control(s.child.pid, '-d');
      const { total, gc } = dumped(s);
      return { build: s.build, perRequest: total / results[i].requests, gc: gc / results[i].requests };
    });
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
}
rmSync(TMP, { recursive: true, force: true });
