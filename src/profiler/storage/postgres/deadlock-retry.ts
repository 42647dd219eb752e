import { setTimeout as sleep } from 'node:timers/promises';

/** PostgreSQL's SQLSTATEs for a transaction it chose to abort so that another could go on: try it again. */
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * Runs `transaction` again when PostgreSQL aborted it as a deadlock victim (or a serialization failure), as its
 * manual advises: an instance opening the store takes table locks (CREATE INDEX IF NOT EXISTS) while another instance
 * already writes profiles, and the server breaks such a cycle by aborting one side. A short random pause lets the
 * other side finish first; any other error, or the last attempt's, is thrown.
 */
export async function retryWhenAborted<T>(transaction: () => Promise<T>, attempts = 5, pauseMs = 100): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (attempt >= attempts || typeof code !== 'string' || !RETRYABLE.has(code)) throw error;
      await sleep(pauseMs * attempt * (0.5 + Math.random()));
    }
  }
}
