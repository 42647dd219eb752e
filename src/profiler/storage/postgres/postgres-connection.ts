import { Logger } from '@nestjs/common';
import pg from 'pg';
import { ProfilerStorageOpenError } from '../profiler-storage-open.error.js';
import { withClient } from './postgres-client.js';
import { maskDsn } from './postgres-dsn.js';
import { getTypeParser } from './postgres-sql.js';
import { retryWhenAborted } from './deadlock-retry.js';

/** Where the store's warnings go (a lost idle connection, no trigram index): Nest's Logger by default. */
export interface PostgresStorageLogger {
  warn(message: string): void;
}

export interface PostgresProfilerStorageOptions {
  /** A pg connection string (`postgres://user:password@host:port/db?sslmode=…`), without the schema. */
  connectionString: string;
  /** The schema holding the store's tables (created if missing). Default `public`. */
  schema?: string;
  /** Connections of the pool. Default 5. */
  poolSize?: number;
  /**
   * A query that gets no answer for this long (milliseconds) fails and its connection is dropped. Default
   * 30,000. A server that vanished without closing the connections (a network partition, a paused VM) would
   * otherwise hold a write, and every profile queued behind it, for ever. pg's `?query_timeout=` in the DSN wins.
   */
  queryTimeoutMs?: number;
  /**
   * Index URL substrings with pg_trgm (created with `CREATE EXTENSION IF NOT EXISTS pg_trgm` when missing).
   * Default true; without it, or when the extension cannot be created, a URL search scans the profiles.
   */
  trigramIndex?: boolean;
  logger?: PostgresStorageLogger;
}

/**
 * The store's pg.Pool: opened once (concurrent open() calls share the attempt) after the schema is created or
 * checked, in one transaction; every part of the store queries through it. Pool errors are logged, never thrown.
 */
export class PostgresConnection {
  readonly logger: PostgresStorageLogger;
  readonly schema: string;
  private handle?: pg.Pool;
  private opening?: Promise<void>;

  constructor(private readonly options: PostgresProfilerStorageOptions) {
    this.schema = options.schema ?? 'public';
    this.logger = options.logger ?? new Logger('profiler');
  }

  /** The pg connection string (without the schema parameter). */
  get connectionString(): string {
    return this.options.connectionString;
  }

  /** Where the store is, password masked (errors, logs). */
  get description(): string {
    return `${maskDsn(this.options.connectionString)} (schema ${this.schema})`;
  }

  /** The open pool; throws when the store is not open. */
  get pool(): pg.Pool {
    if (!this.handle) throw new Error('The PostgreSQL profile store is not open (call open() first).');
    return this.handle;
  }

  /** Connects, then runs `createSchema` on a client of the new pool; a failure is a ProfilerStorageOpenError. */
  open(createSchema: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    if (this.handle) return Promise.resolve();
    this.opening ??= this.connect(createSchema).finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /** `beforeEnd` runs on the open pool (the instance's last statements), then the pool ends. */
  async close(beforeEnd: (pool: pg.Pool) => Promise<void>): Promise<void> {
    await this.opening?.catch(() => undefined);
    const pool = this.handle;
    if (!pool) return;
    try {
      await beforeEnd(pool);
    } finally {
      this.handle = undefined;
      await pool.end();
    }
  }

  private async connect(createSchema: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    const pool = new pg.Pool({
      connectionString: this.options.connectionString,
      max: this.options.poolSize ?? 5,
      // A server that does not answer must not hold a write (and the buffer behind it) forever.
      connectionTimeoutMillis: 10_000,
      query_timeout: this.options.queryTimeoutMs ?? 30_000,
      keepAlive: true,
      fallback_application_name: 'shopkernel-profiler',
      allowExitOnIdle: true,
      types: { getTypeParser },
      // Every statement is short (a count stops at COUNT_CAP + 1), but the planner, expecting some to read many
      // rows, would compile them or start parallel workers first, which takes longer than running them.
      onConnect: (client) =>
        client.query('SET jit = off; SET max_parallel_workers_per_gather = 0').then(
          () => undefined,
          () => undefined,
        ),
    });
    // An idle connection lost (server restart, network) must not crash the process: the pool drops it and
    // connects again on the next query; queries in flight reject, and the write buffer retries them later.
    pool.on('error', (error: Error) => {
      this.logger.warn(`The PostgreSQL profile store lost an idle connection (${this.description}): ${error.message}`);
    });
    try {
      // Instances starting while others already write can deadlock on the schema's table locks: the server aborts
      // one side, which tries again.
      await retryWhenAborted(() => withClient(pool, (client) => createSchema(client)));
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new ProfilerStorageOpenError('PostgreSQL', this.description, error);
    }
    this.handle = pool;
  }
}
