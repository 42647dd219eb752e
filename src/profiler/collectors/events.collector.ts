import { Injectable } from '@nestjs/common';
import { KernelEventDispatcher } from '../../lifecycle/event-dispatcher.js';
import type { KernelContext, ListenerCall } from '../../lifecycle/kernel-context.js';
import { KernelEvents } from '../../lifecycle/kernel.events.js';
import { DataCollector } from './data-collector.js';

/** A listener call as the kernel recorded it (times in milliseconds since the request entered the kernel). */
export type StoredListenerCall = ListenerCall;

export interface EventsData {
  called: StoredListenerCall[];
  notCalled: { event: string; listener: string; priority: number }[];
}

const KERNEL_EVENT_ORDER: string[] = Object.values(KernelEvents);

/** For every kernel event: the listeners called, in order, with priority and time, and those not called. */
@Injectable()
export class EventsCollector extends DataCollector<EventsData> {
  readonly name = 'events';
  readonly label = 'Events';
  override readonly priority = 260;

  constructor(private readonly dispatcher: KernelEventDispatcher) {
    super();
  }

  override lateCollect(context: KernelContext): EventsData {
    const called = context.listenerCalls.map((c) => ({ ...c }));
    const seen = new Set(called.map((c) => `${c.event}\u0000${c.listener}`));
    const notCalled: EventsData['notCalled'] = [];
    for (const event of this.dispatcher.events) {
      // kernel.terminate runs after the profile is collected: its listeners are neither called nor not called yet.
      if (event === KernelEvents.TERMINATE) continue;
      for (const listener of this.dispatcher.getListeners(event)) {
        if (!seen.has(`${event}\u0000${listener.name}`)) notCalled.push({ event, listener: listener.name, priority: listener.priority });
      }
    }
    return { called, notCalled };
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
}

function order(event: string): number {
  const i = KERNEL_EVENT_ORDER.indexOf(event);
  return i === -1 ? KERNEL_EVENT_ORDER.length : i;
}
