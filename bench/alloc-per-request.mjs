// Bytes allocated per request, by the function that allocated them: V8's sampling heap profiler in the loaded server,
// counting what garbage collection freed as well, over a fixed number of requests after a warm-up. Allocation is
// what sets how often the young generation is collected; what a request keeps alive (the profiles waiting to be
// written) sets what each collection copies. A tool for finding cost centres, like cpu-per-request.mjs.
//
//   node bench/alloc-per-request.mjs [--requests=N] [--scenarios=static-off,static-profiled,debug-404,…] [--top=N]
//   (the scenarios of cpu-per-request.mjs, without the baseline; build first: npm run build)
//   --compare=<dir>: also each scenario on another build (a copy of dist/ in the project), as <scenario>@<dir>
//   --survivors: only what outlived a scavenge (what the young generation copies and then promotes, which makes the
//   old generation grow between mark-compacts), not everything allocated
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { appEnv, appNodeArgs, cleanEnv } from './lib/app-env.mjs';
import { askServer } from './lib/ask-server.mjs';
import { load } from './lib/load.mjs';
import { arg, pinLoadGenerator, SCENARIO_PLAN, serverCommand, urlOf, waitForServer } from './lib/tool-setup.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const REQUESTS = Number(arg('requests', 10000));
const TOP = Number(arg('top', 25));
const SCENARIOS = arg('scenarios', 'static-off,static-profiled').split(',');
const COMPARE = arg('compare', '').split(',').filter(Boolean);
const SURVIVORS = process.argv.includes('--survivors');
const TMP = mkdtempSync(join(os.tmpdir(), 'shopkernel-apr-'));
for (const s of SCENARIOS) {
  if (!SCENARIO_PLAN[s] || SCENARIO_PLAN[s][0] === 'baseline') throw new Error(`Not an application scenario: ${s}`);
}
pinLoadGenerator();

let port = 39300;
async function start(kind, dist) {
  const p = port++;
  const [command, args] = serverCommand([
    ...appNodeArgs(),
    '--import',
    join(ROOT, 'bench/lib/memory-probe.mjs'),
    `${dist}/main.js`,
  ]);
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...cleanEnv(), ...appEnv(kind, join(TMP, `${kind}-${p}`)), PORT: String(p), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return {
    ...(await waitForServer(child, `http://127.0.0.1:${p}`, `${dist}/main.js (${kind})`)),
    ask: askServer(child),
  };
}

/** Self bytes per function (`name file:line`), from a sampling heap profile. */
function bytesByFunction(profile) {
  const bytes = new Map();
  const visit = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url
      ? `${url.replace(/^.*\/(dist[^/]*|node_modules)\//, '$1/').replace(/^file:\/\//, '')}:${lineNumber + 1}`
      : '(native)';
    const key = `${functionName || '(anonymous)'} ${where}`;
    bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  return bytes;
}

const runs = [];
for (const dist of ['dist', ...COMPARE]) {
  for (const scenario of SCENARIOS) {
    const [kind, path] = SCENARIO_PLAN[scenario];
    const server = await start(kind, dist);
    const url = urlOf(server, path);
    await load({ url, connections: 10, amount: REQUESTS, headers: { accept: 'text/html' } });
    await sleep(500);
    await server.ask('alloc-start', { survivors: SURVIVORS });
    const result = await load({ url, connections: 10, amount: REQUESTS, headers: { accept: 'text/html' } });
    await sleep(500); // the profiles written after the responses are the requests' allocations too
    const file = join(TMP, `${scenario}-${server.child.pid}.heapprofile`);
    await server.ask('alloc-stop', { file });
    server.child.kill('SIGTERM');
    const bytes = bytesByFunction(JSON.parse(readFileSync(file, 'utf8')));
    const total = [...bytes.values()].reduce((a, b) => a + b, 0);
    runs.push({
      name: dist === 'dist' ? scenario : `${scenario}@${dist.replace(/^dist-/, '')}`,
      bytes,
      total,
      requests: result.requests,
    });
  }
}

const kb = (b, n) => (b / 1024 / n).toFixed(2);
for (const run of runs) {
  console.log(
    `\n${run.name}: ${kb(run.total, run.requests)} KB ${SURVIVORS ? 'outliving a scavenge' : 'allocated'} per request (${run.requests} requests)`,
  );
  for (const [key, b] of [...run.bytes].sort((x, y) => y[1] - x[1]).slice(0, TOP))
    console.log(`${kb(b, run.requests).padStart(8)}  ${key}`);
}
await sleep(300);
rmSync(TMP, { recursive: true, force: true });
