import { createRequire } from 'node:module';
import type { SqlLanguage } from 'sql-formatter';
import { highlighter } from '../../profiler/views/highlighter.js';
import type { DialectName } from '../database-url.js';

const LANGUAGES: Record<DialectName, SqlLanguage> = { sqlite: 'sqlite', postgres: 'postgresql' };

/**
 * sql-formatter, loaded the first time a Database panel is opened (synchronously, its CommonJS build): a process
 * serving requests never needs its memory (BENCHMARKS.md).
 */
let formatter: typeof import('sql-formatter') | undefined;
const require = createRequire(import.meta.url);

/**
 * A statement laid out by sql-formatter for its dialect, then highlighted as HTML (`hljs-*` spans, every piece of
 * text escaped by highlight.js). A statement the formatter cannot parse is highlighted as it was recorded.
 * For the panel's view only: run when somebody opens it, never while collecting.
 */
export function highlightedSql(sql: string, dialect: DialectName): string {
  let text = sql;
  try {
    formatter ??= require('sql-formatter') as typeof import('sql-formatter');
    text = formatter.format(sql, { language: LANGUAGES[dialect], tabWidth: 2 });
  } catch {
    // kept as recorded
  }
  return highlighter.highlight(text, { language: 'sql', ignoreIllegals: true }).value;
}
