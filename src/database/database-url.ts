import { isAbsolute, resolve } from 'node:path';
import { MASK, Redactor } from '../lifecycle/redaction/redactor.js';

export type DialectName = 'sqlite' | 'postgres';

/** Where the shop's data lives, as DATABASE_URL names it. */
export type DatabaseTarget =
  | { dialect: 'sqlite'; /** Absolute path, or `:memory:`. */ file: string }
  | { dialect: 'postgres'; connectionString: string };

/** The forms DATABASE_URL accepts, for error messages and docs. */
export const SUPPORTED_DATABASE_URLS = ['sqlite:<file>', 'sqlite::memory:', 'postgres://…', 'postgresql://…'];

/**
 * Reads DATABASE_URL: `sqlite:<file>` (relative to `baseDir`; `sqlite:///abs/file` is `/abs/file`),
 * `sqlite::memory:`, or a PostgreSQL connection string (`postgres://` or `postgresql://`, as pg reads it).
 */
export function parseDatabaseUrl(url: string, baseDir: string): DatabaseTarget {
  const value = url.trim();
  if (/^postgres(ql)?:\/\/./i.test(value)) return { dialect: 'postgres', connectionString: value };
  const sqlite = /^sqlite:(.*)$/is.exec(value);
  if (!sqlite) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1];
    throw new Error(
      `Unsupported DATABASE_URL${scheme ? ` scheme "${scheme}:"` : ` "${url}"`}: supported are ${SUPPORTED_DATABASE_URLS.map((s) => `"${s}"`).join(', ')}.`,
    );
  }
  const path = sqlite[1].startsWith('//') ? sqlite[1].slice(2) : sqlite[1];
  if (path === '') throw new Error(`DATABASE_URL "${url}" names no file: use "sqlite:<file>" or "sqlite::memory:".`);
  if (path === ':memory:') return { dialect: 'sqlite', file: ':memory:' };
  return { dialect: 'sqlite', file: isAbsolute(path) ? path : resolve(baseDir, path) };
}

/** The URL as it may be shown (profiler panel, logs): a PostgreSQL password masked, in the URL or its query. */
export function describeDatabaseTarget(target: DatabaseTarget): string {
  if (target.dialect === 'sqlite') return `sqlite:${target.file}`;
  try {
    const url = new URL(target.connectionString);
    if (url.password !== '') url.password = MASK;
    return Redactor.url(url.toString());
  } catch {
    return Redactor.url(target.connectionString);
  }
}
