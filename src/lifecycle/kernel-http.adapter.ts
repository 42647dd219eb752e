import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import express from 'express';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { NextFunction, Request, Response } from 'express';
import {
  hookResponse,
  messageClasses,
  pendingContext,
  prepareForExpress,
  routeHandlersAfter,
  routerLayers,
  type ExpressHandler,
} from './http/express-internals.js';
import { contextOf, type ResponseCommitter } from './kernel-symbols.js';
import type { KernelContext } from './kernel-context.js';
import { Route } from './routing/route.js';
import { RouteCollection } from './routing/route-collection.js';
import {
  DEBUG_ROUTE_METADATA,
  defaultRouteName,
  ROUTE_NAME_METADATA,
  TRAILING_SLASH_METADATA,
} from './routing/route-name.decorator.js';
import { printableText } from './logging/line-formatter.js';

/** What the adapter hands each request to: the HttpKernel, bound when the application initialises. */
export interface KernelEntry extends ResponseCommitter {
  handle(req: Request, res: Response, next: NextFunction): void;
  /** Answers an error of a request the kernel is handling (kernel.exception, then kernel.response). */
  handleThrowable(error: unknown, context: KernelContext): void;
}

/**
 * Nest's Express adapter, with the three things the kernel needs from the HTTP layer:
 * 1. the kernel sees every request first, also those no route matches: the HTTP server's request listener is the
 *    kernel's entry (initHttpServer), which hands a request to Express only when the kernel passes it on (a route
 *    behind middleware the kernel may not skip); Express's first middleware is an entry too, for a server built
 *    otherwise (Nest's request hooks, Nest's own server), and lets through a request the kernel has seen;
 * 2. every route Nest registers is recorded, in registration order, in the route collection the RouterListener
 *    matches against (Nest copies the handler's metadata onto the function it registers, so the route name
 *    decorator travels with it); "strict routing" and "case sensitive routing" make Express match trailing slashes
 *    and letter case exactly as we do;
 * 3. the Express response's writeHead/write/end are hooked (on this app's response prototype only), so that
 *    kernel.response and kernel.finish_request run on every response just before its first byte is written,
 *    whoever writes it: Nest's reply, res.render, res.redirect, a filter or a handler using @Res().
 */
export class KernelHttpAdapter extends ExpressAdapter {
  readonly routes = new RouteCollection();
  private kernel?: KernelEntry;
  private closing = false;
  /** The process crashed: a request arriving now is refused, not handled (refuseRequests). */
  private refusing = false;
  private readonly entry: ExpressHandler;
  /** The HTTP server's request listener when it is built with Express's prototypes (initHttpServer). */
  private readonly serverEntry: (req: IncomingMessage, res: ServerResponse) => void;
  /** Nest's request or response hook is set: it runs in Express's first layer, so every request starts in Express. */
  private expressFirst = false;
  /** The handlers `directHandler` may call, for the Express stack of the given length. */
  private direct: { stackLength: number; handlers: Set<unknown> } | undefined;

  constructor(instance: express.Express = express()) {
    super(instance);
    instance.set('strict routing', true);
    // Paths are case-sensitive, as in Symfony: the router and every path rule (the firewall's access map, the
    // profiler's paths) then decide on one and the same path, so `/ACCOUNT` cannot match a route a rule missed.
    instance.set('case sensitive routing', true);
    instance.set('x-powered-by', false);
    // Automatic ETags would be computed before kernel.response changes the body (the debug toolbar); HTTP
    // caching is decided by the application's listeners instead.
    instance.set('etag', false);
    this.entry = (req: Request, res: Response, next: NextFunction) => {
      // Already through the kernel (the server's entry, which passed it on to Express): on to the next layer.
      if (contextOf(req) !== undefined) {
        next();
        return;
      }
      if (this.refusing) return refuse(res);
      // Shutting down: a keep-alive client that always has a request in flight would hold server.close() (and
      // the shutdown behind it) for ever, so every connection ends after the response it carries.
      if (this.closing) res.setHeader('Connection', 'close');
      if (this.kernel) this.kernel.handle(req, res, next);
      else next();
    };
    instance.use(this.entry);
    this.serverEntry = (req: IncomingMessage, res: ServerResponse) => {
      const kernel = this.kernel;
      if (this.refusing) return refuse(res);
      if (!kernel || this.expressFirst) {
        instance(req, res);
        return;
      }
      const request = req as Request;
      const response = res as Response;
      // Express's `next` for this request: what the kernel calls to pass a request on, and what `res.render` calls
      // with a failed render. An error goes to kernel.exception, as Nest's error layer would send it.
      const passOn = (error?: unknown): void => {
        const context = contextOf(req);
        if (error && error !== 'route' && error !== 'router' && context) kernel.handleThrowable(error, context);
        else instance(req, res);
      };
      prepareForExpress(request, response, passOn);
      if (this.closing) res.setHeader('Connection', 'close');
      try {
        kernel.handle(request, response, passOn);
      } catch (error) {
        // The kernel answers every error of a request it has a context for; one thrown before (it cannot build the
        // request's context) would reach Node's 'request' emit and end the process: Express's layer caught it.
        failedEntry(error, response, kernel);
      }
    };
    hookResponse(instance.response, () => this.kernel);
  }

  /**
   * Nest's server, built with request and response classes whose prototypes are Express's (`messageClasses`): Express
   * then has no prototype to swap on each request, which cost more CPU than everything else Express does. With
   * Nest's `return503OnClosing` or `forceCloseConnections`, Nest's own server (their code reads Nest's private state).
   */
  override initHttpServer(options: NestApplicationOptions): void {
    const app = this.getInstance<express.Express>();
    const classes = messageClasses(app);
    if (!classes || options?.return503OnClosing || options?.forceCloseConnections) {
      super.initHttpServer(options);
      return;
    }
    this.httpServer = options?.httpsOptions
      ? https.createServer({ ...options.httpsOptions, ...classes }, this.serverEntry)
      : http.createServer(classes, this.serverEntry);
  }

  override setOnRequestHook(hook: Parameters<ExpressAdapter['setOnRequestHook']>[0]): void {
    this.expressFirst = true;
    super.setOnRequestHook(hook);
  }

  override setOnResponseHook(hook: Parameters<ExpressAdapter['setOnResponseHook']>[0]): void {
    this.expressFirst = true;
    super.setOnResponseHook(hook);
  }

  override close(): Promise<unknown> | undefined {
    this.closing = true;
    return super.close() as Promise<unknown> | undefined;
  }

  /**
   * The process crashed (ProcessCrashHandler): stop listening, and answer every request still arriving on an open
   * keep-alive connection with a bare 503 that closes it, without handling it. Its state is unknown, and a request
   * handled now would be profiled by a profiler that is being written out: its token would name no stored profile.
   */
  refuseRequests(): Promise<unknown> | undefined {
    this.refusing = true;
    const closed = this.close();
    (this.httpServer as Partial<http.Server> | undefined)?.closeIdleConnections?.();
    return closed;
  }

  bindKernel(kernel: KernelEntry): void {
    this.kernel = kernel;
  }

  /**
   * The function Nest registered for a route the kernel's router matched, when the kernel may call it itself: only
   * when every layer of the Express stack between the kernel's entry and that route is a route (nothing a module
   * added with `app.use()` or Nest middleware would be skipped). Express would only route the request again, to
   * the same handler (the router and Express agree by construction), at the cost of a regular-expression match per
   * route before it. Undefined: let Express route it (`next()`).
   */
  directHandler(route: Route): ExpressHandler | undefined {
    const handler = route.handler as ExpressHandler | undefined;
    if (!handler) return undefined;
    const layers = routerLayers(this.getInstance());
    if (this.direct?.stackLength !== layers.length) {
      this.direct = { stackLength: layers.length, handlers: routeHandlersAfter(layers, this.entry) };
    }
    return this.direct.handlers.has(handler) ? handler : undefined;
  }

  override get(...args: unknown[]): unknown {
    return (super.get as (...a: unknown[]) => unknown).apply(this, this.record(['GET'], args));
  }
  override post(...args: unknown[]): unknown {
    return (super.post as (...a: unknown[]) => unknown).apply(this, this.record(['POST'], args));
  }
  override put(...args: unknown[]): unknown {
    return (super.put as (...a: unknown[]) => unknown).apply(this, this.record(['PUT'], args));
  }
  override patch(...args: unknown[]): unknown {
    return (super.patch as (...a: unknown[]) => unknown).apply(this, this.record(['PATCH'], args));
  }
  override delete(...args: unknown[]): unknown {
    return (super.delete as (...a: unknown[]) => unknown).apply(this, this.record(['DELETE'], args));
  }
  override head(...args: unknown[]): unknown {
    return (super.head as (...a: unknown[]) => unknown).apply(this, this.record(['HEAD'], args));
  }
  override options(...args: unknown[]): unknown {
    return (super.options as (...a: unknown[]) => unknown).apply(this, this.record(['OPTIONS'], args));
  }
  override search(...args: unknown[]): unknown {
    return (super.search as (...a: unknown[]) => unknown).apply(this, this.record(['SEARCH'], args));
  }
  override all(...args: unknown[]): unknown {
    return (super.all as (...a: unknown[]) => unknown).apply(this, this.record([], args));
  }

  /** Records the route; returns the arguments to register with Express (the path may get its slash back). */
  private record(methods: string[], args: unknown[]): unknown[] {
    if (args.length < 2 || typeof args[0] !== 'string' || typeof args[1] !== 'function') return args;
    let path = args[0] as string;
    const handler = args[1] as ExpressHandler;
    if (Reflect.getMetadata(TRAILING_SLASH_METADATA, handler) === true && !path.endsWith('/')) {
      path = `${path}/`;
      args = [path, ...args.slice(1)];
    }
    const handlerName = handler.name && handler.name.includes('.') ? handler.name : 'AppController.index';
    const [className, methodName] = handlerName.split('.');
    const declared: string | undefined = Reflect.getMetadata(ROUTE_NAME_METADATA, handler);
    const name = this.routes.uniqueName(declared ?? defaultRouteName(handlerName));
    const caseSensitive = this.getInstance().get('case sensitive routing') === true;
    const debugOnly = Reflect.getMetadata(DEBUG_ROUTE_METADATA, handler) === true;
    this.routes.add(
      new Route(name, path, methods, `${className}::${methodName}`, { caseSensitive, debugOnly, handler }),
    );
    return args;
  }
}

/**
 * An error thrown by the kernel's entry itself: to kernel.exception when the request has its context, else (or
 * should that fail too) a bare 500, reported on stderr as a process warning: the kernel's logger may be what failed.
 */
function failedEntry(error: unknown, res: Response, kernel: KernelEntry): void {
  const context = pendingContext(res);
  if (context) {
    try {
      kernel.handleThrowable(error, context);
      return;
    } catch (second) {
      error = second;
    }
  }
  process.emitWarning(
    `The kernel could not take a request: ${printableText(error instanceof Error ? error.message : String(error))}`,
  );
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.statusCode = 500;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end('Internal Server Error\n');
}

/** The answer of a crashed process: no kernel, no profile, and the connection closed after it. */
function refuse(res: ServerResponse): void {
  const body = '503 Service Unavailable: the server is stopping.\n';
  res.shouldKeepAlive = false;
  res.writeHead(503, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
    Connection: 'close',
  });
  res.end(body);
}
