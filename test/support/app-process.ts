import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { PROJECT_DIR } from '../../src/config/app-config.js';

/**
 * The application compiled for tests that run it as a process of its own (signals, kill -9): every file of src/
 * transpiled on its own, as ts-jest does (types are `npm run typecheck`'s job), into `.test-build/`, one level
 * under the project as dist/ is, so that the project directory (views) is found the same way. Files are
 * transpiled again only when their source changed; a few seconds at first, instead of a minute for `nest build`.
 */
export const TEST_BUILD_DIR = join(PROJECT_DIR, '.test-build');

export function buildApp(): string {
  const compilerOptions = buildOptions();
  const src = join(PROJECT_DIR, 'src');
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts')
        ? [path]
        : [];
    });
  // A change to how files are built here (these options) builds every file again.
  const harness = statSync(join(PROJECT_DIR, 'test', 'support', 'app-process.ts')).mtimeMs;
  for (const file of walk(src)) {
    const out = join(TEST_BUILD_DIR, relative(src, file)).replace(/\.ts$/, '.js');
    try {
      if (statSync(out).mtimeMs >= Math.max(statSync(file).mtimeMs, harness)) continue;
    } catch {
      // Not built yet.
    }
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions, fileName: file });
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
  }
  return join(TEST_BUILD_DIR, 'main.js');
}

/**
 * A module of `test/fixtures/process/` transpiled into `.test-build/fixtures/process/`, for `node --import` into the
 * application process (startApp's `nodeArgs`): test-only behaviour, such as crashing on request, that the
 * application's own build never contains. Returns its path.
 */
export function buildProcessFixture(name: string): string {
  const file = join(PROJECT_DIR, 'test', 'fixtures', 'process', `${name}.ts`);
  const out = join(TEST_BUILD_DIR, 'fixtures', 'process', `${name}.js`);
  const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: buildOptions(),
    fileName: file,
  });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, outputText);
  return out;
}

function buildOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(PROJECT_DIR, 'tsconfig.build.json'), (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, PROJECT_DIR);
  // ES modules, as `nest build` emits for this "type": "module" project (transpileModule alone cannot tell).
  // sourceRoot: the inline maps name their sources relative to src/ (the rootDir), found there, as dist/'s maps
  // lead to src/; without it they would name `.test-build/….ts`, files that do not exist.
  return {
    ...options,
    module: ts.ModuleKind.ES2022,
    sourceMap: false,
    inlineSourceMap: true,
    inlineSources: false,
    declaration: false,
    sourceRoot: `${pathToFileURL(join(PROJECT_DIR, 'src')).href}/`,
  };
}

/** A free TCP port on 127.0.0.1 (the app is given a fixed PORT: main.ts reports the configured one). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface AppProcess {
  child: ChildProcess;
  port: number;
  /** Everything the process printed. */
  output: () => string;
  /** Resolves with the exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartOptions {
  /** Node's own arguments, before the script (`--import <fixture>`). */
  nodeArgs?: string[];
  /** Run as this user and group (a test as root that needs permissions to apply). */
  uid?: number;
  gid?: number;
}

/** Starts `node <main>` with the environment given; resolves once it listens. */
export async function startApp(
  main: string,
  env: Record<string, string>,
  timeoutMs = 20_000,
  options: StartOptions = {},
): Promise<AppProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), main], {
    uid: options.uid,
    gid: options.gid,
    cwd: PROJECT_DIR,
    env: {
      PATH: process.env.PATH ?? '',
      APP_ENV: 'test',
      APP_DEBUG: '1',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: 'sqlite::memory:',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`The app did not start within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const check = () => {
      if (/listening on/.test(output)) {
        clearTimeout(timer);
        child.stdout!.removeListener('data', check);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`The app exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
  return { child, port, output: () => output, exited };
}

/**
 * Runs `node <main>` until it exits by itself (an application that cannot start); `timeoutMs` at most. `output` is
 * everything printed, `stderr` its standard error alone.
 */
export async function runUntilExit(
  main: string,
  env: Record<string, string>,
  timeoutMs = 20_000,
  options: StartOptions = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string; stderr: string }> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), main], {
    uid: options.uid,
    gid: options.gid,
    cwd: PROJECT_DIR,
    env: {
      PATH: process.env.PATH ?? '',
      APP_ENV: 'test',
      APP_DEBUG: '1',
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      DATABASE_URL: 'sqlite::memory:',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (c, s) => resolve({ code: c, signal: s }));
    // Not started at all (the user given may not be taken): said in the output.
    child.once('error', (error) => {
      output += `${error.message}\n`;
      resolve({ code: null, signal: null });
    });
  });
  clearTimeout(timer);
  return { code, signal, output, stderr };
}

export interface Sent {
  token: string;
  /** Date.now() when the whole response had arrived. */
  at: number;
}

/**
 * `concurrency` clients sending GETs one after the other over keep-alive connections until `stop()` is called
 * (or the server stops answering); every response that arrived is recorded with its X-Debug-Token and time.
 * `query` is added to each URL (a crash fixture's `slow=<ms>`).
 */
export function loadApp(
  port: number,
  concurrency: number,
  query = '',
): { sent: Sent[]; failures: () => number; stop: () => Promise<void> } {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const sent: Sent[] = [];
  let failures = 0;
  let stopped = false;
  let n = 0;
  const get = () =>
    new Promise<void>((resolve) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: `/?${query ? `${query}&` : ''}load=${n++}`, agent },
        (res) => {
          res.resume();
          res.on('end', () => {
            const token = res.headers['x-debug-token'];
            if (res.statusCode === 200 && typeof token === 'string') sent.push({ token, at: Date.now() });
            else failures++;
            resolve();
          });
          res.on('error', () => {
            failures++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        failures++;
        stopped = true; // connection refused or reset: the server is gone
        resolve();
      });
      req.end();
    });
  const loops = Array.from({ length: concurrency }, async () => {
    while (!stopped) await get();
  });
  return {
    sent,
    failures: () => failures,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      agent.destroy();
    },
  };
}
