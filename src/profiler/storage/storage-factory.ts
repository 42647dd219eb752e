import { isAbsolute, resolve } from 'node:path';
import { isPostgresDsn, parsePostgresProfilerDsn } from './postgres/postgres-dsn.js';
import { PostgresProfilerStorage } from './postgres/postgres-profiler.storage.js';
import type { ProfilerStorage } from './profiler-storage.js';
import { ProfilerStores } from './profiler-stores.js';
import { SqliteProfilerStorage } from './sqlite/sqlite-profiler.storage.js';

export interface ProfilerStorageFactoryOptions {
  /** What a relative SQLite file is relative to (default: the working directory). */
  baseDir?: string;
}

export const SUPPORTED_PROFILER_DSNS = ['sqlite:<file>', 'sqlite::memory:', 'postgres://…', 'postgresql://…'];

export function createProfilerStorage(dsn: string, options: ProfilerStorageFactoryOptions = {}): ProfilerStorage {
  return createProfilerStores(dsn, options).storage;
}

/** A PostgreSQL store is shared by several instances, a SQLite one is this process's alone. */
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
