import { describeOpenFailure } from '../../database/sqlite-file.js';

/**
 * The profile store could not be opened at start (a read-only file, a directory without write rights, a server that
 * does not answer): the application does not start; ProfilerService makes it a ConfigurationError naming the
 * variable, printed as one line, since a stack trace would only say where the profiler noticed.
 */
export class ProfilerStorageOpenError extends Error {
  constructor(
    /** The kind of store: `SQLite`, `PostgreSQL`. */
    readonly kind: string,
    /** The file, or the masked DSN. */
    readonly store: string,
    cause: unknown,
    /** Said instead of the cause's own message when the adapter can tell more (the file is a directory …). */
    reason?: string,
  ) {
    super(`Cannot open the ${kind} profile store ${store}: ${oneLine(reason ?? describeOpenFailure(cause))}`, {
      cause,
    });
    this.name = 'ProfilerStorageOpenError';
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
