import { EventEmitter2 } from '@nestjs/event-emitter';
import { Called, KernelEventDispatcher, type TracedDispatch } from './event-dispatcher.js';
import type { KernelContext, ListenerCall } from './kernel-context.js';
import type { KernelEvent } from './kernel.events.js';
import { KernelLogger } from './logging/kernel-logger.js';
import { LogEntry } from './logging/log-entry.js';
import { LogLevel } from './logging/log-level.js';

/** The message of the DEBUG `event` entry of each listener notified (requestLog). */
export const NOTIFIED = 'Notified event "{event}" to listener "{listener}".';
const STOPPED = 'Listener "{listener}" stopped propagation of the event "{event}".';

/**
 * The dispatcher with its calls traced (Symfony's TraceableEventDispatcher): each listener call is timed and, after
 * each dispatch, kept on the request for the profiler's Events and Performance panels, with the place of its DEBUG
 * `event` entry in the request's log (requestLog). LifecycleModule provides it instead of the plain dispatcher when
 * someone will see the calls (debug mode, or debug entries printed: KernelLogger.tracing).
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
    // Logged together after the dispatch, as Symfony's TraceableEventDispatcher does: one timestamp for all. The
    // entries themselves are made only where printed or read (requestLog): some thirty a request, read on few.
    const now = Date.now();
    const printed = this.logger.prints(LogLevel.DEBUG, 'event');
    for (let i = 0; i < called.length; i++) {
      const call = called[i];
      const listener = call.registered;
      const isLast = i === called.length - 1;
      call.start -= context.start;
      call.stoppedPropagation = stopped && isLast;
      call.tableIndex = table.get(listener) ?? -1;
      call.notifiedAt = context.logs.length;
      call.notifiedTime = now - context.startedAt;
      context.listenerCalls.push(call);
      if (printed) this.logger.printOnly(new LogEntry(LogLevel.DEBUG, 'event', NOTIFIED, listener.notification, now));
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

/**
 * A request's log entries with each traced listener call's `Notified event` entry in its place (ListenerCall's
 * `notifiedAt`), each mapped by `entry` or `notification`; at most `limit` of them.
 */
export function withNotifications<T>(
  logs: readonly LogEntry[],
  calls: readonly ListenerCall[],
  entry: (logged: LogEntry) => T,
  notification: (call: ListenerCall, index: number) => T,
  limit = Number.POSITIVE_INFINITY,
): T[] {
  const merged: T[] = [];
  let c = 0;
  for (let i = 0; i <= logs.length && merged.length < limit; i++) {
    // Before the entry at its place; a call without one (-1) has no entry.
    for (; c < calls.length && !(calls[c].notifiedAt > i) && merged.length < limit; c++)
      if (calls[c].notifiedAt >= 0) merged.push(notification(calls[c], c));
    if (i < logs.length && merged.length < limit) merged.push(entry(logs[i]));
  }
  for (; c < calls.length && merged.length < limit; c++)
    if (calls[c].notifiedAt >= 0) merged.push(notification(calls[c], c));
  return merged;
}

/** How many `Notified event` entries the calls make (withNotifications). */
export function notificationCount(calls: readonly ListenerCall[]): number {
  let count = 0;
  for (const call of calls) if (call.notifiedAt >= 0) count++;
  return count;
}

/** The request's log as it was written, the kernel's `Notified event` entries made again in their places. */
export function requestLog(
  context: KernelContext,
  logs: readonly LogEntry[] = context.logs,
  calls: readonly ListenerCall[] = context.listenerCalls,
): LogEntry[] {
  return withNotifications(
    logs,
    calls,
    (logged) => logged,
    (call, index) => {
      const notified = new LogEntry(
        LogLevel.DEBUG,
        'event',
        NOTIFIED,
        call instanceof Called ? call.registered.notification : { event: call.event, listener: call.listener },
        context.startedAt + call.notifiedTime,
      );
      notified.listenerCall = index;
      return notified;
    },
  );
}
