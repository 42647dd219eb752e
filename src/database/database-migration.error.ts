/** A migration failed: the database is left at the last one that succeeded, and the application does not start. */
export class DatabaseMigrationError extends Error {
  constructor(
    readonly migration: string | null,
    readonly target: string,
    cause: unknown,
  ) {
    const reason = describeError(cause);
    super(
      migration === null
        ? `Could not migrate the database ${target}: ${reason}`
        : `Database migration "${migration}" failed on ${target}: ${reason}`,
      { cause },
    );
    this.name = 'DatabaseMigrationError';
  }
}

/**
 * An error's message, also for a driver's errors from another realm (not `instanceof Error`) and for a connection
 * refused on every address of a host name (an AggregateError without a message of its own).
 */
function describeError(error: unknown): string {
  const { message, errors } = (error ?? {}) as { message?: unknown; errors?: unknown };
  if (typeof message === 'string' && message !== '') return message;
  if (Array.isArray(errors) && errors.length > 0) return errors.map(describeError).join('; ');
  return String(error);
}
