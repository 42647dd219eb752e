import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import { configure } from 'safe-stable-stringify';
import { DICTIONARY_V2 } from './profile-dictionary-v2.js';
import { profileJson } from './profile-json.js';
import { ZstdCompressor } from './zstd-compressor.js';

const inflateRawAsync = promisify(inflateRaw);

/** JSON of anything that is not plain JSON (BigInt, cycles): a profile must never fail to encode. */
const lenientStringify = configure({ bigint: true, circularValue: '[Circular]', deterministic: false });

/**
 * The blob formats, by their one-byte tag (the blob's first byte). A tag, once written to a store, is decoded
 * forever: to change the compression or the dictionary, add a tag, write it, and keep the old decoders.
 */
export const ProfileFormat = {
  /** UTF-8 JSON, uncompressed (written when compressing would not make it smaller). */
  JSON: 0x00,
  /** Raw deflate of the UTF-8 JSON with `DICTIONARY_V1` as zlib's preset dictionary (decoded only). */
  DEFLATE_DICTIONARY_V1: 0x01,
  /** Raw deflate of the UTF-8 JSON with `DICTIONARY_V2` (the compact collector data) as preset dictionary (decoded only). */
  DEFLATE_DICTIONARY_V2: 0x02,
  /** One Zstandard frame of the UTF-8 JSON, with `DICTIONARY_V2` as its raw-content dictionary. */
  ZSTD_DICTIONARY_V2: 0x03,
} as const;

/**
 * Format 1's preset dictionary (decoding only): the JSON every profile repeats (collector names, keys, listener
 * names, log templates, header names and values), as the collectors write it. Deflate looks back into it as if it
 * preceded each blob; zlib favours what comes last (shorter distances), so the most repeated fragments (log
 * entries, listener calls) are at the end.
 *
 * NEVER EDIT: blobs of format 1 decode only with exactly these bytes (a spec pins its SHA-256). A better
 * dictionary is a new format tag.
 */
const DICTIONARY_V1 = Buffer.from(
  [
    // Rare: failures, exceptions, bodies, uploads.
    '"exception":{"exceptions":[{"position":1,"count":1,"class":"NotFoundHttpException","message":"No route found for \\"GET http://localhost:3000/',
    '","statusCode":404,"statusText":"Not Found","frames":[{"function":"RouterListener.onKernelRequest","file":"src/lifecycle/listeners/router.listener.ts","line":',
    ',"column":15,"vendor":false},{"function":"KernelEventDispatcher.dispatch","file":"src/lifecycle/event-dispatcher.ts","line":',
    ',"vendor":false},{"function":"HttpKernel.handle","file":"src/lifecycle/http-kernel.ts","line":',
    ',"vendor":false},{"function":"Layer.handleRequest","file":"node_modules/router/lib/layer.js","line":152,"column":17,"vendor":true},',
    '{"function":"trimPrefix","file":"node_modules/router/index.js","line":342,"column":13,"vendor":true},{"function":"next","file":"node_modules/router/index.js","line":',
    '{"function":"Server.emit","file":"node:events","line":519,"column":28,"vendor":true}]}]},',
    '"failure":{"status":404,"messages":[{"class":"ResourceNotFoundException","message":"No routes found for \\"/',
    '{"class":"MethodNotAllowedException","message":"No route found for \\"POST ',
    '"statusText":"Internal Server Error","statusText":"Bad Request","statusText":"Unprocessable Entity","statusText":"Method Not Allowed",',
    '"statusText":"Forbidden","statusText":"Unauthorized","statusText":"Conflict","statusText":"See Other","statusText":"Found","statusText":"No Content",',
    '"Uncaught Exception {class}: \\"{message}\\" at {file} line {line}","context":{"class":"HttpException","message":"',
    '","file":"src/shop/',
    '"Stopped event \\"{event}\\" propagation in listener \\"{listener}\\".',
    '"body":{"contentType":"application/json","length":',
    '"body":{"contentType":"application/x-www-form-urlencoded","length":',
    ',"parsed":{"_csrf_token":"******","email":"","password":"******","quantity":"1","product":"',
    '"},"excerpt":null},',
    '"content-type":"application/x-www-form-urlencoded","content-length":"',
    '"origin":"http://localhost:3000","x-requested-with":"XMLHttpRequest","authorization":"******","content-type":"application/json",',
    '"location":"/cart","location":"/checkout","location":"/login",',
    '"session":{"cart":{"id":',
    ',"items":',
    '},"user":{"id":',
    ',"email":"',
    '@example.com"}},',
    '"templates":{"renders":[{"name":"shop/catalogue/product","start":',
    '{"name":"layouts/main","start":',
    ',"error":null}]},',
    '"category":"template","start":',
    '"category":"controller","start":',
    'CatalogueController::category","CatalogueController::product","CartController::show","CartController::add","OrdersController::checkout",',
    '"AccountsController::login","HomeController::index","controller":"',
    '"level":200,"channel":"request","message":"Matched route \\"{route}\\".","context":{"route":"',
    '","route_parameters":{"_route":"',
    '","_controller":"',
    '"},"request_uri":"http://localhost:3000/',
    '","method":"GET"},"time":',
    '"level":100,"channel":"database","message":"Executed query in {duration} ms: {sql}","context":{"sql":"select ',
    ' from \\"products\\" as \\"p\\" where \\"p\\".\\"',
    '\\" = $1 limit $2","parameters":[',
    '],"duration":',
    // Per profile: the request, response, routing, memory, config collectors.
    '"config":{"app":{"name":"shopkernel","version":"0.1.0"},"nestVersion":"12.5.1","nodeVersion":"v20.20.2","platform":"linux x64","environment":"dev","debug":true,',
    '"timezone":"Europe/Paris","locale":"en","modules":["AccountsModule","AppModule","CartModule","CatalogueModule","ConfigModule","DatabaseModule",',
    '"DiscoveryModule","EventEmitterModule","LifecycleModule","OrdersModule","ProfilerModule"],"profilerStore":"sqlite:',
    '/var/profiler.sqlite","pid":',
    '"memory":{"rss":',
    ',"peakRss":',
    ',"heapUsed":',
    ',"heapTotal":',
    ',"external":',
    ',"arrayBuffers":',
    '},',
    '"routing":{"method":"GET","path":"/',
    '","route":"',
    '","routePath":"/',
    '","params":{},"controller":"',
    '","redirectTo":null,"failure":null},',
    '"response":{"statusCode":200,"statusText":"OK","headers":{"x-powered-by":"Express","content-type":"text/html; charset=utf-8","content-length":"',
    '","cache-control":"no-cache, private","x-debug-token":"',
    '","x-debug-token-link":"http://localhost:3000/_profiler/',
    '","x-robots-tag":"noindex"},"contentType":"application/json; charset=utf-8","size":',
    ',"streamed":false,"completed":true},',
    '{"request":{"method":"GET","url":"http://localhost:3000/',
    '","scheme":"http","host":"localhost:3000","path":"/',
    '","queryString":null,"query":{},"route":"',
    '","routeParams":{},"controller":"',
    '","attributes":{"_locale":"en"},"locale":"en","clientIp":"127.0.0.1","remoteAddress":"::ffff:127.0.0.1","httpVersion":"1.1",',
    '"headers":{"host":"localhost:3000","connection":"keep-alive",',
    '"user-agent":"Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0",',
    '"user-agent":"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",',
    '"user-agent":"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",',
    '"accept":"application/json","accept":"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",',
    '"accept-encoding":"gzip, deflate, br, zstd","accept-language":"en-GB,en;q=0.9","accept-language":"fr-FR,fr;q=0.9,en;q=0.8",',
    '"cookie":"******","sec-fetch-dest":"document","sec-fetch-mode":"navigate","sec-fetch-site":"same-origin","upgrade-insecure-requests":"1",',
    '"referer":"http://localhost:3000/catalogue/',
    '"},"cookies":[{"name":"sid","value":"******"}],"body":null,"session":null,"xhr":false},',
    // Per listener call, many times in every profile: events, performance and logs (the logs collector comes first).
    '"events":{"called":[',
    '],"notCalled":[{"event":"kernel.exception","listener":"ErrorListener::logKernelException","priority":0},',
    '{"event":"kernel.exception","listener":"DebugErrorListener::onKernelException","priority":-96},',
    '{"event":"kernel.exception","listener":"ErrorListener::onKernelException","priority":-128}]},',
    '"performance":{"total":',
    ',"untilResponse":',
    ',"sections":[',
    '{"name":"kernel.exception","category":"event","start":',
    '{"name":"kernel.finish_request","category":"event","start":',
    '{"name":"kernel.terminate","category":"event","start":',
    '{"name":"kernel.response","category":"event","start":',
    '{"name":"kernel.request","category":"event","start":',
    ',"listeners":7},',
    '"category":"listener","start":0.',
    '"logs":{"entries":[',
    '],"truncated":0,"counts":{"errors":0,"warnings":0,"deprecations":0,"debug":',
    '{"event":"kernel.exception","listener":"ErrorListener::logKernelException","priority":0,"start":',
    '{"event":"kernel.exception","listener":"DebugErrorListener::onKernelException","priority":-96,"start":',
    '{"event":"kernel.exception","listener":"ErrorListener::onKernelException","priority":-128,"start":',
    '{"event":"kernel.terminate","listener":"ProfilerListener::onKernelTerminate","priority":-1024,"start":',
    '{"event":"kernel.finish_request","listener":"LocaleListener::onKernelFinishRequest","priority":0,"start":',
    '{"event":"kernel.finish_request","listener":"RouterListener::onKernelFinishRequest","priority":0,"start":',
    '{"event":"kernel.response","listener":"CorsListener::onKernelResponse","priority":0,"start":',
    '{"event":"kernel.response","listener":"ResponseListener::onKernelResponse","priority":0,"start":',
    '{"event":"kernel.response","listener":"ProfilerListener::onKernelResponse","priority":-100,"start":',
    '{"event":"kernel.response","listener":"ErrorListener::removeCspHeader","priority":-128,"start":',
    '{"event":"kernel.response","listener":"DisallowRobotsIndexingListener::onResponse","priority":-255,"start":',
    '{"event":"kernel.request","listener":"DebugHandlersListener::configure","priority":2048,"start":',
    '{"event":"kernel.request","listener":"ValidateRequestListener::onKernelRequest","priority":256,"start":',
    '{"event":"kernel.request","listener":"CorsListener::onKernelRequest","priority":250,"start":',
    '{"event":"kernel.request","listener":"LocaleListener::setDefaultLocale","priority":100,"start":',
    '{"event":"kernel.request","listener":"RouterListener::onKernelRequest","priority":32,"start":',
    '{"event":"kernel.request","listener":"LocaleListener::onKernelRequest","priority":16,"start":',
    '{"event":"kernel.request","listener":"MaintenanceListener::onKernelRequest","priority":-16,"start":',
    ',"duration":0.',
    ',"stoppedPropagation":false},',
    '"context":{"event":"kernel.terminate","listener":"ProfilerListener::onKernelTerminate"},"time":',
    '"context":{"event":"kernel.finish_request","listener":"RouterListener::onKernelFinishRequest"},"time":',
    '"context":{"event":"kernel.finish_request","listener":"LocaleListener::onKernelFinishRequest"},"time":',
    '"context":{"event":"kernel.response","listener":"DisallowRobotsIndexingListener::onResponse"},"time":',
    '"context":{"event":"kernel.response","listener":"ErrorListener::removeCspHeader"},"time":',
    '"context":{"event":"kernel.response","listener":"ProfilerListener::onKernelResponse"},"time":',
    '"context":{"event":"kernel.response","listener":"ResponseListener::onKernelResponse"},"time":',
    '"context":{"event":"kernel.response","listener":"CorsListener::onKernelResponse"},"time":',
    '"context":{"event":"kernel.request","listener":"MaintenanceListener::onKernelRequest"},"time":',
    '"context":{"event":"kernel.request","listener":"LocaleListener::onKernelRequest"},"time":',
    '"context":{"event":"kernel.request","listener":"RouterListener::onKernelRequest"},"time":',
    '"context":{"event":"kernel.request","listener":"LocaleListener::setDefaultLocale"},"time":',
    '"context":{"event":"kernel.request","listener":"CorsListener::onKernelRequest"},"time":',
    '"context":{"event":"kernel.request","listener":"ValidateRequestListener::onKernelRequest"},"time":',
    '"context":{"event":"kernel.request","listener":"DebugHandlersListener::configure"},"time":',
    '},{"level":100,"channel":"event","message":"Notified event \\"{event}\\" to listener \\"{listener}\\".",',
  ].join(''),
  'utf8',
);

/** zstd's level 1: with the dictionary, higher levels cost noticeably more time for blobs barely smaller. */
const LEVEL = 1;
/** Longest a write batch is encoded without letting requests in between (milliseconds). */
const ENCODE_SLICE_MS = 4;

/**
 * Encodes a profile's collector data to a compact blob and back: JSON, then a zstd frame with a preset dictionary
 * (format 3). Each blob starts with its format tag (ProfileFormat); decoding accepts every format ever written.
 *
 * Encoding runs synchronously when a write batch is stored, after the responses were sent: a profile's JSON and
 * compression cost the event loop less than a round trip to a worker thread or the thread pool would. A batch is
 * encoded in slices of about ENCODE_SLICE_MS, with a turn of the event loop between them.
 */
export class ProfileCodec {
  /** The dictionary of format 1 (read-only use: tests pin it). */
  static readonly dictionaryV1: Buffer = DICTIONARY_V1;
  /** The dictionary of format 2 (read-only use: tests pin it). */
  static readonly dictionaryV2: Buffer = DICTIONARY_V2;

  async encode(data: Record<string, unknown>): Promise<Buffer> {
    return encodeNow(data);
  }

  /** encode(), for a caller that cannot wait for the event loop (a crash's last write). */
  encodeSync(data: Record<string, unknown>): Buffer {
    return encodeNow(data);
  }

  /** Encodes a write batch, in order, yielding to the event loop every ENCODE_SLICE_MS so requests go on. */
  async encodeMany(items: ReadonlyArray<Record<string, unknown>>): Promise<Buffer[]> {
    const blobs: Buffer[] = [];
    let sliceStart = performance.now();
    for (let i = 0; i < items.length; i++) {
      blobs.push(encodeNow(items[i]));
      if (i < items.length - 1 && performance.now() - sliceStart >= ENCODE_SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    return blobs;
  }

  async decode(blob: Uint8Array): Promise<Record<string, unknown>> {
    if (blob.length === 0) throw new Error('Cannot decode an empty profile blob');
    const body = Buffer.from(blob.buffer, blob.byteOffset + 1, blob.length - 1);
    const tag = blob[0];
    switch (tag) {
      case ProfileFormat.JSON:
        return JSON.parse(body.toString('utf8'));
      case ProfileFormat.DEFLATE_DICTIONARY_V1:
        return JSON.parse((await inflateRawAsync(body, { dictionary: DICTIONARY_V1 })).toString('utf8'));
      case ProfileFormat.DEFLATE_DICTIONARY_V2:
        return JSON.parse((await inflateRawAsync(body, { dictionary: DICTIONARY_V2 })).toString('utf8'));
      case ProfileFormat.ZSTD_DICTIONARY_V2:
        return JSON.parse(compressor.decompress(body).toString('utf8'));
      default:
        throw new Error(`Unknown profile blob format ${tag} (written by a newer version of the application?)`);
    }
  }
}

/** One compression context and prepared dictionary for every blob this thread encodes and decodes. */
const compressor = new ZstdCompressor(DICTIONARY_V2, LEVEL);

/**
 * The JSON's UTF-8 is written here, then compressed into a blob of its own: a profile's JSON is larger than what
 * Buffer.from takes from Node's pool, so it would be an allocation of its own for every profile. Never returned nor
 * kept: both blobs below are copies.
 */
const JSON_SCRATCH = Buffer.allocUnsafe(64 * 1024);

function encodeNow(data: Record<string, unknown>): Buffer {
  const text = stringify(data);
  // At most three UTF-8 bytes per UTF-16 code unit.
  const json =
    text.length * 3 <= JSON_SCRATCH.length
      ? JSON_SCRATCH.subarray(0, JSON_SCRATCH.write(text, 'utf8'))
      : Buffer.from(text, 'utf8');
  const blob = compressor.compress(json, ProfileFormat.ZSTD_DICTIONARY_V2);
  return blob.length - 1 < json.length ? blob : Buffer.concat([TAG_JSON, json]);
}

const TAG_JSON = Buffer.of(ProfileFormat.JSON);

function stringify(data: Record<string, unknown>): string {
  try {
    return profileJson(data);
  } catch {
    return lenientStringify(data) ?? '{}';
  }
}
