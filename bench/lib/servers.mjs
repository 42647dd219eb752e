// The servers bench/run.mjs measures: each started on a free loopback port, pinned with taskset to the servers'
// core when it can be, waited for and stopped; the plain GETs the bench sends them outside the load; and what /proc
// says of their memory and child processes. Under taskset, `child.pid` is node itself: taskset execs it.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { cleanEnv } from './app-env.mjs';
import { askServer } from './ask-server.mjs';

/** The bench's requests ask for HTML, as a browser does. */
export const HTML = { accept: 'text/html,application/xhtml+xml' };

/** A free loopback port: the bench asks the kernel for one and hands it to the server it starts. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * `startServer(name, { script, env, nodeArgs, ipc })` for servers run from `root` on CPU `cpu` (when `pinned`), and
 * `killAll()`, which ends every one still running (the bench's exit handler).
 */
export function serverStarter({ root, cpu, pinned }) {
  const children = new Set();
  async function startServer(name, { script, env = {}, nodeArgs = [], ipc = false }) {
    const port = await freePort();
    const [command, args] = pinned
      ? ['taskset', ['-c', String(cpu), process.execPath, ...nodeArgs, script]]
      : [process.execPath, [...nodeArgs, script]];
    const child = spawn(command, args, {
      cwd: root,
      env: { ...cleanEnv(), ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? ['ipc'] : [])],
    });
    children.add(child);
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.once('exit', () => children.delete(child));
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited at start:\n${output}`);
      try {
        await get(`${base}/`);
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`${name} did not answer within 90 s:\n${output}`);
        await sleep(200);
      }
    }
    const server = {
      name,
      base,
      pid: child.pid,
      child,
      exited,
      output: () => output,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      },
    };
    if (ipc)
      server.ask = askServer(
        child,
        (error) => `${name}: ${error.message} (exit ${child.exitCode ?? child.signalCode}):\n${output.slice(-4000)}`,
      );
    return server;
  }

  return { startServer, killAll: () => children.forEach((child) => child.kill('SIGKILL')) };
}

export function vmRssKb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
}

/** A GET's body as text. */
export function getText(url, headers = HTML) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (d) => (body += d));
      response.on('end', () => resolve(body));
    });
    request.setTimeout(30_000, () => request.destroy(new Error(`GET ${url}: no answer within 30 s`)));
    request.on('error', reject);
  });
}

/** A plain GET on a new connection (no keep-alive pool to go stale between runs). */
export function get(url, headers = HTML) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers }));
    });
    request.setTimeout(30_000, () => request.destroy(new Error(`GET ${url}: no answer within 30 s`)));
    request.on('error', reject);
  });
}
