import pg from 'pg';
import { DuplicateTokenError } from '../profiler-storage.js';

/**
 * Runs `work` on a client of the pool, listening to the client's errors meanwhile (a connection lost while a
 * client is checked out is emitted on the client, and unheard it would crash the process); a client that failed
 * is destroyed rather than returned to the pool.
 */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  // The listener goes on in the pool's callback, not after `await pool.connect()`: the pool stops listening as
  // it hands the client out, and a new connection's "ready" and a server's FATAL (a backend terminated at that
  // moment) can arrive in one network read, which pg parses before any promise continuation runs.
  const client = await new Promise<pg.PoolClient>((resolve, reject) => {
    pool.connect((error, connected) => {
      if (error || !connected) reject(error ?? new Error('The pool gave no client.'));
      else {
        connected.on('error', onError);
        resolve(connected);
      }
    });
  });
  try {
    const result = await work(client);
    client.removeListener('error', onError);
    client.release(lost);
    return result;
  } catch (error) {
    client.removeListener('error', onError);
    client.release(lost ?? (breaksConnection(error) ? (error as Error) : undefined));
    throw error;
  }
}

/**
 * Whether a client that failed with this error must not go back to the pool: everything but the server's
 * answers to a query (a constraint, a syntax error) and our own DuplicateTokenError, except the server's
 * connection exceptions (class 08) and shutdowns (57P0x).
 */
function breaksConnection(error: unknown): boolean {
  if (error instanceof DuplicateTokenError) return false;
  if (error instanceof pg.DatabaseError) return /^(08|57P0)/.test(error.code ?? '');
  return true;
}

/** `work` in a transaction on a client of the pool: committed when it resolves, rolled back when it throws. */
export function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (client) => {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}
