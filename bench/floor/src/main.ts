// The floor of the profiler's cost: bench/baseline's bare NestJS app, plus only the work the benchmark target
// requires of a profiler, done as cheaply as we know how. FLOOR_LEVEL (0..4) adds one part at a time:
//   0 nothing (must cost what the baseline costs)      1 token + 29 traced listener calls + a record on 'finish'
//   2 + X-Debug-Token / X-Debug-Token-Link headers      3 + every profile stored (JSON, zstd+dictionary, SQLite)
//   4 + a debug toolbar spliced into the HTML page
//   5 level 3 (no toolbar) + for a URL that matches no route, the debug 404 page (exception chain with source-mapped
//     frames and code excerpts, the request's logs, plain stack traces) instead of Nest's JSON 404
// If this stays far under 0.80x of the baseline's requests/s on one core, no design of the real profiler reaches it.
// Level 5 is the floor of the second target: the debug 404 page >= 0.50x of the baseline's requests/s on its own 404.
// Build: node node_modules/typescript/bin/tsc -p bench/floor/tsconfig.json   Run: bench/floor/run.mjs
import 'reflect-metadata';
import { Controller, Get, Header, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import Database from 'better-sqlite3';
import type { Express, NextFunction, Request, Response } from 'express';
import { randomFillSync } from 'node:crypto';
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { parse as parseStack } from 'error-stack-parser-es/lite';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { STATUS_CODES, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import os from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { constants as zlibConstants, zstdCompressSync } from 'node:zlib';

const LEVEL = Number(process.env.FLOOR_LEVEL ?? 0);
const PAGE = readFileSync(new URL('../../baseline/page.html', import.meta.url), 'utf8');

// ---- The app: identical to bench/baseline/src/main.ts ----
@Controller()
class PageController {
  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(): string {
    return PAGE;
  }
}

@Module({ controllers: [PageController] })
class FloorModule {}

// ---- Level 1: tokens ----
// A bitmap of taken tokens (2 MiB for the 16.7 M tokens of 6 hex digits), as src/profiler/tokens/token-registry.ts
// does: a bare random 6-hex token collides after a few thousand requests (birthday bound), and a collision would
// lose a profile to the UNIQUE index. Random bytes come from a pool, not a crypto call per request.
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const taken = new Uint8Array(1 << 21);
const pool = new Uint8Array(4095);
let poolAt = pool.length;
function nextToken(): string {
  for (;;) {
    if (poolAt === pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    const a = pool[poolAt],
      b = pool[poolAt + 1],
      c = pool[poolAt + 2];
    poolAt += 3;
    const index = (a << 16) | (b << 8) | c;
    const bit = 1 << (index & 7);
    if ((taken[index >>> 3] & bit) !== 0) continue;
    taken[index >>> 3] |= bit;
    return HEX[a] + HEX[b] + HEX[c]; // under 13 chars: V8 makes a flat string, no cons string to flatten later
  }
}

// ---- Level 1: the trace ----
// 29 distinct listeners (the real home page notifies 29): made by one factory, so the call site stays cheap, as it
// would for listeners of one kind. The log message of a notification is rebuilt from the listener's index when the
// profile is read, so a request only stores [index, offset µs] pairs and [index, start µs, duration µs] triples.
const LISTENERS: Array<() => void> = Array.from({ length: 29 }, () => () => {});

/** Per request; one class so every trace has one hidden class. Times are integer µs from the request's start. */
class Trace {
  readonly logs: number[] = [];
  readonly events: number[] = [];
  /** Level 5: the exception that decided a 404 and its ERROR log entry, for the stored profile. */
  failure: Failure | null = null;
  constructor(
    readonly token: string,
    readonly start: number,
    readonly time: number,
  ) {}
}
type Traced = Response & { floorTrace?: Trace };

function notifyAll(trace: Trace): void {
  const t0 = trace.start;
  const { logs, events } = trace;
  for (let i = 0; i < LISTENERS.length; i++) {
    const s = performance.now();
    LISTENERS[i]();
    const e = performance.now();
    logs.push(i, Math.round((s - t0) * 1000));
    events.push(i, Math.round((s - t0) * 1000), Math.round((e - s) * 1000));
  }
}

/** The 'Matched route' INFO entry, with its time offset: what the real profile's log holds besides the pairs. */
class MatchedRoute {
  readonly message = 'Matched route';
  constructor(
    readonly route: string | null,
    readonly method: string,
    readonly uri: string,
    readonly at: number,
  ) {}
}

// ---- Level 3: the profile, its encoding and its store ----
class Profile {
  constructor(
    readonly token: string,
    readonly method: string,
    readonly url: string,
    readonly ip: string,
    readonly status: number,
    readonly time: number,
    readonly duration: number,
    readonly route: string | null,
    readonly requestHeaders: IncomingHttpHeaders,
    readonly responseHeaders: OutgoingHttpHeaders,
    // v8.getHeapStatistics() (0.3 µs) rather than process.memoryUsage() (8 µs: it reads /proc/self for the RSS)
    readonly memory: { heapUsed: number; heapTotal: number },
    readonly info: MatchedRoute,
    readonly logs: number[],
    readonly events: number[],
  ) {}
}

/** A frame as stored: [function, file, line, column, vendor 1|0] (as the real ExceptionCollector stores it). */
type FrameTuple = [string, string, number, number, 0 | 1];
/** One exception of the chain as the profile stores it: no excerpts (the panel reads them again when opened). */
interface StoredException {
  position: number;
  count: number;
  class: string;
  message: string;
  statusCode: number;
  statusText: string;
  frames: FrameTuple[];
}
/** The uncaught exception's ERROR log entry: its offset (µs from the request's start) and its context. */
class ErrorLog {
  readonly level = 400;
  readonly channel = 'request';
  readonly message = 'Uncaught Exception {class}: "{message}" at {file} line {line}';
  constructor(
    readonly at: number,
    readonly context: { class: string; message: string; file: string; line: number },
  ) {}
}
interface Failure {
  exceptions: StoredException[];
  error: ErrorLog;
}

/** Level 5: the profile of a request answered with the debug error page (the Exception panel's data, the error entry). */
class FailedProfile extends Profile {
  readonly exception: StoredException[];
  readonly error: ErrorLog;
  constructor(p: ConstructorParameters<typeof Profile>, failure: Failure) {
    super(...p);
    this.exception = failure.exceptions;
    this.error = failure.error;
  }
}

/** req.headers as stored: the same object unless a secret has to be masked (no copy for most requests). */
function maskedHeaders(h: IncomingHttpHeaders): IncomingHttpHeaders {
  if (h.cookie === undefined && h.authorization === undefined) return h;
  const copy = { ...h };
  if (copy.cookie !== undefined) copy.cookie = '******';
  if (copy.authorization !== undefined) copy.authorization = '******';
  return copy;
}

/** The dictionary's content: a fixed sample (no clock in it), so a reader can rebuild or load it to decode blobs. */
function sampleProfile(): Profile {
  const logs: number[] = [];
  const events: number[] = [];
  for (let i = 0; i < LISTENERS.length; i++) {
    logs.push(i, 40 + i * 7);
    events.push(i, 40 + i * 7, 1);
  }
  return new Profile(
    '000000',
    'GET',
    '/',
    '127.0.0.1',
    200,
    1_700_000_000_000,
    1234,
    '/',
    { host: '127.0.0.1:3000', accept: 'text/html' },
    {
      'x-powered-by': 'Express',
      'content-type': 'text/html; charset=utf-8',
      'content-length': '3281',
      etag: 'W/"cd1-abc"',
    },
    { heapUsed: 12345678, heapTotal: 23456789 },
    new MatchedRoute('/', 'GET', '/', 12),
    logs,
    events,
  );
}

/** Level 5's dictionary adds a sample failed profile (fixed content, as above): a 404's chain is most of its JSON. */
function sampleFailedProfile(): FailedProfile {
  const logs: number[] = [];
  const events: number[] = [];
  for (let i = 0; i < 6; i++) {
    logs.push(i, 40 + i * 7);
    events.push(i, 40 + i * 7, 1);
  }
  const message = 'No route found for "GET http://127.0.0.1:3000/bench/no-such-page"';
  const app = (fn: string, line: number): FrameTuple => [fn, 'bench/floor/src/main.ts', line, 11, 0];
  const vendor = (fn: string, file: string, line: number): FrameTuple => [fn, file, line, 5, 1];
  const frames = [
    app('RouterListener.onKernelRequest', 500),
    app('EventDispatcher.dispatch', 480),
    app('HttpKernel.handleRequest', 470),
    app('HttpKernel.handle', 460),
    app('debugProfilerMiddleware', 450),
    vendor('Layer.handleRequest', 'node_modules/router/lib/layer.js', 152),
    vendor('trimPrefix', 'node_modules/router/index.js', 342),
    vendor('next', 'node_modules/router/index.js', 297),
    vendor('Server.emit', 'node:events', 524),
    vendor('parserOnIncoming', 'node:_http_server', 1139),
  ];
  const failure: Failure = {
    exceptions: [
      {
        position: 2,
        count: 2,
        class: 'NotFoundHttpException',
        message,
        statusCode: 404,
        statusText: 'Not Found',
        frames,
      },
      {
        position: 1,
        count: 2,
        class: 'ResourceNotFoundException',
        message: 'No routes found for "/bench/no-such-page".',
        statusCode: 500,
        statusText: 'Internal Server Error',
        frames: [app('UrlMatcher.match', 510), ...frames],
      },
    ],
    error: new ErrorLog(90, { class: 'NotFoundHttpException', message, file: 'bench/floor/src/main.ts', line: 500 }),
  };
  return new FailedProfile(
    [
      '000000',
      'GET',
      '/bench/no-such-page',
      '127.0.0.1',
      404,
      1_700_000_000_000,
      1234,
      null,
      { host: '127.0.0.1:3000', accept: 'text/html' },
      {
        'x-powered-by': 'Express',
        'x-debug-token': '000000',
        'x-debug-token-link': 'http://127.0.0.1:3000/_profiler/000000',
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'x-debug-exception': encodeURIComponent(message),
        'x-debug-exception-file': 'bench%2Ffloor%2Fsrc%2Fmain.ts:500',
        'content-length': '30000',
      },
      { heapUsed: 12345678, heapTotal: 23456789 },
      new MatchedRoute(null, 'GET', '/bench/no-such-page', 95),
      logs,
      events,
    ],
    failure,
  );
}

/** Batches profiles and writes each batch in one transaction; everything but the 'finish' push runs off the response path. */
class Store {
  private batch: Profile[] = [];
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private readonly db: Database.Database;
  // The dictionary is one sample profile's JSON (raw content), as the project does with its own.
  private readonly dictionary = Buffer.from(
    JSON.stringify(sampleProfile()) + (LEVEL >= 5 ? JSON.stringify(sampleFailedProfile()) : ''),
  );
  private readonly zstdParams = { [zlibConstants.ZSTD_c_compressionLevel]: 1 };
  // JSON is encoded into one reused buffer (Node's zlib gives each compressed blob a Buffer of its own).
  private json = Buffer.allocUnsafe(64 * 1024);
  private nextId: number;
  private readonly writeBatch: (batch: Profile[]) => void;

  constructor(file: string) {
    this.db = new Database(file);
    writeFileSync(`${file}.dict`, this.dictionary); // for bench/floor/run.mjs to decode a stored profile
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db
      .exec(`CREATE TABLE IF NOT EXISTS profile(id INTEGER PRIMARY KEY, token TEXT UNIQUE, ip TEXT, method TEXT, url TEXT, status INTEGER, time INTEGER);
      CREATE INDEX IF NOT EXISTS profile_time ON profile(time);
      CREATE INDEX IF NOT EXISTS profile_ip ON profile(ip, time);
      CREATE INDEX IF NOT EXISTS profile_url ON profile(url, time);
      CREATE INDEX IF NOT EXISTS profile_status ON profile(status, time);
      CREATE TABLE IF NOT EXISTS profile_data(id INTEGER PRIMARY KEY, data BLOB);`);
    // Ids are counted here, so the data row needs no lastInsertRowid round trip.
    this.nextId = ((this.db.prepare('SELECT max(id) AS m FROM profile').get() as { m: number | null }).m ?? 0) + 1;
    const insertProfile = this.db.prepare(
      'INSERT INTO profile(id, token, ip, method, url, status, time) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const insertData = this.db.prepare('INSERT INTO profile_data(id, data) VALUES (?, ?)');
    this.writeBatch = this.db.transaction((batch: Profile[]) => {
      for (const p of batch) {
        const id = this.nextId++;
        insertProfile.run(id, p.token, p.ip, p.method, p.url, p.status, p.time);
        insertData.run(id, this.encode(p));
      }
    });
  }

  push(p: Profile): void {
    this.batch.push(p);
    if (this.batch.length >= 100) {
      this.immediate ??= setImmediate(this.flush);
    } else if (this.timer === null) {
      this.timer = setTimeout(this.flush, 50);
    }
  }

  readonly flush = (): void => {
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.immediate !== null) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    this.writeBatch(batch);
  };

  close(): void {
    this.flush();
    this.db.close();
  }

  private encode(p: Profile): Buffer {
    const text = JSON.stringify(p);
    if (text.length * 3 > this.json.length) this.json = Buffer.allocUnsafe(text.length * 3);
    const n = this.json.write(text);
    return zstdCompressSync(this.json.subarray(0, n), {
      dictionary: this.dictionary,
      params: this.zstdParams,
      pledgedSrcSize: n,
    });
  }
}

const store =
  LEVEL >= 3
    ? new Store(process.env.FLOOR_DB ?? join(mkdtempSync(join(os.tmpdir(), 'floor-')), 'profiles.sqlite'))
    : null;
// Levels 1-2 keep their last records in a ring, so the record is really built and kept somewhere, as a profiler's is.
const ring: Array<MatchedRoute | Profile | undefined> = new Array(64);
let ringAt = 0;

/** 'finish' listener, shared by all responses (`this` is the response): no closure per request. */
function onFinish(this: Traced): void {
  const trace = this.floorTrace!;
  const req = this.req as Request;
  const end = performance.now();
  const info = new MatchedRoute(
    req.route ? (req.route as { path: string }).path : null,
    req.method,
    req.originalUrl,
    Math.round((end - trace.start) * 1000),
  );
  if (store === null) {
    ring[ringAt++ & 63] = info;
    return;
  }
  const heap = v8.getHeapStatistics();
  if (trace.failure !== null) {
    store.push(
      new FailedProfile(
        [
          trace.token,
          req.method,
          req.originalUrl,
          req.socket.remoteAddress ?? '',
          this.statusCode,
          trace.time,
          Math.round((end - trace.start) * 1000),
          info.route,
          maskedHeaders(req.headers),
          this.getHeaders(),
          { heapUsed: heap.used_heap_size, heapTotal: heap.total_heap_size },
          info,
          trace.logs,
          trace.events,
        ],
        trace.failure,
      ),
    );
    return;
  }
  store.push(
    new Profile(
      trace.token,
      req.method,
      req.originalUrl,
      req.socket.remoteAddress ?? '',
      this.statusCode,
      trace.time,
      Math.round((end - trace.start) * 1000),
      info.route,
      maskedHeaders(req.headers),
      this.getHeaders(),
      { heapUsed: heap.used_heap_size, heapTotal: heap.total_heap_size },
      info,
      trace.logs,
      trace.events,
    ),
  );
}

function profilerMiddleware(req: Request, res: Traced, next: NextFunction): void {
  const trace = new Trace(nextToken(), performance.now(), Date.now());
  notifyAll(trace);
  if (LEVEL >= 2) {
    res.setHeader('X-Debug-Token', trace.token);
    res.setHeader('X-Debug-Token-Link', `http://${req.headers.host}/_profiler/${trace.token}`);
  }
  res.floorTrace = trace;
  res.on('finish', onFinish);
  next();
}

// ---- Level 4: the toolbar ----
// One static template (about 1.5 KB) cut at its four blanks; filling it is a string concatenation.
const TOOLBAR = [
  `<div id="sfwdt" class="sf-toolbar" role="region" aria-label="Debug toolbar"><style>
.sf-toolbar{position:fixed;left:0;right:0;bottom:0;z-index:99999;display:flex;gap:0;height:36px;background:#222;color:#eee;font:13px/36px -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;box-shadow:0 -1px 4px rgba(0,0,0,.3)}
.sf-toolbar .sf-block{padding:0 10px;border-right:1px solid #444;white-space:nowrap}.sf-toolbar .sf-block:hover{background:#333}
.sf-toolbar a{color:inherit;text-decoration:none}.sf-toolbar .sf-label{color:#aaa;margin-right:4px}.sf-toolbar .sf-value{font-weight:600}
.sf-toolbar .sf-ok{background:#4f805d}.sf-toolbar .sf-warn{background:#a46a1f}.sf-toolbar .sf-err{background:#b0413e}
.sf-toolbar .sf-close{margin-left:auto;padding:0 12px;cursor:pointer;background:none;border:0;color:#aaa;font-size:16px}
</style><div class="sf-block sf-token"><a href="/_profiler/`,
  `"><span class="sf-label">Token</span><span class="sf-value">`,
  `</span></a></div><div class="sf-block sf-ok"><span class="sf-label">Status</span><span class="sf-value">`,
  `</span></div><div class="sf-block"><span class="sf-label">Route</span><span class="sf-value">`,
  `</span></div><div class="sf-block"><span class="sf-label">Time</span><span class="sf-value">`,
  ` ms</span></div><div class="sf-block"><a href="/_profiler/search?limit=10"><span class="sf-label">Last profiles</span></a></div><div class="sf-block"><a href="/_profiler/phpinfo"><span class="sf-label">Runtime</span><span class="sf-value">Node ${process.versions.node}</span></a></div><button class="sf-close" type="button" title="Hide the toolbar" onclick="this.parentNode.style.display='none'">&times;</button></div>
`,
];
const HTML_SPECIAL = /[&<>"']/;
const escapeHtml = (s: string): string =>
  HTML_SPECIAL.test(s) ? s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`) : s;

function toolbarFor(res: Traced, trace: Trace): string {
  const route = (res.req as Request).route as { path: string } | undefined;
  return (
    TOOLBAR[0] +
    trace.token +
    TOOLBAR[1] +
    trace.token +
    TOOLBAR[2] +
    res.statusCode +
    TOOLBAR[3] +
    escapeHtml(route ? route.path : 'n/a') +
    TOOLBAR[4] +
    (performance.now() - trace.start).toFixed(1) +
    TOOLBAR[5]
  );
}

/**
 * Wraps Express's res.send once, on its response prototype (no closure per request): an HTML string answer of a
 * traced response gets the toolbar before its last </body>. Express's send then sets Content-Length (and the ETag)
 * from the final body, as for the bare page.
 */
function installToolbar(express: Express): void {
  const proto = express.response as Traced;
  const send = proto.send;
  proto.send = function (this: Traced, body?: unknown) {
    const trace = this.floorTrace;
    if (trace !== undefined && typeof body === 'string') {
      const type = this.getHeader('Content-Type');
      const at = typeof type === 'string' && type.startsWith('text/html') ? body.lastIndexOf('</body>') : -1;
      if (at !== -1) body = body.slice(0, at) + toolbarFor(this, trace) + body.slice(at);
    }
    return send.call(this, body);
  } as typeof proto.send;
}

// ---- Level 5: the debug 404 page ----
// The request path of an unmatched URL, as the real kernel runs it: the profiler's middleware hands the request to a
// kernel, which dispatches kernel.request; six listeners are traced, the router's last: its matcher throws a
// ResourceNotFoundException, which the router listener wraps in a NotFoundHttpException (its `cause`). Both are
// real Error subclasses, thrown and caught, so V8 captures their stacks (Error.stackTraceLimit = 50, as debug mode
// sets it). The kernel catches the outer one, logs it (ERROR), and renders the page: frames parsed from error.stack,
// mapped through dist/main.js.map to src/main.ts, with excerpts. Nest never sees the request.
//
// Cached as the real application caches: source maps (parsed once), source files (read once, split in lines), the
// frames of a call path (key: the stack below its message, as the real ExceptionFlattener's), and with them what the
// real app keeps per call path (the frames' HTML, their plain-text lines, their stored tuples); the page's static
// parts. Rendered per request: everything that holds this request's values (message, URL, token, log times).
if (LEVEL >= 5) Error.stackTraceLimit = 50;

const ROOT = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');
const FRAMES_START = '\n    at ';
const MAX_CACHED = 500;

class ResourceNotFoundException extends Error {}
ResourceNotFoundException.prototype.name = 'ResourceNotFoundException';

class NotFoundHttpException extends Error {
  readonly statusCode = 404;
  constructor(message: string, cause: Error) {
    super(message, { cause });
  }
}
NotFoundHttpException.prototype.name = 'NotFoundHttpException';

const statusOf = (e: Error): number => (e instanceof NotFoundHttpException ? e.statusCode : 500);

// -- Source maps and sources (the real SourceMaps / SourceResolver, minus the inline-map branch) --
const maps = new Map<string, TraceMap | null>();
const MAPPING_URL = /\/\/[#@]\s*sourceMappingURL=(\S+)\s*$/gm;

function mapFor(path: string): TraceMap | null {
  if (maps.has(path)) return maps.get(path) ?? null;
  let map: TraceMap | null = null;
  try {
    let url: string | undefined;
    for (const match of readFileSync(path, 'utf8').matchAll(MAPPING_URL)) url = match[1];
    const mapFile = url ? resolve(dirname(path), decodeURIComponent(url)) : `${path}.map`;
    map = existsSync(mapFile) ? new TraceMap(readFileSync(mapFile, 'utf8'), mapFile) : null;
  } catch {
    map = null;
  }
  if (maps.size >= MAX_CACHED) maps.delete(maps.keys().next().value as string);
  maps.set(path, map);
  return map;
}

function locate(file: string, line: number, column: number): { file: string; line: number; column: number } {
  const path = file.startsWith('file://') ? fileURLToPath(file) : file;
  if (!isAbsolute(path) || !path.endsWith('.js')) return { file: path, line, column };
  const map = mapFor(path);
  if (!map) return { file: path, line, column };
  const original = originalPositionFor(map, { line, column: Math.max(0, column - 1) });
  if (original.source === null || original.line === null) return { file: path, line, column };
  const source = original.source.startsWith('file://')
    ? fileURLToPath(original.source)
    : resolve(dirname(path), original.source);
  return { file: source, line: original.line, column: (original.column ?? 0) + 1 };
}

const sources = new Map<string, string[] | null>();
function sourceLines(file: string): string[] | null {
  if (sources.has(file)) return sources.get(file) ?? null;
  let lines: string[] | null = null;
  try {
    if (isAbsolute(file)) lines = readFileSync(file, 'utf8').split(/\r?\n/);
  } catch {
    lines = null;
  }
  if (sources.size >= MAX_CACHED) sources.delete(sources.keys().next().value as string);
  sources.set(file, lines);
  return lines;
}

interface ExcerptLine {
  number: number;
  text: string;
  current: boolean;
}
function excerpt(file: string, line: number, radius = 5): ExcerptLine[] | null {
  const lines = sourceLines(file);
  if (!lines || line < 1 || line > lines.length) return null;
  const out: ExcerptLine[] = [];
  for (let n = Math.max(1, line - radius); n <= Math.min(lines.length, line + radius); n++)
    out.push({ number: n, text: lines[n - 1], current: n === line });
  return out;
}

const isVendor = (file: string): boolean =>
  file.includes(`${sep}node_modules${sep}`) || file.startsWith('node:') || !isAbsolute(file);
const relativePath = (file: string): string => (file.startsWith(ROOT + sep) ? relative(ROOT, file) : file);

// -- The frames of a call path, parsed and mapped once, with what the real app keeps of them --
interface Frame {
  readonly function: string;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly vendor: boolean;
  readonly excerpt: readonly ExcerptLine[] | null;
}
interface CallPath {
  readonly frames: readonly Frame[];
  /** The excerpt and frame list (views/error/partials/exception-frames.hbs), one flat one-byte string. */
  readonly html: string;
  /** The plain-text trace's `at` lines, HTML-escaped. */
  readonly lines: string;
  /** The frames as the profile stores them. */
  readonly tuples: FrameTuple[];
}
const callPaths = new Map<string, CallPath>();

function callPathOf(error: Error): CallPath {
  const stack = typeof error.stack === 'string' ? error.stack : '';
  const start = stack.indexOf(FRAMES_START);
  const key = start < 0 ? '' : stack.slice(start);
  const known = callPaths.get(key);
  if (known !== undefined) return known;
  let parsed: ReturnType<typeof parseStack> = [];
  try {
    parsed = parseStack(error, { allowEmpty: true });
  } catch {
    parsed = [];
  }
  const frames = parsed.slice(0, 60).map((f): Frame => {
    const at = locate(f.file ?? 'unknown', f.line ?? 0, f.col ?? 0);
    const vendor = isVendor(at.file);
    return Object.freeze({
      function: f.function || '(anonymous)',
      file: relativePath(at.file),
      line: at.line,
      column: at.column,
      vendor,
      excerpt: vendor ? null : excerpt(at.file, at.line),
    });
  });
  const path: CallPath = Object.freeze({
    frames: Object.freeze(frames),
    html: oneByteHtml(framesHtml(frames)),
    lines: oneByteHtml(
      frames.map((f) => `\n    at ${escapeHtml(f.function)} (${escapeHtml(f.file)}:${f.line}:${f.column})`).join(''),
    ),
    tuples: frames.map((f): FrameTuple => [f.function, f.file, f.line, f.column, f.vendor ? 1 : 0]),
  });
  if (callPaths.size >= MAX_CACHED) callPaths.delete(callPaths.keys().next().value as string);
  callPaths.set(key, path);
  return path;
}

const excerptHtml = (lines: readonly ExcerptLine[], numbered: boolean): string =>
  `<ol class="excerpt">${lines.map((l) => `<li class="${l.current ? 'current' : ''}"${numbered ? ` data-line="${l.number}"` : ''}><span class="num">${l.number}</span>${escapeHtml(l.text)}</li>`).join('')}</ol>`;

function framesHtml(frames: readonly Frame[]): string {
  const top = frames.find((f) => !f.vendor && f.excerpt) ?? frames.find((f) => f.excerpt);
  let html = top?.excerpt
    ? `  <div class="excerpt-file">${escapeHtml(top.file)}:${top.line}</div>\n  ${excerptHtml(top.excerpt, true)}\n`
    : '';
  html += '  <ul class="frames">\n';
  for (const f of frames) {
    const summary = `<summary><span class="fn">${escapeHtml(f.function)}</span> <span class="loc">${escapeHtml(f.file)}:${f.line}:${f.column}</span>`;
    html += f.vendor
      ? `    <li class="frame vendor"><details>${summary}<span class="vendor-tag">vendor</span></summary></details></li>\n`
      : `    <li class="frame app"><details open>${summary}</summary>\n      ${f.excerpt ? excerptHtml(f.excerpt, false) : ''}\n    </details></li>\n`;
  }
  return `${html}  </ul>\n`;
}

/**
 * Characters beyond ASCII as character references, then a flat one-byte string (src/profiler/error-page/one-byte.ts
 * stops at Latin-1; here the whole page is kept ASCII, so its length is its byte length and it is written as latin1,
 * a copy, with no UTF-8 encoding into a Buffer of its own).
 */
const BEYOND_ASCII = /[\u0080-\u{10ffff}]/u;
function oneByteHtml(html: string): string {
  const escaped = BEYOND_ASCII.test(html)
    ? html.replace(/[\u0080-\u{10ffff}]/gu, (c) => `&#x${c.codePointAt(0)!.toString(16)};`)
    : html;
  return Buffer.from(escaped, 'latin1').toString('latin1');
}
/** A request value as ASCII HTML: the five specials and anything beyond ASCII as character references. */
const HTML_OR_NON_ASCII = /[&<>"'\u0080-\u{10ffff}]/u;
const escapeAscii = (s: string): string =>
  HTML_OR_NON_ASCII.test(s) ? s.replace(/[&<>"'\u0080-\u{10ffff}]/gu, (c) => `&#${c.codePointAt(0)};`) : s;

// -- The kernel: kernel.request's six listeners (traced), the router's last --
class UrlMatcher {
  private readonly routes = new Map<string, readonly string[]>([['/', ['GET', 'HEAD']]]); // Nest's one route
  match(path: string, method: string): string {
    const methods = this.routes.get(path);
    if (methods === undefined || !methods.includes(method))
      throw new ResourceNotFoundException(`No routes found for "${path}".`);
    return path;
  }
}

class RouterListener {
  private readonly matcher = new UrlMatcher();
  onKernelRequest(req: Request): void {
    try {
      this.matcher.match(req.path, req.method);
    } catch (error) {
      if (error instanceof ResourceNotFoundException)
        throw new NotFoundHttpException(
          `No route found for "${req.method} ${req.protocol}://${req.headers.host}${req.originalUrl}"`,
          error,
        );
      throw error;
    }
  }
}

const router = new RouterListener();
/** kernel.request's listeners: five of the 29 (their names below), then the router. */
const KERNEL_REQUEST: Array<(req: Request) => void> = [...LISTENERS.slice(0, 5), (req) => router.onKernelRequest(req)];
const LISTENER_NAMES = [
  'DebugHandlersListener::configure',
  'ValidateRequestListener::onKernelRequest',
  'CorsListener::onKernelRequest',
  'SessionListener::onKernelRequest',
  'LocaleListener::setDefaultLocale',
  'RouterListener::onKernelRequest',
];

class EventDispatcher {
  /** Listener i of kernel.request is traced as listener i of the 29 (its time recorded even when it throws). */
  dispatchKernelRequest(req: Request, trace: Trace): void {
    const t0 = trace.start;
    const { logs, events } = trace;
    for (let i = 0; i < KERNEL_REQUEST.length; i++) {
      const s = performance.now();
      try {
        KERNEL_REQUEST[i](req);
      } finally {
        const e = performance.now();
        logs.push(i, Math.round((s - t0) * 1000));
        events.push(i, Math.round((s - t0) * 1000), Math.round((e - s) * 1000));
      }
    }
  }
}

class HttpKernel {
  private readonly dispatcher = new EventDispatcher();
  handle(req: Request, trace: Trace): void {
    this.handleRequest(req, trace);
  }
  private handleRequest(req: Request, trace: Trace): void {
    this.dispatcher.dispatchKernelRequest(req, trace);
  }
}
const kernel = new HttpKernel();

/** The rest of the 29 listeners, for a request that matched (what level 3 calls after the first six). */
function notifyRest(trace: Trace): void {
  const t0 = trace.start;
  const { logs, events } = trace;
  for (let i = KERNEL_REQUEST.length; i < LISTENERS.length; i++) {
    const s = performance.now();
    LISTENERS[i]();
    const e = performance.now();
    logs.push(i, Math.round((s - t0) * 1000));
    events.push(i, Math.round((s - t0) * 1000), Math.round((e - s) * 1000));
  }
}

function debugProfilerMiddleware(req: Request, res: Traced, next: NextFunction): void {
  const trace = new Trace(nextToken(), performance.now(), Date.now());
  res.setHeader('X-Debug-Token', trace.token);
  res.setHeader('X-Debug-Token-Link', `http://${req.headers.host}/_profiler/${trace.token}`);
  res.floorTrace = trace;
  res.on('finish', onFinish);
  try {
    kernel.handle(req, trace);
  } catch (error) {
    sendDebugPage(error as Error, res, trace);
    return;
  }
  notifyRest(trace);
  next();
}

// -- The page: views/error/debug.hbs cut at its blanks (its CSS read once from views/) --
const DEBUG_HBS = readFileSync(join(ROOT, 'views/error/debug.hbs'), 'utf8');
const CSS =
  DEBUG_HBS.slice(DEBUG_HBS.indexOf('<style>') + 8, DEBUG_HBS.indexOf('{{{chainCss}}}')) +
  readFileSync(join(ROOT, 'views/error/partials/exception-chain.css'), 'utf8');
const PAGE_HEAD = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="robots" content="noindex,nofollow">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>`;
const PAGE_STYLE = `</title>
<style>
${CSS}</style>
</head>
<body>
<header>
  <div class="chain"><span>`;
const PAGE_FOOT = `</section>
</main>
<script>
document.querySelectorAll('button.copy').forEach(function (button) {
  if (!navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener('click', function () {
    navigator.clipboard.writeText(document.getElementById(button.dataset.copy).textContent).then(function () { button.textContent = 'Copied'; });
  });
});
</script>
</body>
</html>
`;
const ROW_DEBUG = '<tr class="level-row-debug"><td><span class="level level-debug">DEBUG</span><br><time>';
/** A notified row after its time: the listener's message and context never hold a request value (escaped once). */
const NOTIFIED_ROWS = LISTENER_NAMES.map(
  (listener) =>
    `</time></td><td>event</td><td>${escapeAscii(`Notified event "kernel.request" to listener "${listener}".`)}<pre class="context">${escapeAscii(JSON.stringify({ event: 'kernel.request', listener }, null, 2))}</pre></td></tr>\n`,
);

interface Chained {
  error: Error;
  path: CallPath;
  class: string;
  message: string; // escaped
}

function sendDebugPage(outer: Error, res: Traced, trace: Trace): void {
  const status = statusOf(outer);
  const statusText = STATUS_CODES[status] ?? 'Error';
  // The chain, outermost first.
  const chain: Chained[] = [];
  for (let e: unknown = outer; e instanceof Error && chain.length < 10; e = e.cause)
    chain.push({ error: e, path: callPathOf(e), class: e.name, message: escapeAscii(e.message) });
  const count = chain.length;
  const top = chain[0].path.frames[0];
  const file = top ? top.file : 'unknown';
  const line = top ? top.line : 0;
  const at = Math.round((performance.now() - trace.start) * 1000);
  const errorLog = new ErrorLog(at, { class: outer.name, message: outer.message, file, line });
  const exceptions: StoredException[] = chain.map((c, i) => ({
    position: count - i,
    count,
    class: c.class,
    message: c.error.message,
    statusCode: statusOf(c.error),
    statusText: STATUS_CODES[statusOf(c.error)] ?? 'Error',
    frames: c.path.tuples,
  }));
  trace.failure = { exceptions, error: errorLog };

  const msg = chain[0].message;
  const title = `${msg} (${status} ${statusText})`;
  let classChain = '';
  for (let i = count - 1; i >= 0; i--)
    classChain += `${i === count - 1 ? '' : ' &rsaquo; '}<abbr title="${escapeAscii(chain[i].class)}">${escapeAscii(chain[i].class)}</abbr>`;
  let page = `<!-- ${title} -->\n${PAGE_HEAD}${title}${PAGE_STYLE}${classChain}</span><span>HTTP ${status} ${statusText} &middot; <a class="profile" href="/_profiler/${trace.token}">Profile ${trace.token}</a></span></div>
  <h1>${msg}</h1>
</header>
<nav>
  <a href="#exceptions">Exceptions <span class="badge">${count}</span></a>
  <a href="#logs">Logs <span class="badge error">1</span></a>
  <a href="#stack-traces">Stack Traces <span class="badge">${count}</span></a>
</nav>
<main>
<section id="exceptions">
  <h2>Exceptions <span class="badge">${count}</span></h2>
`;
  for (let i = 0; i < count; i++) {
    const c = chain[i];
    page += `<div class="trace" id="trace-box-${count - i}">\n  <div class="trace-head"><span class="label">[${count - i}/${count}]</span><span class="class">${escapeAscii(c.class)}</span><p class="message">${c.message}</p></div>\n${c.path.html}\n</div>\n`;
  }
  const debug = trace.logs.length / 2;
  page += `</section>
<section id="logs">
  <h2>Logs <span class="badge error">${debug + 1}</span></h2>
  <div class="counts">1 errors &middot; 0 warnings &middot; 0 deprecations &middot; ${debug} debug</div>
  <table class="logs">
    <thead><tr><th>Level</th><th>Channel</th><th>Message</th></tr></thead>
    <tbody>
    `;
  // Log times as HH:MM:SS (UTC); the entries of a request mostly share their second.
  let second = Number.NaN;
  let clock = '';
  const timeOf = (offset: number): string => {
    const ms = trace.time + offset / 1000;
    if (Math.floor(ms / 1000) !== second) {
      second = Math.floor(ms / 1000);
      clock = new Date(ms).toISOString().slice(11, 19);
    }
    return clock;
  };
  const logs = trace.logs;
  for (let i = 0; i < logs.length; i += 2) page += ROW_DEBUG + timeOf(logs[i + 1]) + NOTIFIED_ROWS[logs[i]];
  const context = { ...errorLog.context, exception: { class: outer.name, message: outer.message } };
  page += `<tr class="level-row-error"><td><span class="level level-error">ERROR</span><br><time>${timeOf(at)}</time></td><td>request</td><td>Uncaught Exception ${escapeAscii(outer.name)}: &quot;${msg}&quot; at ${escapeAscii(file)} line ${line}<pre class="context">${escapeAscii(JSON.stringify(context, null, 2))}</pre></td></tr>

    </tbody>
  </table>
</section>
<section id="stack-traces">
  <h2>Stack Traces <span class="badge">${count}</span></h2>
`;
  for (let i = 0; i < count; i++) {
    const c = chain[i];
    page += `  <div><button type="button" class="copy" data-copy="stack-trace-${i}" hidden>Copy</button>\n  <pre class="stack" id="stack-trace-${i}">[${count - i}/${count}] ${escapeAscii(c.class)}: ${c.message}${c.path.lines}</pre></div>\n`;
  }
  page += PAGE_FOOT;

  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Debug-Exception', encodeURIComponent(outer.message));
  res.setHeader('X-Debug-Exception-File', `${encodeURIComponent(file)}:${line}`);
  res.setHeader('Content-Length', page.length); // ASCII: one byte a character
  res.end(page, 'latin1');
}

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(FloorModule, { logger: ['error'] });
  // Nest registers its routes at listen(): a middleware added now runs before them.
  if (LEVEL >= 5) app.use(debugProfilerMiddleware);
  else if (LEVEL >= 1) app.use(profilerMiddleware);
  if (LEVEL === 4) installToolbar(app.getHttpAdapter().getInstance() as Express);
  if (store !== null) {
    // The last batch is written before exiting, so the bench can count every stored profile.
    process.once('SIGTERM', () => {
      store.close();
      process.exit(0);
    });
  }
  const port = Number(process.env.PORT ?? 3100);
  const host = process.env.HOST ?? '127.0.0.1';
  await app.listen(port, host);
  process.stdout.write(`Floor level ${LEVEL} listening on http://${host}:${port}\n`);
}

void bootstrap();
