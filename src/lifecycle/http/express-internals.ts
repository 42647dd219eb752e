/*
 * The fence: every use of Express's and Node's internals (what their documentation does not promise) is in this
 * file, typed, so that an upgrade of either breaks here and nowhere else. Used by KernelHttpAdapter only.
 */
import type express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { IncomingMessage, ServerResponse } from 'node:http';
import { ResponsePhase, type KernelContext } from '../kernel-context.js';
import { contextOf, type ResponseCommitter } from '../kernel-symbols.js';

/** The request and response classes Node's HTTP server builds its objects with (`createServer` options). */
export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/**
 * Node's request and response classes, with an Express app's request and response objects as their prototypes, for
 * `http.createServer(messageClasses(app), app)`: Express's per-request `Object.setPrototypeOf(req, app.request)`
 * (and `res`) then finds nothing to change, and V8 keeps the objects' inline caches (BENCHMARKS.md).
 *
 * Node's constructors are plain functions, called on the new object as a subclass's would be; not through
 * `Reflect.construct`, whose foreign new.target puts V8 on a slow path. Should a Node release make them classes
 * (not callable without `new`), undefined: the server is built as Nest builds it.
 */
export function messageClasses(app: express.Express): MessageClasses | undefined {
  if (isClass(IncomingMessage) || isClass(ServerResponse)) return undefined;
  type Construct = (this: unknown, ...args: unknown[]) => void;
  const Request = function (this: unknown, ...args: unknown[]) {
    (IncomingMessage as unknown as Construct).apply(this, args);
  } as unknown as typeof IncomingMessage;
  Request.prototype = app.request as unknown as IncomingMessage;
  const Response = function (this: unknown, ...args: unknown[]) {
    (ServerResponse as unknown as Construct).apply(this, args);
  } as unknown as typeof ServerResponse;
  Response.prototype = app.response as unknown as ServerResponse;
  return { IncomingMessage: Request, ServerResponse: Response };
}

function isClass(fn: unknown): boolean {
  return typeof fn === 'function' && /^class\b/.test(Function.prototype.toString.call(fn));
}

/** An Express handler as Express's router calls it. */
export type ExpressHandler = (req: Request, res: Response, next: NextFunction) => unknown;

/** A layer of Express's router stack (`app.router.stack`, private in Express 5). */
interface RouterLayer {
  handle?: unknown;
  route?: { stack?: RouterLayer[] };
}

/** The layers of an Express app's router, in order (empty when Express keeps them elsewhere). */
export function routerLayers(app: express.Express): readonly RouterLayer[] {
  return (app as unknown as { router?: { stack?: RouterLayer[] } }).router?.stack ?? [];
}

/**
 * The handlers of the route layers that follow `entry` in the router's stack without anything else in between
 * (no `app.use()` middleware that calling a handler directly would skip).
 */
export function routeHandlersAfter(layers: readonly RouterLayer[], entry: unknown): Set<unknown> {
  const handlers = new Set<unknown>();
  const start = layers.findIndex((layer) => layer.handle === entry);
  for (let i = start + 1; start !== -1 && i < layers.length && layers[i].route; i++) {
    for (const layer of layers[i].route?.stack ?? []) handlers.add(layer.handle);
  }
  return handlers;
}

/**
 * What Express's app.handle and its router set on a request before their first layer, for a request the kernel
 * handles before Express sees it (the prototypes are Express's already: messageClasses). `next` is what
 * `res.render` calls with a failed render.
 */
export function prepareForExpress(req: Request, res: Response, next: NextFunction): void {
  req.res = res;
  res.req = req;
  res.locals ??= Object.create(null);
  req.baseUrl = '';
  req.originalUrl ??= req.url;
  req.next = next;
}

/** The kernel's context of a response it has yet to commit; undefined once committed, sent, or not the kernel's. */
export function pendingContext(res: Response): KernelContext | undefined {
  const context = contextOf(res);
  return context && context.phase === ResponsePhase.Pending && !res.headersSent ? context : undefined;
}

type Chunk = string | Buffer | Uint8Array | null | undefined;
type Callback = () => void;
type OutgoingHeaders = Record<string, number | string | string[] | undefined> | Array<string | string[]>;

/** The methods of Node's ServerResponse that the kernel wraps, with the overloads it handles. */
interface HookedResponse {
  end(this: Response, chunk?: Chunk | Callback, encoding?: BufferEncoding | Callback, callback?: Callback): Response;
  write(this: Response, ...args: unknown[]): boolean;
  writeHead(this: Response, statusCode: number, reason?: string | OutgoingHeaders, headers?: OutgoingHeaders): Response;
  emit(this: Response, event: string | symbol, ...args: unknown[]): boolean;
}

/**
 * Wraps writeHead/write/end of an Express app's response prototype. A response of a request the kernel handles
 * is committed once: at end() with its whole body (which kernel.response may replace), or at the first write()
 * or an explicit writeHead() as a streamed response (headers only). Node's 'close' (written whole, or the
 * connection gone) is kernel.terminate.
 */
export function hookResponse(prototype: express.Response, kernel: () => ResponseCommitter | undefined): void {
  const proto = prototype as unknown as HookedResponse;
  const { end, write, writeHead, emit } = proto;

  proto.end = function (
    this: Response,
    chunk?: Chunk | Callback,
    encoding?: BufferEncoding | Callback,
    callback?: Callback,
  ) {
    const context = pendingContext(this);
    const entry = context && kernel();
    if (!context || !entry) return end.call(this, chunk, encoding, callback);
    if (typeof chunk === 'function') {
      callback = chunk;
      chunk = undefined;
      encoding = undefined;
    } else if (typeof encoding === 'function') {
      callback = encoding;
      encoding = undefined;
    }
    let body: string | Buffer | undefined =
      chunk === null || chunk === undefined
        ? undefined
        : typeof chunk === 'string' || Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(chunk);
    if (typeof body === 'string' && encoding && encoding !== 'utf8' && encoding !== 'utf-8')
      body = Buffer.from(body, encoding);
    const finalBody = entry.commitResponse(context, this, body, false);
    if (!(finalBody instanceof Promise)) return end.call(this, finalBody, undefined, callback);
    // A kernel.response listener is waiting (the session save): the response is written when it is done.
    finalBody.then(
      (written) => end.call(this, written, undefined, callback),
      () => end.call(this, undefined, undefined, callback),
    );
    return this;
  };

  // A hook on the prototype's emit instead of a `once('close')` per request (a closure, a wrapper and a listener to
  // add and remove each time). `arguments` passed on as they are: no rest array and spread on each emit.
  proto.emit = function (this: Response, event: string | symbol) {
    if (event === 'close') {
      const context = contextOf(this);
      const entry = context && kernel();
      if (context && entry) entry.terminate(context);
    }
    // eslint-disable-next-line prefer-rest-params
    return emit.apply(this, arguments as unknown as [string | symbol, ...unknown[]]);
  };

  proto.write = function (this: Response, ...args: unknown[]) {
    const context = pendingContext(this);
    const entry = context && kernel();
    // Streamed: kernel.response listeners cannot wait (ResponseEvent.waitFor), so this never is a promise.
    if (context && entry) void entry.commitResponse(context, this, undefined, true);
    return write.apply(this, args);
  };

  proto.writeHead = function (
    this: Response,
    statusCode: number,
    reason?: string | OutgoingHeaders,
    headers?: OutgoingHeaders,
  ) {
    const context = pendingContext(this);
    const entry = context && kernel();
    if (!context || !entry) return writeHead.call(this, statusCode, reason, headers);
    if (typeof reason !== 'string') {
      headers = reason;
      reason = undefined;
    }
    this.statusCode = statusCode;
    if (Array.isArray(headers)) {
      for (let i = 0; i + 1 < headers.length; i += 2) this.setHeader(headers[i] as string, headers[i + 1]);
    } else if (headers) {
      for (const [name, value] of Object.entries(headers)) if (value !== undefined) this.setHeader(name, value);
    }
    void entry.commitResponse(context, this, undefined, true);
    return reason === undefined ? writeHead.call(this, this.statusCode) : writeHead.call(this, this.statusCode, reason);
  };
}
