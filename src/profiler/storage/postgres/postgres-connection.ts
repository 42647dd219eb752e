import { Logger } from '@nestjs/common';
import pg from 'pg';
import { ProfilerStorageOpenError } from '../profiler-storage-open.error.js';
import { withClient } from './postgres-client.js';
import { maskDsn } from './postgres-dsn.js';
import { getTypeParser } from './postgres-sql.js';
import { retryWhenAborted } from './deadlock-retry.js';

export interface PostgresStorageLogger {
  warn(message: string): void;
}

export interface PostgresProfilerStorageOptions {
  /** A pg connection string, without the schema. */
  connectionString: string;
  /** Created if missing. Default `public`. */
  schema?: string;
  poolSize?: number;
  /** Else a server gone without closing the connections holds a write for ever. `?query_timeout=` in the DSN wins. */
  queryTimeoutMs?: number;
  /** Index URL substrings with pg_trgm (created if missing). Default true; without it a URL search scans. */
  trigramIndex?: boolean;
  logger?: PostgresStorageLogger;
}

/** The store's pg.Pool, opened once (concurrent open() calls share the attempt) after the schema is created. */
export class PostgresConnection {
  readonly logger: PostgresStorageLogger;
  readonly schema: string;
  private handle?: pg.Pool;
  private opening?: Promise<void>;

  constructor(private readonly options: PostgresProfilerStorageOptions) {
    this.schema = options.schema ?? 'public';
    this.logger = options.logger ?? new Logger('profiler');
  }

  get connectionString(): string {
    return this.options.connectionString;
  }

  /** Password masked, for errors and logs. */
  get description(): string {
    return `${maskDsn(this.options.connectionString)} (schema ${this.schema})`;
  }

  get pool(): pg.Pool {
    if (!this.handle) throw new Error('The PostgreSQL profile store is not open (call open() first).');
    return this.handle;
  }

  open(createSchema: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    if (this.handle) return Promise.resolve();
    this.opening ??= this.connect(createSchema).finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

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
      connectionTimeoutMillis: 10_000,
      query_timeout: this.options.queryTimeoutMs ?? 30_000,
      keepAlive: true,
      fallback_application_name: 'shopkernel-profiler',
      allowExitOnIdle: true,
      types: { getTypeParser },
      // Every statement is short (counts are capped), but the planner would JIT-compile or start parallel workers
      // for those it expects to read many rows, which takes longer than running them.
      onConnect: (client) =>
        client.query('SET jit = off; SET max_parallel_workers_per_gather = 0').then(
          () => undefined,
          () => undefined,
        ),
    });
    // An idle connection lost must not crash the process: the pool reconnects, the write buffer retries.
    pool.on('error', (error: Error) => {
      this.logger.warn(`The PostgreSQL profile store lost an idle connection (${this.description}): ${error.message}`);
    });
    try {
      // Instances starting while others write can deadlock on the schema's table locks.
      await retryWhenAborted(() => withClient(pool, (client) => createSchema(client)));
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new ProfilerStorageOpenError('PostgreSQL', this.description, error);
    }
    this.handle = pool;
  }
}
