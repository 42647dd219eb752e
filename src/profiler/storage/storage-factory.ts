import { isAbsolute, resolve } from 'node:path';
import { isPostgresDsn, parsePostgresProfilerDsn } from './postgres/postgres-dsn.js';
import { PostgresProfilerStorage } from './postgres/postgres-profiler.storage.js';
import type { ProfilerStorage } from './profiler-storage.js';
import { ProfilerStores } from './profiler-stores.js';
import { SqliteProfilerStorage } from './sqlite/sqlite-profiler.storage.js';

export interface ProfilerStorageFactoryOptions {
  /** A relative SQLite file is relative to this directory (default: the working directory). */
  baseDir?: string;
}

/** The schemes createProfilerStorage understands, for error messages and docs. */
export const SUPPORTED_PROFILER_DSNS = ['sqlite:<file>', 'sqlite::memory:', 'postgres://…', 'postgresql://…'];

/**
 * The profile store a DSN names: `sqlite::memory:` (an in-memory database, gone with the process),
 * `sqlite:<file>` (a SQLite file, created with its directory on open), or a PostgreSQL database shared by several
 * instances, `postgres://user:password@host:port/db` (`postgresql://` too; `?schema=name`, default `public`, is
 * where its tables go; pg's parameters such as `?sslmode=require` apply). Any other scheme is an error naming the
 * supported ones.
 */
export function createProfilerStorage(dsn: string, options: ProfilerStorageFactoryOptions = {}): ProfilerStorage {
  return createProfilerStores(dsn, options).storage;
}

/**
 * The store a DSN names (see createProfilerStorage) with its token queries; a PostgreSQL store is shared by several
 * instances, a SQLite one is this process's alone.
 */
export function createProfilerStores(dsn: string, options: ProfilerStorageFactoryOptions = {}): ProfilerStores {
  if (isPostgresDsn(dsn)) {
    const storage = new PostgresProfilerStorage(parsePostgresProfilerDsn(dsn));
    return new ProfilerStores(storage, storage.tokens, true);
  }
  const match = /^sqlite:(.*)$/s.exec(dsn.trim());
  if (!match) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(dsn.trim())?.[1];
    const supported = SUPPORTED_PROFILER_DSNS.map((s) => `"${s}"`);
    throw new Error(
      `Unsupported profiler DSN${scheme ? ` scheme "${scheme}:"` : ` "${dsn}"`}: supported are ${supported.slice(0, -1).join(', ')} and ${supported.at(-1)}.`,
    );
  }
  // `sqlite:///var/x.db` (URL style) is `/var/x.db`, as `sqlite:/var/x.db`.
  const path = match[1].startsWith('//') ? match[1].slice(2) : match[1];
  if (path === '')
    throw new Error(`The profiler DSN "${dsn}" names no file: use "sqlite:<file>" or "sqlite::memory:".`);
  const storage = new SqliteProfilerStorage({
    file: path === ':memory:' ? ':memory:' : isAbsolute(path) ? path : resolve(options.baseDir ?? process.cwd(), path),
  });
  return new ProfilerStores(storage, storage.tokens, false);
}
