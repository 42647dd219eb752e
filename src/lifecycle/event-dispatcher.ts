import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { KernelContext } from './kernel-context.js';
import type { EventDispatch, KernelEvent } from './kernel.events.js';
import { KernelLogger } from './logging/kernel-logger.js';
import { LogLevel } from './logging/log-level.js';

export type ListenerCallable = (event: any) => void;

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

/** The message of the DEBUG `event` entry written for each listener notified. */
export const NOTIFIED = 'Notified event "{event}" to listener "{listener}".';
const STOPPED = 'Listener "{listener}" stopped propagation of the event "{event}".';

interface Called {
  listener: RegisteredListener;
  start: number;
  duration: number;
}
interface DispatchState extends EventDispatch {
  /** What has been called, in order (only when someone will see it: KernelLogger.tracing). */
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
 * listener that stops propagation ends the dispatch. After each dispatch, one DEBUG `event` log entry is written
 * per listener notified, as Symfony's TraceableEventDispatcher does, and the calls are kept on the request for
 * the profiler (name, priority, start, duration).
 */
@Injectable()
export class KernelEventDispatcher {
  private readonly listeners = new Map<string, RegisteredListener[]>();
  /** `table()` and each listener's row in it; rebuilt after a listener is added or removed. */
  private cachedTable: { rows: ListenerTable; index: Map<RegisteredListener, number> } | undefined;

  constructor(
    private readonly bus: EventEmitter2,
    private readonly logger: KernelLogger,
  ) {}

  addListener(event: string, callable: ListenerCallable, priority = 0, name = callable.name || 'closure'): RegisteredListener {
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

  private indexedTable(): { rows: ListenerTable; index: Map<RegisteredListener, number> } {
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
    const state: DispatchState = { tasks: undefined, called: [], timed: this.logger.tracing, waiting: undefined, deferred: [] };
    event.dispatchState = state;
    try {
      this.bus.emit(event.name, event);
    } catch (error) {
      this.trace(event, state.called, context);
      throw error;
    }
    if (!state.waiting) {
      this.trace(event, state.called, context);
      return event;
    }
    event.settled = this.resume(event, state).finally(() => this.trace(event, state.called, context));
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

  /** The calls as the profiler and the logs show them; nothing when no one will see them (KernelLogger.tracing). */
  private trace(event: KernelEvent, called: Called[], context: KernelContext): void {
    if (!this.logger.tracing) return;
    const stopped = event.isPropagationStopped();
    const table = this.indexedTable().index;
    // Written together after the dispatch, as Symfony's TraceableEventDispatcher does: one timestamp for all.
    const now = Date.now();
    for (let i = 0; i < called.length; i++) {
      const { listener, start, duration } = called[i];
      const isLast = i === called.length - 1;
      const callIndex = context.listenerCalls.length;
      context.listenerCalls.push({
        event: event.name,
        listener: listener.name,
        priority: listener.priority,
        start: start - context.start,
        duration,
        stoppedPropagation: stopped && isLast,
        tableIndex: table.get(listener) ?? -1,
      });
      this.logger.record(LogLevel.DEBUG, 'event', NOTIFIED, listener.notification, context, now).listenerCall = callIndex;
      if (stopped && isLast) {
        this.logger.record(LogLevel.DEBUG, 'event', STOPPED, { listener: listener.name, event: event.name }, context);
      }
    }
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
  // Timed and recorded only when someone will see it (tracing): otherwise no clock reads, no record.
  const called: Called | undefined = state.timed ? { listener, start: performance.now(), duration: 0 } : undefined;
  if (called) state.called.push(called);
  state.tasks = undefined;
  try {
    listener.callable(event);
  } finally {
    if (called) called.duration = performance.now() - called.start;
  }
  const tasks = state.tasks;
  if (!tasks) return;
  state.tasks = undefined;
  state.waiting = called ? Promise.all(tasks).finally(() => { called.duration = performance.now() - called.start; }) : Promise.all(tasks);
}
