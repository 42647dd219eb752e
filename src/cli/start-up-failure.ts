import { ConfigurationError } from '../config/configuration.error.js';
import { Redactor } from '../lifecycle/redaction/redactor.js';

/**
 * What a process that could not start prints: a configuration mistake is its one line `<VARIABLE>: <what is
 * wrong>`, since a stack would only say where it was noticed; anything else (a defect) keeps its stack, for the
 * developer who must find it. Both pass the redaction, as everything printed does.
 */
export function describeStartUpFailure(error: unknown): string {
  if (error instanceof ConfigurationError) return `${error.message}\n`;
  const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  return `${Redactor.text(text)}\n`;
}

/** Prints why the process could not start (see describeStartUpFailure) on stderr and exits with 1. */
export function exitOnStartUpFailure(error: unknown): never {
  process.stderr.write(describeStartUpFailure(error));
  process.exit(1);
}

/** Runs a process's start (the application's bootstrap, a command), ending the process as above if it throws. */
export async function startUp<T>(start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    return exitOnStartUpFailure(error);
  }
}
