// What bench/cpu-per-request.mjs and bench/alloc-per-request.mjs share: their options, their scenarios, the pinning of
// their own process (the load generator) and the wait for a server they started.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/** `--name=value` from the command line, or the fallback. */
export const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;

/** Each scenario's server kind (the bare baseline, the application `off` or `profiled`) and path. */
export const SCENARIO_PLAN = {
  baseline: ['baseline', '/'],
  'baseline-404': ['baseline', '/bench/no-such-page'],
  'static-off': ['off', '/'],
  'static-profiled': ['profiled', '/'],
  'debug-404': ['profiled', '/bench/no-such-page'],
  catalogue: ['profiled', '/products?page=2'],
  // The same catalogue page with the profiler off: what the profiler adds to a page with database queries.
  'catalogue-off': ['off', '/products?page=2'],
  'profiler-search': ['profiled', '/_profiler/search?limit=10'],
  // The panel of the profile of a home page request made when the server started (see waitForServer).
  'profiler-panel': ['profiled', '/_profiler/{token}?panel=request'],
};

/** A scenario's URL on a server: `{token}` is the token of the server's first profiled home page. */
export const urlOf = (server, path) => server.base + path.replace('{token}', server.token ?? 'none');

/** Servers run on CPU 1 and the tool's own process, which generates the load, on CPU 0 (as bench/run.mjs does). */
export const PINNED = process.platform === 'linux' && os.cpus().length > 1;

/**
 * Pins this process to CPU 0: left unpinned, the load generator could share the measured server's core, and its CPU
 * time would move the server's figures.
 */
export function pinLoadGenerator() {
  if (PINNED) spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
}

/** `[command, args]` that start node with `args`, on CPU 1 when pinning. */
export const serverCommand = (args) =>
  PINNED ? ['taskset', ['-c', '1', process.execPath, ...args]] : [process.execPath, args];

/**
 * Waits until the server started as `child` answers on `base` (at most 30 s), then asks for its home page once:
 * `token` is that request's profile token (null when the server does not profile).
 */
export async function waitForServer(child, base, label) {
  for (let i = 0; ; i++) {
    try {
      await (await fetch(`${base}/`)).text();
      break;
    } catch {
      if (i === 300 || child.exitCode !== null) throw new Error(`${label} did not answer within 30 s`);
      await sleep(100);
    }
  }
  const home = await fetch(`${base}/`, { headers: { accept: 'text/html' } });
  await home.text();
  return { child, base, token: home.headers.get('x-debug-token') };
}
