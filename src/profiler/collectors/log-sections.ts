import { NOTIFIED } from '../../lifecycle/traceable-event-dispatcher.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';

/** What the grouping needs of an entry (a StoredLog, or the panel's row built from one). */
export interface SectionedLog {
  level: number;
  channel: string;
  message: string;
  context: Record<string, unknown>;
  /** The kernel event whose listeners wrote it, when known (LogEntry.during). */
  during?: string;
}

/**
 * A run of the log in its order: entries shown as they are, or debug entries folded under what the kernel was doing
 * (`stage`: a kernel event's name, `controller`, or `before` / `after:<event>` between events).
 */
export type LogSection<T> =
  | { folded: false; entries: T[] }
  | { folded: true; stage: string; notifications: number; others: number; label: string; entries: T[] };

/** The kernel's `Notified event` entry, whose context names the event. */
export function isNotification(entry: SectionedLog): boolean {
  return entry.level === LogLevel.DEBUG && entry.channel === 'event' && entry.message === NOTIFIED;
}

/**
 * What the kernel was doing when each entry was written: a notification's event; the event whose listeners wrote
 * it (the traced dispatcher marks them); else the gap after the last event notified, which after
 * kernel.controller_arguments is the controller (profiles stored before the mark count every gap that way).
 * Worked out on the whole log, so that a filtered view (one channel) still names its entries' stages.
 */
export function logStages(entries: readonly SectionedLog[]): string[] {
  let lastEvent: string | null = null;
  return entries.map((entry) => {
    if (isNotification(entry)) return (lastEvent = String(entry.context.event ?? '?'));
    return entry.during ?? gapAfter(lastEvent);
  });
}

/**
 * Cuts the log, kept in order, into sections: each run of debug entries of one stage (`stages`, by default the
 * entries' own: logStages) becomes one folded section; every other entry stays in the open.
 */
export function logSections<T extends SectionedLog>(entries: T[], stages = logStages(entries)): LogSection<T>[] {
  const sections: LogSection<T>[] = [];
  entries.forEach((entry, i) => {
    const last = sections.at(-1);
    if (entry.level > LogLevel.DEBUG) {
      if (last && !last.folded) last.entries.push(entry);
      else sections.push({ folded: false, entries: [entry] });
      return;
    }
    const stage = stages[i];
    let group = last?.folded && last.stage === stage ? last : undefined;
    if (!group) {
      group = { folded: true, stage, notifications: 0, others: 0, label: '', entries: [] };
      sections.push(group);
    }
    group.entries.push(entry);
    if (isNotification(entry)) group.notifications++;
    else group.others++;
  });
  for (const section of sections)
    if (section.folded) section.label = groupLabel(section.stage, section.notifications, section.others);
  return sections;
}

function gapAfter(event: string | null): string {
  if (event === null) return 'before';
  return event === 'kernel.controller_arguments' ? 'controller' : `after:${event}`;
}

function stageName(stage: string): string {
  if (stage === 'before') return 'Before the kernel events';
  if (stage === 'controller') return 'In the controller';
  return stage.startsWith('after:') ? `After ${stage.slice(6)}` : stage;
}

function groupLabel(stage: string, notifications: number, others: number): string {
  const counts = [
    notifications > 0 ? `${notifications} event notification${notifications === 1 ? '' : 's'}` : null,
    others > 0 ? `${others} ${notifications > 0 ? 'other ' : ''}debug entr${others === 1 ? 'y' : 'ies'}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  return `${stageName(stage)}: ${counts}`;
}
