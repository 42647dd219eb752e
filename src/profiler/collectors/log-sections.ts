import { NOTIFIED } from '../../lifecycle/traceable-event-dispatcher.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';

/** What the grouping needs of an entry (a StoredLog, or the panel's row built from one). */
export interface SectionedLog {
  level: number;
  channel: string;
  message: string;
  context: Record<string, unknown>;
}

/** A run of the log in its order: entries shown as they are, or debug entries folded under one kernel event. */
export type LogSection<T> =
  | { folded: false; entries: T[] }
  | { folded: true; event: string | null; notifications: number; others: number; label: string; entries: T[] };

/** The kernel's `Notified event` entry, whose context names the event. */
export function isNotification(entry: SectionedLog): boolean {
  return entry.level === LogLevel.DEBUG && entry.channel === 'event' && entry.message === NOTIFIED;
}

/**
 * Cuts the log, kept in order, into sections: each run of debug entries during one kernel event becomes one folded
 * section, every other entry stays in the open. A debug entry belongs to the event its notification names, or to the
 * last event notified before it (what the kernel was doing when it was logged).
 */
export function logSections<T extends SectionedLog>(entries: T[]): LogSection<T>[] {
  const sections: LogSection<T>[] = [];
  let event: string | null = null;
  for (const entry of entries) {
    const notification = isNotification(entry);
    if (notification) event = String(entry.context.event ?? '?');
    const last = sections.at(-1);
    if (entry.level > LogLevel.DEBUG) {
      if (last && !last.folded) last.entries.push(entry);
      else sections.push({ folded: false, entries: [entry] });
      continue;
    }
    let group = last?.folded && last.event === event ? last : undefined;
    if (!group) {
      group = { folded: true, event, notifications: 0, others: 0, label: '', entries: [] };
      sections.push(group);
    }
    group.entries.push(entry);
    if (notification) group.notifications++;
    else group.others++;
  }
  for (const section of sections)
    if (section.folded) section.label = groupLabel(section.event, section.notifications, section.others);
  return sections;
}

function groupLabel(event: string | null, notifications: number, others: number): string {
  const counts = [
    notifications > 0 ? `${notifications} event notification${notifications === 1 ? '' : 's'}` : null,
    others > 0 ? `${others} ${notifications > 0 ? 'other ' : ''}debug entr${others === 1 ? 'y' : 'ies'}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  return `${event ?? 'Before the kernel events'}: ${counts}`;
}
