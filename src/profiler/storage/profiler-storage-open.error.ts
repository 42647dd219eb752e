import { describeOpenFailure } from '../../database/sqlite-file.js';

/** The application does not start; printed as one line, since a stack trace would only say where it was noticed. */
export class ProfilerStorageOpenError extends Error {
  constructor(
    /** `SQLite`, `PostgreSQL`. */
    readonly kind: string,
    /** The file, or the masked DSN. */
    readonly store: string,
    cause: unknown,
    /** Instead of the cause's message, when the adapter can tell more. */
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
