import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { STATUS_CODES } from 'node:http';
import { AppConfig } from '../config/app-config.js';
import { KernelEventDispatcher } from './event-dispatcher.js';
import { BadRequestHttpException } from './exceptions/bad-request-http.exception.js';
import { NotFoundHttpException } from './exceptions/not-found-http.exception.js';
import { RequestException } from './exceptions/request.exception.js';
import { KernelRequest } from './http/kernel-request.js';
import { RequestBodyReader } from './http/request-body.js';
import { KernelResponse } from './http/kernel-response.js';
import { ResponseHandle } from './http/response-handle.js';
import { KernelContext, kernelContextStorage, ResponsePhase } from './kernel-context.js';
import { KernelHttpAdapter, type KernelEntry } from './kernel-http.adapter.js';
import { attachContext } from './kernel-symbols.js';
import {
  ControllerArgumentsEvent,
  ControllerEvent,
  ExceptionEvent,
  FinishRequestEvent,
  RequestEvent,
  ResponseEvent,
  TerminateEvent,
  type ControllerReference,
} from './kernel.events.js';
import { classOf, headersOf, messageOf, statusOf } from './errors/exception-status.js';
import { KernelLogger } from './logging/kernel-logger.js';
import { LogLevel } from './logging/log-level.js';
import { ControllerResolver } from './routing/controller-resolver.js';
import { NativeControllers } from './routing/native-controllers.js';
import { MATCHED_ROUTE } from './routing/route-match.js';

/**
 * The kernel: turns each request into a response through the kernel events (see docs/ARCHITECTURE.md).
 *
 *   entry (first Express middleware) ─ kernel.request ─┬─ a listener set a response ───────────────┐
 *                                                      ├─ kernel controller: controller, arguments ─┤
 *                                                      └─ body read, kernel.controller,             │
 *                                                         kernel.controller_arguments, then the     │
 *                                                         Nest handler: guards, pipes, reply ───────┤
 *   anything throws ─ kernel.exception ─ its response ──────────────────────────────────────────────┤
 *   first byte about to be written ─ kernel.response ─ kernel.finish_request ─ write ─ kernel.terminate
 */
@Injectable()
export class HttpKernel implements KernelEntry, OnModuleInit {
  private readonly body: RequestBodyReader;
  private readonly startHooks: ((context: KernelContext) => void)[] = [];
  /** Requests entered and not yet terminated: a crash terminates those already answered (terminateAnswered). */
  private readonly inFlight = new Set<KernelContext>();
  private adapter!: KernelHttpAdapter;

  constructor(
    private readonly config: AppConfig,
    private readonly dispatcher: KernelEventDispatcher,
    private readonly logger: KernelLogger,
    private readonly adapterHost: HttpAdapterHost,
    private readonly nativeControllers: NativeControllers,
    private readonly controllerResolver: ControllerResolver,
  ) {
    this.body = new RequestBodyReader(config.bodyLimit);
  }

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!(adapter instanceof KernelHttpAdapter)) {
      throw new Error(
        'Shopkernel needs its HTTP adapter: create the app with new KernelHttpAdapter() (see src/app.factory.ts).',
      );
    }
    this.adapter = adapter;
    // Express then believes X-Forwarded-For/Proto/Host from these peers only (req.ip, req.protocol, req.host).
    adapter
      .getInstance()
      .set('trust proxy', this.config.trustedProxies.length > 0 ? this.config.trustedProxies : false);
    adapter.bindKernel(this);
  }

  /**
   * Runs a function for every request as it enters the kernel, before kernel.request (the profiler opens its
   * profile here). A throwing hook is logged and never fails the request.
   */
  onRequestStart(hook: (context: KernelContext) => void): void {
    this.startHooks.push(hook);
  }

  handle(req: Request, res: Response, next: NextFunction): void {
    const context = new KernelContext(res, this.config.defaultLocale);
    // `false` unless TRUSTED_PROXIES (onModuleInit) or the application's own app.set('trust proxy', …) says otherwise.
    const trustsProxies = req.app.get('trust proxy') !== false;
    context.request = new KernelRequest(req, context, this.config.defaultLocale, trustsProxies);
    attachContext(req, res, context);
    this.inFlight.add(context);
    // kernel.terminate comes from the response's 'close' (KernelHttpAdapter's hook on emit: no listener per request).
    kernelContextStorage.run(context, () => {
      for (const hook of this.startHooks) {
        try {
          hook(context);
        } catch (error) {
          this.logger.record(
            LogLevel.CRITICAL,
            'request',
            'A request start hook failed: {message}',
            { message: describe(error), exception: error },
            context,
          );
        }
      }
      this.handleRaw(context, next).catch((error: unknown) => this.answerError(error, context));
    });
  }

  /**
   * One request, top to bottom, as Symfony's HttpKernel::handleRaw. An event is awaited only when one of its
   * listeners waits for a task (`event.settled`: the session, the user), so a request whose listeners are all
   * synchronous runs through without giving up its turn. Whatever throws goes to kernel.exception (handle).
   */
  private async handleRaw(context: KernelContext, next: NextFunction): Promise<void> {
    const request = context.request;

    // kernel.request: routing, the firewall, the profiler's own pages; a listener may answer at once.
    const requestEvent = this.dispatcher.dispatch(new RequestEvent(request), context);
    if (requestEvent.settled) await requestEvent.settled;
    if (requestEvent.response) return this.send(context, requestEvent.response);

    const name = request.attributes._controller;
    if (name === undefined) {
      throw new NotFoundHttpException(
        `Unable to find the controller for path "${request.pathInfo}". The route is wrongly configured.`,
      );
    }
    const native = this.nativeControllers.get(name);
    if (!native && RequestBodyReader.hasBody(request.raw)) await this.body.read(request.raw, context.res);

    // kernel.controller: a listener may replace the controller (its result is then the response).
    const [className, methodName] = name.split('::');
    const reference: ControllerReference = { name, className, methodName };
    const handler = native ? undefined : this.controllerResolver.resolve(name);
    const controllerEvent = this.dispatcher.dispatch(new ControllerEvent(request, reference, handler), context);
    if (controllerEvent.settled) await controllerEvent.settled;

    // kernel.controller_arguments: the route's parameters, which listeners may change.
    const args = { ...(request.attributes._route_params ?? {}) };
    const argumentsEvent = this.dispatcher.dispatch(
      new ControllerArgumentsEvent(request, controllerEvent.controller, args, controllerEvent.handler),
      context,
    );
    if (argumentsEvent.settled) await argumentsEvent.settled;

    // The controller. The kernel's own (and a replacement) answer here: a KernelResponse as it is, anything else as
    // JSON. A Nest handler runs its guards, pipes and interceptors, and its reply passes kernel.response on its way
    // out (KernelHttpAdapter's response hook).
    const call = controllerEvent.replacement ?? (native ? () => native(request, args) : undefined);
    if (!call) return this.callHandler(context, next);
    let result = call();
    if (result instanceof Promise) result = await result;
    this.send(context, result instanceof KernelResponse ? result : KernelResponse.json(result));
  }

  /**
   * Hands the request to the matched route's Nest handler (guards, pipes, the controller, the reply): called
   * directly when the adapter allows it, with the route's parameters as Express would set them, else through Express's
   * router. A handler that passes the request on without an error (a version filter that does not match) gets
   * Express's routing after all; an error it passes on goes to kernel.exception.
   */
  private callHandler(context: KernelContext, next: NextFunction): void {
    const matched = context.get(MATCHED_ROUTE);
    const handler = matched && this.adapter.directHandler(matched.route);
    if (!handler) {
      next();
      return;
    }
    const req = context.request.raw;
    req.params = { ...matched.params };
    handler(req, context.res, (error?: unknown) => {
      if (error !== undefined && error !== 'route' && error !== 'router') this.handleThrowable(error, context);
      else next();
    });
  }

  /**
   * handleThrowable for what handleRaw threw; should the error response fail too (a listener's header Node refuses),
   * a bare 500, logged: a rejection nobody handles would stop the process.
   */
  private answerError(error: unknown, context: KernelContext): void {
    try {
      this.handleThrowable(error, context);
    } catch (failure) {
      this.logger.record(
        LogLevel.CRITICAL,
        'request',
        'The error response could not be sent: {message}',
        { message: describe(failure), exception: failure },
        context,
      );
      const res = context.res;
      try {
        if (res.headersSent) throw failure;
        // Still through kernel.response when it has not run, so the request keeps its profile.
        for (const name of res.getHeaderNames()) res.removeHeader(name);
        this.send(context, fallbackResponse(failure));
      } catch {
        res.destroy();
      }
    }
  }

  /** Answers a throwable from any phase: kernel.exception makes the response, which then passes kernel.response. */
  handleThrowable(error: unknown, context: KernelContext): void {
    const res = context.res;
    if (context.phase !== ResponsePhase.Pending || res.headersSent) {
      this.logger.record(
        LogLevel.CRITICAL,
        'request',
        'Exception thrown after the response was sent: {message}',
        { message: describe(error), exception: error },
        context,
      );
      if (!res.writableEnded) res.destroy();
      return;
    }
    const response = this.responseForThrowable(error, context);
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    this.send(context, response);
  }

  private responseForThrowable(error: unknown, context: KernelContext): KernelResponse {
    const throwable = error instanceof RequestException ? new BadRequestHttpException(error.message, error) : error;
    context.exception = throwable;
    const event = new ExceptionEvent(context.request, throwable);
    try {
      this.dispatcher.dispatch(event, context);
    } catch (listenerError) {
      this.logger.record(
        LogLevel.CRITICAL,
        'request',
        'Exception thrown while handling an exception: {message}',
        { message: describe(listenerError), exception: listenerError },
        context,
      );
      return fallbackResponse(throwable);
    }
    const response = event.response ?? fallbackResponse(event.throwable);
    if (!event.allowCustomResponseCode) {
      response.status = statusOf(event.throwable);
      Object.assign(response.headers, headersOf(event.throwable));
    }
    return response;
  }

  /** Writes a response the kernel made; the response hook then runs kernel.response on it. */
  private send(context: KernelContext, response: KernelResponse): void {
    const res = context.res;
    res.statusCode = response.status;
    for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
    if (response.body === undefined) res.end();
    else res.end(response.body);
  }

  /**
   * kernel.response and kernel.finish_request of a response about to be written; returns the body to write, or a
   * promise of it when a kernel.response listener waits (the session save): the response hook writes it then.
   */
  commitResponse(
    context: KernelContext,
    res: Response,
    body: string | Buffer | undefined,
    streamed: boolean,
  ): string | Buffer | undefined | Promise<string | Buffer | undefined> {
    context.phase = ResponsePhase.Committing;
    const run = (): string | Buffer | undefined | Promise<string | Buffer | undefined> => {
      const handle = new ResponseHandle(res, body, streamed);
      const complete = (final: ResponseHandle) => this.completeResponse(context, res, final, streamed);
      const recover = (error: unknown) => this.recoverResponse(error, context, res, handle, streamed);
      let settled: Promise<void> | undefined;
      try {
        settled = this.dispatcher.dispatch(new ResponseEvent(context.request, handle), context).settled;
      } catch (error) {
        return then(recover(error), complete);
      }
      if (!settled) return complete(handle);
      return settled.then(
        () => complete(handle),
        (error: unknown) => then(recover(error), complete),
      );
    };
    return kernelContextStorage.getStore() === context ? run() : kernelContextStorage.run(context, run);
  }

  /**
   * A kernel.response listener threw: the error becomes the response, which passes kernel.response once more; a
   * second failure there leaves the bare error response. A streamed response keeps its headers (logged).
   */
  private recoverResponse(
    error: unknown,
    context: KernelContext,
    res: Response,
    handle: ResponseHandle,
    streamed: boolean,
  ): ResponseHandle | Promise<ResponseHandle> {
    if (streamed) {
      this.logger.record(
        LogLevel.CRITICAL,
        'request',
        'Exception in kernel.response of a streamed response: {message}',
        { message: describe(error), exception: error },
        context,
      );
      return handle;
    }
    const errorResponse = this.responseForThrowable(error, context);
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    res.statusCode = errorResponse.status;
    for (const [name, value] of Object.entries(errorResponse.headers)) res.setHeader(name, value);
    const errorHandle = new ResponseHandle(res, errorResponse.body, false);
    const failed = (again: unknown): ResponseHandle => {
      this.logger.record(
        LogLevel.CRITICAL,
        'request',
        'Exception in kernel.response of an error response: {message}',
        { message: describe(again), exception: again },
        context,
      );
      errorHandle.body = errorHandle.body ?? errorResponse.body;
      return errorHandle;
    };
    try {
      const settled = this.dispatcher.dispatch(new ResponseEvent(context.request, errorHandle), context).settled;
      if (settled) return settled.then(() => errorHandle, failed);
    } catch (again) {
      return failed(again);
    }
    return errorHandle;
  }

  private completeResponse(
    context: KernelContext,
    res: Response,
    handle: ResponseHandle,
    streamed: boolean,
  ): string | Buffer | undefined {
    this.finishRequest(context);
    context.phase = ResponsePhase.Committed;
    if (streamed) return handle.body;
    // Encoded here once: counting a string's UTF-8 bytes, then having Node encode it to write it, walked a page twice.
    const final = typeof handle.body === 'string' ? Buffer.from(handle.body, 'utf8') : handle.body;
    const size = final === undefined ? 0 : final.length;
    context.responseSize = size;
    if (handle.isBodyChanged && context.request.method !== 'HEAD' && !handle.isEmpty)
      res.setHeader('Content-Length', size);
    return final;
  }

  private finishRequest(context: KernelContext): void {
    try {
      this.dispatcher.dispatch(new FinishRequestEvent(context.request), context);
    } catch (error) {
      this.logger.record(
        LogLevel.CRITICAL,
        'request',
        'Exception in kernel.finish_request: {message}',
        { message: describe(error), exception: error },
        context,
      );
    }
  }

  terminate(context: KernelContext): void {
    if (context.terminated) return;
    context.terminated = true;
    this.inFlight.delete(context);
    const res = context.res;
    const failed = (error: unknown): void => {
      this.logger.record(
        LogLevel.CRITICAL,
        'request',
        'Exception in kernel.terminate: {message}',
        { message: describe(error), exception: error },
        context,
      );
    };
    kernelContextStorage.run(context, () => {
      try {
        // A listener that waited: the rest run after its task, and its failure is logged as a throw would be.
        this.dispatcher
          .dispatch(new TerminateEvent(context.request, res.statusCode, res.writableFinished), context)
          .settled?.catch(failed);
      } catch (error) {
        failed(error);
      }
    });
  }

  /**
   * For a crashing process: kernel.terminate now for every response handed whole to Node whose 'close' has not
   * come yet (its bytes may already be with the client, so its profile must be kept); the process exits before
   * Node would emit it. Returns how many.
   */
  terminateAnswered(): number {
    let terminated = 0;
    for (const context of [...this.inFlight]) {
      if (!context.res.writableEnded) continue;
      this.terminate(context);
      terminated++;
    }
    return terminated;
  }
}

/** Applies f to a value that may still be coming. */
function then<T, R>(value: T | Promise<T>, f: (value: T) => R): R | Promise<Awaited<R>> {
  return value instanceof Promise ? (value.then(f) as Promise<Awaited<R>>) : f(value);
}

function describe(error: unknown): string {
  return `${classOf(error)}: ${messageOf(error)}`;
}

function fallbackResponse(error: unknown): KernelResponse {
  const status = statusOf(error);
  return new KernelResponse(`${status} ${STATUS_CODES[status] ?? 'Error'}\n`, status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
  });
}
