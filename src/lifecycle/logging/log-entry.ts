import { LOG_LEVEL_NAMES, LogLevel } from './log-level.js';

export type LogContext = Record<string, unknown>;

/** A PSR-3 placeholder, `{key}`. */
export const PLACEHOLDER = /\{([A-Za-z0-9_.]+)\}/g;

/**
 * One log record of a request. The message is kept as written, with PSR-3 `{placeholders}`, and interpolated
 * only when read: most entries of most requests are never looked at, so the hot path only stores references.
 */
export class LogEntry {
  private interpolated?: string;
  /**
   * For the kernel's `Notified event` entries: the index of the listener call (KernelContext.listenerCalls) it
   * reports, so a store can keep the entry as a reference to that call instead of its text.
   */
  listenerCall: number | undefined = undefined;
  /**
   * The kernel event whose listeners were running when it was written (set by the TraceableEventDispatcher after the
   * dispatch; the innermost event when one was dispatched inside another). Undefined between events: in the
   * controller, or before the first.
   */
  during: string | undefined = undefined;

  constructor(
    readonly level: LogLevel,
    readonly channel: string,
    readonly template: string,
    readonly context: LogContext,
    /** Milliseconds since the epoch. */
    readonly timestamp: number,
  ) {}

  get levelName(): string {
    return LOG_LEVEL_NAMES[this.level];
  }

  get message(): string {
    if (this.interpolated === undefined) this.interpolated = interpolate(this.template, this.context);
    return this.interpolated;
  }

  toJSON(): { level: string; channel: string; message: string; context: LogContext; timestamp: number } {
    return {
      level: this.levelName,
      channel: this.channel,
      message: this.message,
      context: this.context,
      timestamp: this.timestamp,
    };
  }
}

/** How a placeholder's value reads in a message: a printed line masks secrets on top of it (LineFormatter). */
export type PlaceholderText = (key: string, value: unknown) => string;

export function interpolate(template: string, context: LogContext, text: PlaceholderText = placeholderText): string {
  if (!template.includes('{')) return template;
  return template.replace(PLACEHOLDER, (whole, key: string) => (key in context ? text(key, context[key]) : whole));
}

export function placeholderText(_key: string, value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') {
    if (value instanceof Error) return `[object ${value.constructor.name}]`;
    if (value instanceof Date) return value.toISOString();
    try {
      return JSON.stringify(value);
    } catch {
      return `[object ${value.constructor?.name ?? 'Object'}]`;
    }
  }
  return String(value);
}
