import { setTimeout as sleep } from 'node:timers/promises';

/** Deadlock victim, serialization failure. */
const RETRYABLE = new Set(['40P01', '40001']);

/** Retries what the server aborted so another transaction could go on, as its manual advises, after a short pause. */
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
