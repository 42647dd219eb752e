import { Injectable } from '@nestjs/common';
import type { KernelContext } from '../../lifecycle/kernel-context.js';
import { countLogs, type LogCounts } from '../../lifecycle/logging/log-counts.js';
import { LOG_LEVEL_NAMES, LogLevel, parseLogLevel } from '../../lifecycle/logging/log-level.js';
import { DataCollector, type PanelBadge, type PanelRequest, type ToolbarBlock } from './data-collector.js';
import { pathSegments, toJsonSafe } from './json-safe.js';
import { Redactor } from '../../lifecycle/redaction/redactor.js';
import { NOTIFIED, notificationCount, withNotifications } from '../../lifecycle/traceable-event-dispatcher.js';
import type { ProfileRecord } from '../storage/profile-record.js';
import { expandEvents } from './events.collector.js';
import { profiledPart } from '../late-collection.js';
import { logMessageHtml } from './log-message-html.js';
import { EditorLinks } from '../editor/editor-links.js';
import { logSections, logStages } from './log-sections.js';
import { interpolate } from '../../lifecycle/logging/log-entry.js';

const MAX_ENTRIES = 2000;

export interface StoredLog {
  /** Monolog level number. */
  level: number;
  channel: string;
  /** As written, with its {placeholders}: interpolated when shown, from the (redacted) context. */
  message: string;
  context: Record<string, unknown>;
  /** Milliseconds since the epoch. */
  time: number;
  /** The kernel event whose listeners wrote it (LogEntry.during); absent between events, and in older profiles. */
  during?: string;
}

/**
 * A kernel `Notified event` entry as stored: `[index of its listener call in the Events data, time]`, the time in
 * milliseconds after `LogsData.timeBase` (since the epoch in profiles stored before it). Those entries are most of
 * a request's log, and their event and listener are already in the Events data.
 */
export type NotificationRef = [call: number, time: number];

export interface LogsData {
  /**
   * What the times of NotificationRef entries count from (ms since the epoch). Small integers are several times
   * cheaper for JSON to write than thirteen-digit times, and a request logs some thirty of them.
   */
  timeBase?: number;
  entries: StoredLog[];
  /** Entries beyond the cap, not stored. */
  truncated: number;
  counts: LogCounts;
}

/** Every log entry of the request (all channels and levels), with level and channel filters in its panel. */
@Injectable()
export class LogsCollector extends DataCollector<LogsData> {
  readonly name = 'logs';
  readonly label = 'Logs';
  override readonly priority = 270;
  override readonly deferrable = true;

  constructor(private readonly links: EditorLinks) {
    super();
  }

  /**
   * Each message as the panel shows it, its placeholders filled from the stored (redacted) context; the kernel's
   * notifications (their listeners are the Events panel's) are left out.
   */
  override searchText(data: LogsData): string[] {
    const messages: string[] = [];
    for (const entry of data.entries) {
      if (!Array.isArray(entry)) messages.push(interpolate(entry.message, entry.context ?? {}));
    }
    return messages;
  }

  override lateCollect(context: KernelContext): LogsData {
    const logs = profiledPart(context, 'logs');
    const calls = profiledPart(context, 'listenerCalls');
    const notified = notificationCount(calls);
    const counts = countLogs(logs);
    counts.debug += notified;
    const visible = pathSegments(context.request.pathInfo);
    const timeBase = context.startedAt;
    const notification = (index: number, time: number) =>
      [index, time] satisfies NotificationRef as unknown as StoredLog;
    const entries = withNotifications(
      logs,
      calls,
      (entry): StoredLog =>
        entry.listenerCall !== undefined
          ? notification(entry.listenerCall, entry.timestamp - timeBase)
          : {
              level: entry.level,
              channel: entry.channel,
              message: Redactor.text(entry.template),
              context: toJsonSafe(entry.context, { maxDepth: 5, maxString: 2000, visible }) as Record<string, unknown>,
              time: entry.timestamp,
              ...(entry.during === undefined ? {} : { during: entry.during }),
            },
      (call, index) => notification(index, call.notifiedTime),
      MAX_ENTRIES,
    );
    return { timeBase, entries, truncated: logs.length + notified - entries.length, counts };
  }

  override expand(stored: unknown, record: ProfileRecord): LogsData {
    const { timeBase, ...data } = stored as LogsData;
    if (!data.entries.some((entry) => Array.isArray(entry))) return data;
    const calls = expandEvents(record.data.events).called;
    const base = timeBase ?? 0;
    const entries = data.entries.map((entry): StoredLog => {
      if (!Array.isArray(entry)) return entry;
      const [index, time] = entry as unknown as NotificationRef;
      const call = calls[index];
      return {
        level: LogLevel.DEBUG,
        channel: 'event',
        message: NOTIFIED,
        context: { event: call?.event ?? '?', listener: call?.listener ?? '?' },
        time: base + time,
      };
    });
    return { ...data, entries };
  }

  /** In the toolbar after time and memory, as in Symfony's. */
  override get toolbarPriority(): number {
    return 225;
  }

  /** Errors, warnings and deprecations, each linking to the Logs panel filtered to it. */
  override toolbar(data: LogsData, profile: ProfileRecord): ToolbarBlock {
    const { errors, warnings, deprecations } = data.counts;
    const panel = `/_profiler/${profile.token}?panel=logs`;
    return {
      status: errors > 0 ? 'error' : warnings + deprecations > 0 ? 'warning' : null,
      errors,
      warnings,
      deprecations,
      quiet: errors + warnings + deprecations === 0,
      rows: [
        { label: 'Errors', value: String(errors), status: errors > 0 ? 'error' : null, href: `${panel}&level=error` },
        {
          label: 'Warnings',
          value: String(warnings),
          status: warnings > 0 ? 'warning' : null,
          href: `${panel}&level=warning`,
        },
        {
          label: 'Deprecations',
          value: String(deprecations),
          status: deprecations > 0 ? 'warning' : null,
          href: `${panel}&channel=deprecation`,
        },
        { label: 'Entries', value: String(data.entries.length + data.truncated) },
      ],
    };
  }

  override badge(data: LogsData): PanelBadge | null {
    if (data.counts.errors > 0) return { text: String(data.counts.errors), kind: 'error' };
    const warnings = data.counts.warnings + data.counts.deprecations;
    return warnings > 0 ? { text: String(warnings), kind: 'warning' } : null;
  }

  /**
   * The errors and warnings first, each linking to its row; then every entry in order, the debug ones folded per
   * kernel event (closed `<details>`, still in the HTML for search and the specification's log section).
   */
  override panel(data: LogsData, { query }: PanelRequest): object {
    const minLevel = query.level ? (parseLogLevel(query.level) ?? undefined) : undefined;
    const channel = query.channel || undefined;
    const channels = [...new Set(data.entries.map((e) => e.channel))].sort();
    const stages = logStages(data.entries);
    const entries = data.entries
      .map((e, index) => ({ e, index }))
      .filter(
        ({ e }) => (minLevel === undefined || e.level >= minLevel) && (channel === undefined || e.channel === channel),
      )
      .map(({ e, index }) => ({
        ...e,
        index,
        id: `log-${index}`,
        levelName: LOG_LEVEL_NAMES[e.level as LogLevel] ?? String(e.level),
        levelClass: (LOG_LEVEL_NAMES[e.level as LogLevel] ?? 'info').toLowerCase(),
        messageHtml: logMessageHtml(e.message, e.context, { link: (file, line) => this.links.href(file, line) }),
        time: new Date(e.time).toISOString().slice(11, 23),
        contextJson: Object.keys(e.context).length === 0 ? '' : JSON.stringify(e.context, null, 2),
      }));
    const levels = ['debug', 'info', 'notice', 'warning', 'error', 'critical'].map((name) => ({
      name,
      selected: query.level === name,
    }));
    return {
      problems: entries.filter((e) => e.level >= LogLevel.WARNING),
      sections: logSections(
        entries,
        entries.map((e) => stages[e.index]),
      ),
      total: data.entries.length,
      shown: entries.length,
      truncated: data.truncated,
      counts: data.counts,
      levels,
      channels: channels.map((name) => ({ name, selected: name === channel })),
      filtered: minLevel !== undefined || channel !== undefined,
    };
  }
}
