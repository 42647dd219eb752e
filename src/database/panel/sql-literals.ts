import { MASK } from '../../lifecycle/redaction/redactor.js';
import type { DialectName } from '../database-url.js';

/** A statement with its parameters written in, ready to paste into a database console. */
export interface RunnableQuery {
  sql: string;
  /** Some parameters were masked (secrets): the text holds the mask, not the value, and says so. */
  masked: boolean;
}

/**
 * Strings, quoted identifiers and comments, then the placeholders: a `?` or `$n` inside a string or a comment is
 * text, not a parameter, so it is left alone.
 */
const TOKENS = /'(?:[^']|'')*'?|"(?:[^"]|"")*"?|--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|\$(\d+)|(\?)/g;

/**
 * The recorded statement with each placeholder (SQLite's `?`, PostgreSQL's `$n`) replaced by its parameter as a
 * literal of the dialect; a masked parameter stays masked, and a comment on the first line says so, because the
 * query would not find the real row.
 */
export function runnableQuery(sql: string, params: readonly unknown[], dialect: DialectName): RunnableQuery {
  let next = 0;
  let masked = false;
  const inlined = sql.replace(TOKENS, (token, dollar: string | undefined, question: string | undefined) => {
    const index = dollar !== undefined ? Number(dollar) - 1 : question !== undefined ? next++ : -1;
    if (index < 0 || index >= params.length) return token;
    if (params[index] === MASK) masked = true;
    return sqlLiteral(params[index], dialect);
  });
  return {
    sql: masked ? `-- ${MASK} marks a masked secret: put the real value in before running.\n${inlined}` : inlined,
    masked,
  };
}

/** One value as a SQL literal: strings quoted with their quotes doubled, so no value can end the literal early. */
export function sqlLiteral(value: unknown, dialect: DialectName): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return dialect === 'postgres' ? (value ? 'TRUE' : 'FALSE') : value ? '1' : '0';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : quoted(String(value));
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return quoted(value);
  return quoted(JSON.stringify(value) ?? String(value));
}

/**
 * A standard SQL string literal. NUL cannot appear in either database's text, so it is dropped; backslashes are
 * plain characters in both (PostgreSQL with standard_conforming_strings, its default).
 */
function quoted(text: string): string {
  return `'${text.replaceAll('\u0000', '').replace(/'/g, "''")}'`;
}
