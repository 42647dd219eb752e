import pg from 'pg';
import { DuplicateTokenError } from '../profiler-storage.js';

/** Listens to the client's errors: a connection lost while checked out, unheard, would crash the process. */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  // In the pool's callback, not after `await pool.connect()`: "ready" and a server's FATAL can arrive in one
  // network read, parsed before any promise continuation runs, and the pool stops listening as it hands out.
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

/** The server's answers to a query leave the connection usable, but for connection exceptions and shutdowns. */
function breaksConnection(error: unknown): boolean {
  if (error instanceof DuplicateTokenError) return false;
  if (error instanceof pg.DatabaseError) return /^(08|57P0)/.test(error.code ?? '');
  return true;
}

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
