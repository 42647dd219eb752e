import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import diagnostics from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { dirname, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { callSites } from '../../lifecycle/call-sites.js';
import { currentKernelContext, type KernelContext } from '../../lifecycle/kernel-context.js';
import { Redactor } from '../../lifecycle/redaction/redactor.js';
import { ProfilerService } from '../profiler.service.js';
import { newSpanId, requestTrace, traceparent } from '../tracing/trace-context.js';
import { OUTGOING_CALLS, type CallPosition, type OutgoingCall } from './outgoing-call.js';

/** Calls kept per request; more are counted by the collector as dropped. */
export const MAX_CALLS = 100;
/** Frames looked through for the caller: from the channel's subscriber, through undici or node:http, to the app. */
const STACK_DEPTH = 40;
const OWN_DIR_URL = pathToFileURL(dirname(fileURLToPath(import.meta.url)) + sep).href;

interface UndiciRequest {
  addHeader(name: string, value: string): unknown;
  method: string;
  origin: string;
  path: string;
  headers: string | unknown[];
  body?: unknown;
}
interface UndiciResponse {
  statusCode: number;
  headers: unknown[];
}

/** How many applications of this process record calls: the channels are subscribed once, while one does. */
let recorders = 0;
/** The call each request object of undici or node:http stands for, while it runs. */
const calls = new WeakMap<object, Recording>();

interface Recording {
  call: OutgoingCall;
  context: KernelContext;
}

const SUBSCRIPTIONS: Array<[string, (message: unknown) => void]> = [
  ['undici:request:create', (m) => fetchStarted((m as { request: UndiciRequest }).request)],
  ['undici:request:headers', (m) => fetchAnswered(m as { request: object; response: UndiciResponse })],
  ['undici:request:trailers', (m) => finished((m as { request: object }).request)],
  ['undici:request:error', (m) => failed(m as { request: object; error: unknown })],
  ['http.client.request.created', (m) => httpStarted((m as { request: ClientRequest }).request)],
  ['http.client.response.finish', (m) => httpAnswered(m as { request: ClientRequest; response: IncomingMessage })],
  ['http.client.request.error', (m) => failed(m as { request: object; error: unknown })],
];

/**
 * Records the HTTP calls a request makes, through Node's diagnostics channels (no patching): undici's for `fetch`,
 * node:http's for `http.request` and `https.request`. A call made outside a request (a start-up task, a CLI) is
 * not recorded. Subscribed only while the profiler is on, once per process however many applications run in it
 * (the tests start several): each call goes to its own request's KernelContext, which only that application's
 * profiler reads. A request without outgoing calls pays nothing.
 */
@Injectable()
export class HttpClientRecorder implements OnModuleInit, OnModuleDestroy {
  private recording = false;

  constructor(private readonly profiler: ProfilerService) {}

  onModuleInit(): void {
    if (!this.profiler.enabled) return;
    this.recording = true;
    if (recorders++ === 0) for (const [channel, handler] of SUBSCRIPTIONS) diagnostics.subscribe(channel, handler);
  }

  onModuleDestroy(): void {
    if (!this.recording) return;
    this.recording = false;
    if (--recorders === 0) for (const [channel, handler] of SUBSCRIPTIONS) diagnostics.unsubscribe(channel, handler);
  }
}

function fetchStarted(request: UndiciRequest): void {
  const body = request.body;
  const bytes = typeof body === 'string' ? Buffer.byteLength(body) : Buffer.isBuffer(body) ? body.length : null;
  const headers = pairs(request.headers);
  started(request, 'fetch', request.method, `${request.origin}${request.path}`, headers, bytes, (name, value) =>
    request.addHeader(name, value),
  );
}

function httpStarted(request: ClientRequest): void {
  const headers = Object.fromEntries(
    Object.entries(request.getHeaders()).map(([name, value]) => [name, String(value)]),
  );
  // Node writes the Host header with the port when it is not the protocol's default: the URL as called.
  const host = request.getHeader('host');
  const url = `${request.protocol}//${typeof host === 'string' ? host : request.host}${request.path}`;
  started(request, 'http', request.method, url, headers, null, (name, value) => {
    if (!request.headersSent) request.setHeader(name, value);
  });
}

function started(
  key: object,
  client: OutgoingCall['client'],
  method: string,
  url: string,
  headers: Record<string, string>,
  requestBytes: number | null,
  addHeader: (name: string, value: string) => void,
): void {
  const context = currentKernelContext();
  if (!context) return;
  // The call is a span of the request's trace: the service called learns its parent (unless the caller set one).
  const trace = requestTrace(context);
  const spanId = newSpanId();
  if (headers.traceparent === undefined) {
    headers.traceparent = traceparent(trace.traceId, spanId, trace.sampled);
    addHeader('traceparent', headers.traceparent);
  }
  let recorded = context.get(OUTGOING_CALLS);
  if (!recorded) context.set(OUTGOING_CALLS, (recorded = { calls: [], dropped: 0 }));
  if (recorded.calls.length >= MAX_CALLS) {
    recorded.dropped++;
    return;
  }
  const call: OutgoingCall = {
    client,
    method,
    url: Redactor.url(url),
    requestHeaders: Redactor.headers(headers) as Record<string, string>,
    requestBytes,
    status: null,
    responseHeaders: {},
    responseBytes: null,
    start: context.elapsed(),
    waited: null,
    duration: null,
    error: null,
    timedOut: false,
    caller: outgoingCaller(),
    debugToken: null,
    debugLink: null,
    spanId,
  };
  recorded.calls.push(call);
  calls.set(key, { call, context });
}

function fetchAnswered({ request, response }: { request: object; response: UndiciResponse }): void {
  answered(request, response.statusCode, pairs(response.headers));
}

function httpAnswered({ request, response }: { request: ClientRequest; response: IncomingMessage }): void {
  const headers = Object.fromEntries(
    Object.entries(response.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(', ') : String(value),
    ]),
  );
  answered(request, response.statusCode ?? null, headers);
  response.once('end', () => finished(request));
}

function answered(key: object, status: number | null, headers: Record<string, string>): void {
  const recording = calls.get(key);
  if (!recording) return;
  const { call, context } = recording;
  call.status = status;
  call.waited = context.elapsed() - call.start;
  call.responseHeaders = Redactor.headers(headers) as Record<string, string>;
  const length = headers['content-length'];
  call.responseBytes = length !== undefined && /^\d+$/.test(length) ? Number(length) : null;
  const token = headers['x-debug-token'] ?? '';
  call.debugToken = /^[0-9a-f]{6}$/.test(token) ? token : null;
  const link = headers['x-debug-token-link'] ?? '';
  call.debugLink = call.debugToken && /^https?:\/\//.test(link) ? link : null;
}

function finished(key: object): void {
  const recording = calls.get(key);
  if (!recording || recording.call.duration !== null) return;
  recording.call.duration = recording.context.elapsed() - recording.call.start;
}

function failed({ request, error }: { request: object; error: unknown }): void {
  const recording = calls.get(request);
  if (!recording) return;
  const { call, context } = recording;
  const name = (error as { name?: string })?.name ?? '';
  const code = (error as { code?: string })?.code ?? '';
  call.error = Redactor.text(`${name || 'Error'}: ${(error as Error)?.message ?? String(error)}`);
  call.timedOut = /timeout/i.test(name) || /TIMEOUT/.test(code);
  call.duration ??= context.elapsed() - call.start;
}

/** Header pairs of undici's flat arrays (`[name, value, …]`, strings or buffers), or of a raw header block. */
function pairs(flat: string | unknown[]): Record<string, string> {
  const headers: Record<string, string> = {};
  if (typeof flat === 'string') {
    for (const line of flat.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    return headers;
  }
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const name = String(flat[i]).toLowerCase();
    const value = String(flat[i + 1]);
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

/** The first frame of the application's code: not Node's, not a package's, not this recorder's. */
function outgoingCaller(): CallPosition | null {
  for (const site of callSites(STACK_DEPTH, outgoingCaller)) {
    const file = site.getFileName();
    if (!file || file.startsWith('node:') || file.includes('/node_modules/') || file.startsWith(OWN_DIR_URL)) continue;
    if (file.startsWith(OWN_DIR_URL.replace('file://', ''))) continue;
    return { file, line: site.getLineNumber() ?? 0, column: site.getColumnNumber() ?? 0 };
  }
  return null;
}
