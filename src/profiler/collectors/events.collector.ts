import { Injectable } from '@nestjs/common';
import { KernelEventDispatcher, type ListenerTable } from '../../lifecycle/event-dispatcher.js';
import type { KernelContext, ListenerCall } from '../../lifecycle/kernel-context.js';
import { KernelEvents } from '../../lifecycle/kernel.events.js';
import { DataCollector } from './data-collector.js';
import { holdsSerialisedOnce, serialisedOnce } from '../storage/profile-json.js';
import { profiledPart } from '../late-collection.js';

/** A listener call as the panel shows it (times in milliseconds since the request entered the kernel). */
export type StoredListenerCall = Omit<ListenerCall, 'tableIndex' | 'notifiedAt' | 'notifiedTime'>;

export interface EventsData {
  called: StoredListenerCall[];
  notCalled: { event: string; listener: string; priority: number }[];
}

/**
 * What is stored: the dispatcher's listener table (the same array for every profile until a listener is added or
 * removed) and each call as three integers, `[row in the table, start µs, duration µs]`, flattened: as objects
 * with their names, a request's listener calls would be a large share of its profile, and the Logs and Performance
 * panels derive theirs from here rather than storing them again.
 */
export interface CompactEvents {
  listeners: ListenerTable;
  calls: number[];
  /** Indexes of the calls that stopped propagation. */
  stopped: number[];
}

const KERNEL_EVENT_ORDER: string[] = Object.values(KernelEvents);

/** For every kernel event: the listeners called, in order, with priority and time, and those not called. */
@Injectable()
export class EventsCollector extends DataCollector<EventsData> {
  readonly name = 'events';
  readonly label = 'Events';
  override readonly priority = 260;
  override readonly deferrable = true;

  constructor(private readonly dispatcher: KernelEventDispatcher) {
    super();
  }

  override lateCollect(context: KernelContext): EventsData {
    // The same array until a listener is added or removed: its JSON is written once, not in every profile.
    const table = serialisedOnce(this.dispatcher.table());
    const calls = profiledPart(context, 'listenerCalls');
    const flat = new Array<number>(calls.length * 3);
    const stopped: number[] = [];
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i];
      const row = table[call.tableIndex];
      // A listener added or removed while the request ran: this profile keeps its calls by name.
      if (!row || row[1] !== call.listener || row[0] !== call.event) return this.verbose(context);
      flat[i * 3] = call.tableIndex;
      flat[i * 3 + 1] = Math.round(call.start * 1000);
      flat[i * 3 + 2] = Math.round(call.duration * 1000);
      if (call.stoppedPropagation) stopped.push(i);
    }
    const compact: CompactEvents = holdsSerialisedOnce({ listeners: table, calls: flat, stopped });
    return compact as unknown as EventsData;
  }

  override expand(stored: unknown): EventsData {
    return expandEvents(stored);
  }

  override panel(data: EventsData): object {
    // Grouped by consecutive event name, as the calls happened (kernel.exception can come between others).
    const groups: { event: string; calls: (StoredListenerCall & { durationText: string })[] }[] = [];
    for (const call of data.called) {
      let group = groups[groups.length - 1];
      if (!group || group.event !== call.event) groups.push((group = { event: call.event, calls: [] }));
      group.calls.push({ ...call, durationText: call.duration.toFixed(2) });
    }
    const notCalled = [...data.notCalled].sort((a, b) => order(a.event) - order(b.event));
    return { groups, calledCount: data.called.length, notCalled, notCalledCount: notCalled.length };
  }

  /** The calls by name (older profiles' form). */
  private verbose(context: KernelContext): EventsData {
    const called = profiledPart(context, 'listenerCalls').map((call): StoredListenerCall => ({
      event: call.event,
      listener: call.listener,
      priority: call.priority,
      start: call.start,
      duration: call.duration,
      stoppedPropagation: call.stoppedPropagation,
    }));
    const seen = new Set(called.map((c) => `${c.event}\u0000${c.listener}`));
    const notCalled: EventsData['notCalled'] = [];
    for (const [event, listener, priority] of this.dispatcher.table()) {
      if (event !== KernelEvents.TERMINATE && !seen.has(`${event}\u0000${listener}`))
        notCalled.push({ event, listener, priority });
    }
    return { called, notCalled };
  }
}

/** The Events data of a profile as stored, compact or by name; empty when the profile has none. */
export function expandEvents(stored: unknown): EventsData {
  if (!stored || typeof stored !== 'object') return { called: [], notCalled: [] };
  if ('called' in stored) return stored as EventsData;
  const { listeners, calls, stopped } = stored as CompactEvents;
  const stops = new Set(stopped);
  const calledRows = new Set<number>();
  const called: StoredListenerCall[] = [];
  for (let i = 0; i * 3 < calls.length; i++) {
    const row = listeners[calls[i * 3]];
    calledRows.add(calls[i * 3]);
    called.push({
      event: row?.[0] ?? '?',
      listener: row?.[1] ?? '?',
      priority: row?.[2] ?? 0,
      start: calls[i * 3 + 1] / 1000,
      duration: calls[i * 3 + 2] / 1000,
      stoppedPropagation: stops.has(i),
    });
  }
  // kernel.terminate runs after the profile is collected: its listeners are neither called nor not called yet.
  const notCalled = listeners
    .filter(([event], row) => event !== KernelEvents.TERMINATE && !calledRows.has(row))
    .map(([event, listener, priority]) => ({ event, listener, priority }));
  return { called, notCalled };
}

function order(event: string): number {
  const i = KERNEL_EVENT_ORDER.indexOf(event);
  return i === -1 ? KERNEL_EVENT_ORDER.length : i;
}
