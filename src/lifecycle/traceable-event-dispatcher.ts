import { EventEmitter2 } from '@nestjs/event-emitter';
import { KernelEventDispatcher, type TracedDispatch } from './event-dispatcher.js';
import type { KernelContext } from './kernel-context.js';
import type { KernelEvent } from './kernel.events.js';
import { KernelLogger } from './logging/kernel-logger.js';
import { LogLevel } from './logging/log-level.js';

/** The message of the DEBUG `event` entry written for each listener notified. */
export const NOTIFIED = 'Notified event "{event}" to listener "{listener}".';
const STOPPED = 'Listener "{listener}" stopped propagation of the event "{event}".';

/**
 * The dispatcher with its calls traced (Symfony's TraceableEventDispatcher): each listener call is timed and, after
 * each dispatch, logged as one DEBUG `event` entry and kept on the request for the profiler's Events and
 * Performance panels. LifecycleModule provides it instead of the plain dispatcher when someone will see the calls
 * (debug mode, or debug entries printed: KernelLogger.tracing).
 */
export class TraceableEventDispatcher extends KernelEventDispatcher {
  protected override readonly timed = true;

  constructor(
    bus: EventEmitter2,
    private readonly logger: KernelLogger,
  ) {
    super(bus);
  }

  /** The calls as the profiler and the logs show them. */
  protected override trace(event: KernelEvent, { called, logsFrom }: TracedDispatch, context: KernelContext): void {
    // What the listeners wrote came before their notifications: it is marked with the event, so that the logs can
    // tell it from what the controller wrote between two events.
    for (let i = logsFrom; i < context.logs.length; i++) context.logs[i].during ??= event.name;
    const stopped = event.isPropagationStopped();
    const table = this.indexedTable().index;
    // Written together after the dispatch, as Symfony's TraceableEventDispatcher does: one timestamp for all.
    const now = Date.now();
    for (let i = 0; i < called.length; i++) {
      const call = called[i];
      const listener = call.registered;
      const isLast = i === called.length - 1;
      const callIndex = context.listenerCalls.length;
      call.start -= context.start;
      call.stoppedPropagation = stopped && isLast;
      call.tableIndex = table.get(listener) ?? -1;
      context.listenerCalls.push(call);
      this.logger.record(LogLevel.DEBUG, 'event', NOTIFIED, listener.notification, context, now).listenerCall =
        callIndex;
      if (stopped && isLast) {
        this.logger.record(LogLevel.DEBUG, 'event', STOPPED, { listener: listener.name, event: event.name }, context);
      }
    }
  }
}

/** The dispatcher the application gets: traced when someone will see the calls (KernelLogger.tracing), plain otherwise. */
export function createEventDispatcher(bus: EventEmitter2, logger: KernelLogger): KernelEventDispatcher {
  return logger.tracing ? new TraceableEventDispatcher(bus, logger) : new KernelEventDispatcher(bus);
}
