import { format, type SqlLanguage } from 'sql-formatter';
import { highlighter } from '../../profiler/views/highlighter.js';
import type { DialectName } from '../database-url.js';

const LANGUAGES: Record<DialectName, SqlLanguage> = { sqlite: 'sqlite', postgres: 'postgresql' };

/**
 * A statement laid out by sql-formatter for its dialect, then highlighted as HTML (`hljs-*` spans, every piece of
 * text escaped by highlight.js). A statement the formatter cannot parse is highlighted as it was recorded.
 * For the panel's view only: run when somebody opens it, never while collecting.
 */
export function highlightedSql(sql: string, dialect: DialectName): string {
  let text = sql;
  try {
    text = format(sql, { language: LANGUAGES[dialect], tabWidth: 2 });
  } catch {
    // kept as recorded
  }
  return highlighter.highlight(text, { language: 'sql', ignoreIllegals: true }).value;
}
