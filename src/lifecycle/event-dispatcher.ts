import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { KernelContext, ListenerCall } from './kernel-context.js';
import type { EventDispatch, KernelEvent } from './kernel.events.js';

/**
 * A listener: called with the event it was registered for (a subclass of KernelEvent). A promise it returns (an
 * `async` listener) is waited for on the events that can wait, as `event.waitFor` would be.
 */
export type ListenerCallable = (event: never) => unknown;

/** The kernel events whose listeners may wait for a task (KernelEvent.canWait; kernel.response unless streamed). */
const WAITING_EVENTS: ReadonlySet<string> = new Set([
  'kernel.request',
  'kernel.controller',
  'kernel.controller_arguments',
  'kernel.response',
  'kernel.terminate',
]);

/** One row per listener of every event, in each event's call order: `[event, listener name, priority]`. */
export type ListenerTable = ReadonlyArray<readonly [string, string, number]>;

export interface RegisteredListener {
  event: string;
  /** `Class::method`, the identifier the logs and the Events panel show. */
  name: string;
  priority: number;
  callable: ListenerCallable;
  /** What is registered on the EventEmitter2 bus for this listener. */
  readonly busHandler: (event: KernelEvent) => void;
  /**
   * The context of this listener's `Notified event` log entries: one frozen object shared by all of them (about
   * thirty entries a request in debug mode), which the error page can also render once.
   */
  readonly notification: Readonly<{ event: string; listener: string }>;
}

/**
 * One listener call of a traced dispatch: timed while the listener runs (`start` from `performance.now()`), then
 * completed by the TraceableEventDispatcher and kept on the request as it is, as its ListenerCall (one object a call,
 * not two: a request makes some thirty).
 */
export class Called implements ListenerCall {
  duration = 0;
  stoppedPropagation = false;
  tableIndex = -1;
  notifiedAt = -1;
  notifiedTime = 0;

  constructor(
    readonly registered: RegisteredListener,
    public start: number,
  ) {}

  get event(): string {
    return this.registered.event;
  }

  get listener(): string {
    return this.registered.name;
  }

  get priority(): number {
    return this.registered.priority;
  }
}

/** What a traced dispatch hands to `trace` once it is over. */
export interface TracedDispatch {
  /** What has been called, in order. */
  readonly called: readonly Called[];
  /** How many entries the request's log had when the dispatch began. */
  readonly logsFrom: number;
}

interface DispatchState extends EventDispatch, TracedDispatch {
  called: Called[];
  timed: boolean;
  /** A listener is waiting for its task: the listeners after it are queued here, called once it resolves. */
  waiting: Promise<unknown> | undefined;
  deferred: RegisteredListener[];
}

/**
 * The kernel's event dispatcher. Events travel over the application's EventEmitter2 bus (@nestjs/event-emitter);
 * this class keeps each kernel event's listeners registered on the bus in priority order (highest first, ties in
 * registration order), so EventEmitter2's synchronous, in-order emit calls them as the kernel requires. A
 * listener that stops propagation ends the dispatch. What was called is logged and kept for the profiler by its
 * subclass, the TraceableEventDispatcher (LifecycleModule provides it when someone will see it).
 */
@Injectable()
export class KernelEventDispatcher {
  private readonly listeners = new Map<string, RegisteredListener[]>();
  /** `table()` and each listener's row in it; rebuilt after a listener is added or removed. */
  private cachedTable: { rows: ListenerTable; index: Map<RegisteredListener, number> } | undefined;

  /** Whether each listener call is timed and handed to `trace`. */
  protected readonly timed: boolean = false;

  constructor(private readonly bus: EventEmitter2) {}

  addListener(
    event: string,
    callable: ListenerCallable,
    priority = 0,
    name = callable.name || 'closure',
  ): RegisteredListener {
    if (isAsync(callable) && event.startsWith('kernel.') && !WAITING_EVENTS.has(event)) {
      throw new TypeError(
        `The kernel listener ${name} is async, but ${event} cannot wait for a task: make it synchronous, or listen to an event that can wait (${[...WAITING_EVENTS].join(', ')}).`,
      );
    }
    const listener: RegisteredListener = {
      event,
      name,
      priority,
      callable,
      notification: Object.freeze({ event, listener: name }),
      busHandler: (kernelEvent: KernelEvent) => {
        const state = kernelEvent.dispatchState as DispatchState | undefined;
        if (!state || kernelEvent.isPropagationStopped()) return;
        if (state.waiting) state.deferred.push(listener);
        else call(listener, kernelEvent, state);
      },
    };
    const list = this.listeners.get(event) ?? [];
    // After every listener of equal or higher priority: equal priorities keep registration order.
    let index = list.findIndex((l) => l.priority < priority);
    if (index === -1) index = list.length;
    list.splice(index, 0, listener);
    this.listeners.set(event, list);
    this.cachedTable = undefined;
    this.rebind(event, list);
    return listener;
  }

  removeListener(listener: RegisteredListener): void {
    const list = this.listeners.get(listener.event);
    if (!list) return;
    const index = list.indexOf(listener);
    if (index === -1) return;
    list.splice(index, 1);
    this.cachedTable = undefined;
    this.bus.off(listener.event, listener.busHandler);
  }

  /** The listeners of an event in the order they are called. */
  getListeners(event: string): readonly RegisteredListener[] {
    return this.listeners.get(event) ?? [];
  }

  get events(): string[] {
    return [...this.listeners.keys()];
  }

  /**
   * Every listener of every event as one table, the same array until a listener is added or removed: a profile
   * stores it with its calls as indexes into it, instead of every call's names (most of a profile otherwise).
   */
  table(): ListenerTable {
    return this.indexedTable().rows;
  }

  protected indexedTable(): { rows: ListenerTable; index: Map<RegisteredListener, number> } {
    if (this.cachedTable) return this.cachedTable;
    const rows: Array<readonly [string, string, number]> = [];
    const index = new Map<RegisteredListener, number>();
    for (const list of this.listeners.values()) {
      for (const listener of list) {
        index.set(listener, rows.length);
        rows.push([listener.event, listener.name, listener.priority]);
      }
    }
    this.cachedTable = { rows, index };
    return this.cachedTable;
  }

  /**
   * Calls the event's listeners in order, synchronously; a throwing listener ends the dispatch and the error
   * propagates, after the listeners called so far have been logged. A listener that hands a task to
   * `event.waitFor` suspends the dispatch: the listeners after it are called once the task resolves, and
   * `event.settled` (undefined when nothing waited) resolves after the last one, or rejects with the first error.
   */
  dispatch<E extends KernelEvent>(event: E, context: KernelContext = event.request.context): E {
    const state: DispatchState = {
      tasks: undefined,
      called: [],
      timed: this.timed,
      logsFrom: this.timed ? context.logs.length : 0,
      waiting: undefined,
      deferred: [],
    };
    event.dispatchState = state;
    try {
      this.bus.emit(event.name, event);
    } catch (error) {
      this.trace(event, state, context);
      throw error;
    }
    if (!state.waiting) {
      this.trace(event, state, context);
      return event;
    }
    event.settled = this.resume(event, state).finally(() => this.trace(event, state, context));
    return event;
  }

  /** Waits for the waiting listener's task, then calls the deferred listeners in order (each may wait again). */
  private async resume(event: KernelEvent, state: DispatchState): Promise<void> {
    while (state.waiting) {
      await state.waiting;
      state.waiting = undefined;
      const rest = state.deferred.splice(0);
      for (let i = 0; i < rest.length; i++) {
        if (event.isPropagationStopped()) return;
        call(rest[i], event, state);
        if (state.waiting) {
          state.deferred.push(...rest.slice(i + 1));
          break;
        }
      }
    }
  }

  /**
   * After each dispatch, with the listeners called (timed only when `timed`): nothing here; the
   * TraceableEventDispatcher, which debug mode provides, logs and records them.
   */
  protected trace(_event: KernelEvent, _dispatch: TracedDispatch, _context: KernelContext): void {
    // The production dispatcher keeps no record of its calls.
  }

  /** EventEmitter2 calls in registration order: put ours back in priority order, others' handlers untouched. */
  private rebind(event: string, list: RegisteredListener[]): void {
    for (const listener of list) this.bus.off(event, listener.busHandler);
    for (const listener of list) this.bus.on(event, listener.busHandler);
  }
}

/**
 * Calls one listener and records it; the tasks it handed to `waitFor` make the dispatch wait, and its recorded
 * duration then runs until they have settled (the session load shows its real cost in the Events panel).
 */
function call(listener: RegisteredListener, event: KernelEvent, state: DispatchState): void {
  // Timed and recorded only when traced: otherwise no clock reads, no record.
  const called = state.timed ? new Called(listener, performance.now()) : undefined;
  if (called) state.called.push(called);
  state.tasks = undefined;
  try {
    const returned = (listener.callable as (event: KernelEvent) => unknown)(event);
    if (returned instanceof Promise) waitForListener(listener, event, returned);
  } finally {
    if (called) called.duration = performance.now() - called.start;
  }
  const tasks = state.tasks;
  if (!tasks) return;
  state.tasks = undefined;
  state.waiting = called
    ? Promise.all(tasks).finally(() => {
        called.duration = performance.now() - called.start;
      })
    : Promise.all(tasks);
}

/** A listener returned a promise: the dispatch waits for it where the event can wait, else it is the listener's error. */
function waitForListener(listener: RegisteredListener, event: KernelEvent, task: Promise<unknown>): void {
  if (event.canWait) {
    event.waitForListener(task);
    return;
  }
  // Refused, never left unhandled.
  task.catch(() => undefined);
  throw new TypeError(
    `The kernel listener ${listener.name} returned a promise, but ${event.name} cannot wait for a task${event.name === 'kernel.response' ? ' (the response is streamed)' : ''}.`,
  );
}

function isAsync(callable: ListenerCallable): boolean {
  return callable.constructor?.name === 'AsyncFunction';
}
