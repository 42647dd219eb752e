// CPU time per request of each server (utime + stime from /proc, over a fixed number of requests): steadier than
// requests/s on a shared VM, where another tenant's load moves throughput by a fifth from run to run. A tool for
// finding cost centres; the bench's ratios stay the reference for the targets.
//
//   node bench/cpu-per-request.mjs [--requests=N] [--scenarios=baseline,static-off,static-profiled,debug-404,baseline-404]
//   (also: catalogue, profiler-search, profiler-panel)
//   (build first: npm run build; the baseline is built by npm run bench)
//   --compare=<dir>[,<dir>…]: also runs each application scenario on other builds (copies of dist/ in the project,
//   e.g. dist-before/), as <scenario>@<dir>, alternated with this one in every round: an A/B of one change (or an
//   ablation: several builds, each with one more part switched off).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { appEnv, appNodeArgs, cleanEnv } from './lib/app-env.mjs';
import { cpuMicros } from './lib/cpu-time.mjs';
import { load } from './lib/load.mjs';
import { arg, pinLoadGenerator, SCENARIO_PLAN, serverCommand, urlOf, waitForServer } from './lib/tool-setup.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const REQUESTS = Number(arg('requests', 20000));
const ROUNDS = Number(arg('rounds', 3));
const SCENARIOS = arg('scenarios', 'baseline,static-off,static-profiled,baseline-404,debug-404').split(',');
const COMPARE = arg('compare', '').split(',').filter(Boolean);
/** The name a compared build's scenarios carry: `before` for dist-before/ (the usual A/B), else the folder. */
const tagOf = (dir) => dir.replace(/\/$/, '').replace(/^dist-/, '');
const TMP = mkdtempSync(join(os.tmpdir(), 'shopkernel-cpr-'));

const SERVERS = {
  baseline: { script: 'bench/baseline/dist/main.js', env: {} },
  off: { script: 'dist/main.js', env: appEnv('off', join(TMP, 'off')) },
  profiled: { script: 'dist/main.js', env: appEnv('profiled', join(TMP, 'profiled')) },
};
for (const dir of COMPARE) {
  const tag = tagOf(dir);
  SERVERS[`off@${tag}`] = { script: `${dir}/main.js`, env: appEnv('off', join(TMP, `off-${tag}`), resolve(ROOT, dir)) };
  SERVERS[`profiled@${tag}`] = { script: `${dir}/main.js`, env: appEnv('profiled', join(TMP, `profiled-${tag}`)) };
}
const PLAN = { ...SCENARIO_PLAN };
pinLoadGenerator();

let port = 39100;
async function start(kind) {
  const p = port++;
  const [command, args] = serverCommand([
    // After the application's own: Node takes the last of an option given twice.
    ...(kind === 'baseline' ? [] : appNodeArgs()),
    ...(process.env.CPR_NODE_ARGS ? process.env.CPR_NODE_ARGS.split(' ') : []),
    SERVERS[kind].script,
  ]);
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...cleanEnv(), ...SERVERS[kind].env, PORT: String(p), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return waitForServer(child, `http://127.0.0.1:${p}`, `${kind} (${SERVERS[kind].script})`);
}

for (const s of [...SCENARIOS]) {
  const [kind, path] = PLAN[s];
  if (kind === 'baseline') continue;
  for (const dir of COMPARE) {
    const tag = tagOf(dir);
    PLAN[`${s}@${tag}`] = [`${kind}@${tag}`, path];
    SCENARIOS.splice(SCENARIOS.indexOf(s), 0, `${s}@${tag}`);
  }
}
const servers = {};
for (const s of SCENARIOS) {
  const kind = PLAN[s][0];
  servers[kind] ??= await start(kind);
}
const results = Object.fromEntries(SCENARIOS.map((s) => [s, []]));
for (const s of SCENARIOS)
  await load({
    url: urlOf(servers[PLAN[s][0]], PLAN[s][1]),
    connections: 10,
    amount: REQUESTS / 2,
    headers: { accept: 'text/html' },
  });
for (let r = 0; r < ROUNDS; r++) {
  // The order is reversed every other round, as bench/run.mjs does, so that no build is always measured first: in a
  // fixed order, two copies of one build measure differently.
  for (const s of r % 2 === 0 ? SCENARIOS : [...SCENARIOS].reverse()) {
    const server = servers[PLAN[s][0]];
    await sleep(300);
    const before = cpuMicros(server.child.pid);
    const res = await load({
      url: urlOf(server, PLAN[s][1]),
      connections: 10,
      amount: REQUESTS,
      headers: { accept: 'text/html' },
    });
    await sleep(500); // the profiles written after the responses
    const after = cpuMicros(server.child.pid);
    results[s].push({ us: (after - before) / res.requests, rps: res.rps });
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = {
  '/': median(results.baseline?.map((x) => x.us) ?? [NaN]),
  404: median(results['baseline-404']?.map((x) => x.us) ?? [NaN]),
};
for (const s of SCENARIOS) {
  const us = median(results[s].map((x) => x.us));
  const ref = s.includes('404') ? base['404'] : base['/'];
  console.log(
    `${s.padEnd(24)} ${us.toFixed(1).padStart(7)} µs/req  (${results[s].map((x) => x.us.toFixed(0)).join(', ')})  rps ${median(results[s].map((x) => x.rps)).toFixed(0)}  cpu-ratio ${Number.isFinite(ref) ? (ref / us).toFixed(2) : '–'}`,
  );
}
// A compared build's rounds against this build's, round by round: the median of the paired differences is steadier
// than the difference of two medians when the machine's speed drifts between rounds.
for (const s of SCENARIOS) {
  const at = s.indexOf('@');
  if (at === -1 || !results[s.slice(0, at)]) continue;
  const diffs = results[s].map((x, r) => x.us - results[s.slice(0, at)][r].us);
  const sorted = [...diffs].sort((a, b) => a - b);
  console.log(
    `${s.padEnd(24)} minus ${s.slice(0, at)}: median ${median(diffs) >= 0 ? '+' : ''}${median(diffs).toFixed(1)} µs/req per round (from ${sorted[0].toFixed(0)} to ${sorted[sorted.length - 1].toFixed(0)})`,
  );
}
for (const { child } of Object.values(servers)) child.kill('SIGTERM');
await sleep(500);
rmSync(TMP, { recursive: true, force: true });
