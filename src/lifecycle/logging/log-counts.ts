import { LogLevel } from './log-level.js';

/** What the error page, the Logs panel and the toolbar count in a request's log. */
export interface LogCounts {
  /** ERROR and above. */
  errors: number;
  warnings: number;
  /** Entries on the `deprecation` channel. */
  deprecations: number;
  debug: number;
}

export function countLogs(entries: Iterable<{ level: LogLevel; channel: string }>): LogCounts {
  const counts: LogCounts = { errors: 0, warnings: 0, deprecations: 0, debug: 0 };
  for (const entry of entries) {
    if (entry.level >= LogLevel.ERROR) counts.errors++;
    else if (entry.level === LogLevel.WARNING) counts.warnings++;
    if (entry.channel === 'deprecation') counts.deprecations++;
    if (entry.level === LogLevel.DEBUG) counts.debug++;
  }
  return counts;
}
