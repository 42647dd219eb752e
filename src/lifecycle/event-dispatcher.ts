import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { KernelContext } from './kernel-context.js';
import type { KernelEvent } from './kernel.events.js';
import { KernelLogger } from './logging/kernel-logger.js';
import { LogLevel } from './logging/log-level.js';

export type ListenerCallable = (event: any) => void;

export interface RegisteredListener {
  event: string;
  /** `Class::method`, the identifier the logs and the Events panel show. */
  name: string;
  priority: number;
  callable: ListenerCallable;
  /** What is registered on the EventEmitter2 bus for this listener. */
  readonly busHandler: (event: KernelEvent) => void;
}

const NOTIFIED = 'Notified event "{event}" to listener "{listener}".';
const STOPPED = 'Listener "{listener}" stopped propagation of the event "{event}".';

/** Marks an event object with what its current dispatch has called, in order. */
const CALLED = Symbol('called listeners');
interface Called {
  listener: RegisteredListener;
  start: number;
  duration: number;
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
      busHandler: (kernelEvent: KernelEvent) => {
        if (kernelEvent.isPropagationStopped()) return;
        const start = performance.now();
        const called: Called = { listener, start, duration: 0 };
        ((kernelEvent as any)[CALLED] as Called[]).push(called);
        try {
          callable(kernelEvent);
        } finally {
          called.duration = performance.now() - start;
        }
      },
    };
    const list = this.listeners.get(event) ?? [];
    // After every listener of equal or higher priority: equal priorities keep registration order.
    let index = list.findIndex((l) => l.priority < priority);
    if (index === -1) index = list.length;
    list.splice(index, 0, listener);
    this.listeners.set(event, list);
    this.rebind(event, list);
    return listener;
  }

  removeListener(listener: RegisteredListener): void {
    const list = this.listeners.get(listener.event);
    if (!list) return;
    const index = list.indexOf(listener);
    if (index === -1) return;
    list.splice(index, 1);
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
   * Calls the event's listeners in order, synchronously; a throwing listener ends the dispatch and the error
   * propagates, after the listeners called so far have been logged.
   */
  dispatch<E extends KernelEvent>(event: E, context: KernelContext = event.request.context): E {
    const called: Called[] = [];
    (event as any)[CALLED] = called;
    try {
      this.bus.emit(event.name, event);
    } finally {
      this.trace(event, called, context);
    }
    return event;
  }

  private trace(event: KernelEvent, called: Called[], context: KernelContext): void {
    const stopped = event.isPropagationStopped();
    for (let i = 0; i < called.length; i++) {
      const { listener, start, duration } = called[i];
      const isLast = i === called.length - 1;
      context.listenerCalls.push({
        event: event.name,
        listener: listener.name,
        priority: listener.priority,
        start: start - context.start,
        duration,
        stoppedPropagation: stopped && isLast,
      });
      this.logger.record(LogLevel.DEBUG, 'event', NOTIFIED, { event: event.name, listener: listener.name }, context);
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
