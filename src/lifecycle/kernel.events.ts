import type { KernelRequest } from './http/kernel-request.js';
import type { KernelResponse } from './http/kernel-response.js';
import type { ResponseHandle } from './http/response-handle.js';

/** The kernel's events, Symfony's names, in the order a request passes them. */
export const KernelEvents = {
  REQUEST: 'kernel.request',
  CONTROLLER: 'kernel.controller',
  CONTROLLER_ARGUMENTS: 'kernel.controller_arguments',
  RESPONSE: 'kernel.response',
  FINISH_REQUEST: 'kernel.finish_request',
  TERMINATE: 'kernel.terminate',
  EXCEPTION: 'kernel.exception',
} as const;

export type KernelEventName = (typeof KernelEvents)[keyof typeof KernelEvents];

/**
 * What the dispatcher keeps of an event's dispatch under way (the event-dispatcher module's own business). One shape
 * for every event class: the dispatcher's per-listener reads and writes go to this object, so that they stay
 * monomorphic instead of megamorphic property accesses on seven event classes.
 */
export interface EventDispatch {
  /** Tasks the listener being called handed to `waitFor`; the dispatcher collects them after each listener. */
  tasks: Array<Promise<unknown>> | undefined;
}

export abstract class KernelEvent {
  abstract readonly name: KernelEventName;
  private propagationStopped = false;
  /** Set by the dispatcher when a listener waited: resolves once every listener of this dispatch has run. */
  settled: Promise<void> | undefined = undefined;
  /** The dispatch under way (set by the dispatcher; initialised here so that every event keeps its shape). */
  dispatchState: EventDispatch | undefined = undefined;

  constructor(readonly request: KernelRequest) {}

  /**
   * Listeners are called in order; a listener that must do I/O first (load the session, a parameter converter
   * reading the database, saving the session) returns its promise (an `async` method) or hands it to `waitFor`. The
   * listeners after it are called once it resolves, and the kernel goes on after the last one; a rejection ends the
   * dispatch like a throw (kernel.exception). Only events whose phase can wait offer it (`canWait`): kernel.request,
   * kernel.controller, kernel.controller_arguments, kernel.response of a response not yet streaming, and
   * kernel.terminate.
   */
  protected suspendUntil(task: Promise<unknown>): void {
    // Handled by the dispatcher once the listener returns; never an unhandled rejection in between.
    task.catch(() => undefined);
    const dispatch = this.dispatchState;
    // Outside a dispatch no one would wait for it.
    if (dispatch) (dispatch.tasks ??= []).push(task);
  }

  /** Whether a listener may wait for a task here (see suspendUntil); the dispatcher refuses a promise otherwise. */
  get canWait(): boolean {
    return false;
  }

  /** Called by the dispatcher with the promise a listener returned; only where `canWait`. */
  waitForListener(task: Promise<unknown>): void {
    this.suspendUntil(task);
  }

  /** No later listener of this dispatch is called. */
  stopPropagation(): void {
    this.propagationStopped = true;
  }

  isPropagationStopped(): boolean {
    return this.propagationStopped;
  }
}

/** kernel.request: a listener that sets a response ends the request phase; that response goes to kernel.response. */
export class RequestEvent extends KernelEvent {
  readonly name: KernelEventName = KernelEvents.REQUEST;
  response: KernelResponse | undefined;

  setResponse(response: KernelResponse): void {
    this.response = response;
    this.stopPropagation();
  }

  hasResponse(): boolean {
    return this.response !== undefined;
  }

  /** See KernelEvent.suspendUntil: the session start and the firewall load what they need here. */
  waitFor(task: Promise<unknown>): void {
    this.suspendUntil(task);
  }

  override get canWait(): boolean {
    return true;
  }
}

/** Which code handles the request: a Nest controller method, or a controller of the kernel itself. */
export interface ControllerReference {
  /** `Class::method`, as in `_controller`. */
  name: string;
  className: string;
  methodName: string;
}

/**
 * kernel.controller: the controller is known, not yet called. A listener may replace it with a callable whose
 * result is used instead (HTTP cache answering 304, a parameter converter throwing 404, ...).
 */
export class ControllerEvent extends KernelEvent {
  readonly name: KernelEventName = KernelEvents.CONTROLLER;
  replacement: (() => unknown) | undefined;

  constructor(
    request: KernelRequest,
    public controller: ControllerReference,
    /** The handler's class and method, for reading their decorators' metadata. */
    readonly handler?: { target: object; method: (...args: unknown[]) => unknown },
  ) {
    super(request);
  }

  setController(replacement: () => unknown, reference?: ControllerReference): void {
    this.replacement = replacement;
    if (reference) this.controller = reference;
  }

  /**
   * A listener that must load something first (a parameter converter reading the database) hands the promise
   * here: later listeners, kernel.controller_arguments and the controller wait for it; a rejection (e.g. a
   * NotFoundHttpException) goes to kernel.exception and the controller is not called.
   */
  waitFor(task: Promise<unknown>): void {
    this.suspendUntil(task);
  }

  override get canWait(): boolean {
    return true;
  }
}

/** kernel.controller_arguments: the controller and the named arguments it is about to be called with. */
export class ControllerArgumentsEvent extends KernelEvent {
  readonly name: KernelEventName = KernelEvents.CONTROLLER_ARGUMENTS;

  constructor(
    request: KernelRequest,
    readonly controller: ControllerReference,
    readonly args: Record<string, unknown>,
    /** The handler's class and method, for reading their decorators' metadata (access rules, …). */
    readonly handler?: { target: object; method: (...args: unknown[]) => unknown },
  ) {
    super(request);
  }

  /** The controller is called once the task resolves (an access check that reads the database). */
  waitFor(task: Promise<unknown>): void {
    this.suspendUntil(task);
  }

  override get canWait(): boolean {
    return true;
  }
}

/** kernel.exception: something threw; a listener turns the throwable into a response. */
export class ExceptionEvent extends RequestEvent {
  override readonly name: KernelEventName = KernelEvents.EXCEPTION;
  /** Keep the response's own status instead of the exception's. */
  allowCustomResponseCode = false;

  constructor(
    request: KernelRequest,
    public throwable: unknown,
  ) {
    super(request);
  }

  /** The error response must be decided at once: kernel.exception listeners cannot wait. */
  override waitFor(): never {
    throw new TypeError('kernel.exception listeners run synchronously: they cannot wait for a task.');
  }

  override get canWait(): boolean {
    return false;
  }
}

/** kernel.response: the response may still be changed (headers always, the body unless streamed). */
export class ResponseEvent extends KernelEvent {
  readonly name: KernelEventName = KernelEvents.RESPONSE;

  constructor(
    request: KernelRequest,
    readonly response: ResponseHandle,
  ) {
    super(request);
  }

  /**
   * The response is written once the task resolves (the session save waits here, so the next request of the
   * same client finds what this one stored). A streamed response's headers are being written: it cannot wait.
   */
  waitFor(task: Promise<unknown>): void {
    if (this.response.streamed)
      throw new TypeError('kernel.response of a streamed response cannot wait: its headers are being written.');
    this.suspendUntil(task);
  }

  override get canWait(): boolean {
    return !this.response.streamed;
  }
}

/** kernel.finish_request: the response is final (it cannot wait); request-scoped state is reset. */
export class FinishRequestEvent extends KernelEvent {
  readonly name: KernelEventName = KernelEvents.FINISH_REQUEST;
}

/** kernel.terminate: the response has been sent (or the client went away); slow work goes here. */
export class TerminateEvent extends KernelEvent {
  readonly name: KernelEventName = KernelEvents.TERMINATE;

  constructor(
    request: KernelRequest,
    readonly statusCode: number,
    /** False when the connection closed before the whole response was written. */
    readonly completed: boolean,
  ) {
    super(request);
  }

  /** The response is sent: a listener may wait (the later ones are called after it), nobody else does. */
  waitFor(task: Promise<unknown>): void {
    this.suspendUntil(task);
  }

  override get canWait(): boolean {
    return true;
  }
}
