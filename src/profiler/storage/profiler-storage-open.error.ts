/**
 * The profile store could not be opened at start (a read-only file, a directory without write rights, a server that
 * does not answer): the application does not start, and main.ts prints this message alone, one line naming the
 * store and the cause, since a stack trace would only say where the profiler noticed.
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
    super(`Cannot open the ${kind} profile store ${store}: ${oneLine(reason ?? describeCause(cause))}`, { cause });
    this.name = 'ProfilerStorageOpenError';
  }
}

/** A driver's message with its error code (SQLite's `SQLITE_READONLY`), which the message alone does not name. */
function describeCause(error: unknown): string {
  const { message, code, errors } = (error ?? {}) as { message?: unknown; code?: unknown; errors?: unknown };
  // A connection refused on every address of a host name: an AggregateError without a message of its own.
  if ((typeof message !== 'string' || message === '') && Array.isArray(errors) && errors.length > 0)
    return errors.map(describeCause).join('; ');
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
