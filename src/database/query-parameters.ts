import { toJsonSafe } from '../profiler/collectors/json-safe.js';
import { MASK, Redactor } from '../lifecycle/redaction/redactor.js';

/** Words after which a placeholder belongs to no column. */
const NO_COLUMN = new Set(['limit', 'offset', 'fetch']);
/** Words that are not column names (the operators and clauses around a placeholder). */
const KEYWORDS = new Set([
  'and',
  'or',
  'not',
  'in',
  'is',
  'null',
  'like',
  'ilike',
  'glob',
  'between',
  'escape',
  'set',
  'where',
  'values',
  'select',
  'from',
  'as',
  'on',
  'when',
  'then',
  'else',
  'end',
  'case',
  'distinct',
  'exists',
  'any',
  'all',
  'true',
  'false',
  'having',
  'returning',
  'do',
  'update',
  'conflict',
  'nothing',
  'into',
  'insert',
  'delete',
  'join',
  'inner',
  'left',
  'right',
  'cross',
  'outer',
  'using',
  'order',
  'group',
  'by',
  'asc',
  'desc',
  'nulls',
  'first',
  'last',
  'with',
  'cast',
  'collate',
  'lower',
  'upper',
]);
const TOKEN = /"((?:[^"]|"")*)"|'(?:[^']|'')*'|\?|\$(\d+)|([A-Za-z_][A-Za-z0-9_]*)|([(),])|\S/g;

/**
 * A query's parameters as the profiler and the logs may keep them: JSON-safe and bounded (toJsonSafe), and
 * masked where the SQL binds them to a column whose name looks like a secret (`"password_hash" = ?`, an insert's
 * `("email", "password_hash") values (?, ?)`). Parameters have no names of their own, so the SQL names them.
 */
export function safeParameters(sql: string, params: readonly unknown[]): unknown[] {
  const safe = toJsonSafe(params, { maxDepth: 4, maxString: 1000 }) as unknown[];
  // Most statements name no secret-looking column at all: one regular expression test, no parsing.
  if (params.length === 0 || !Redactor.isSecretField(sql)) return safe;
  const columns = parameterColumns(sql, params.length);
  // In a table named like a secret (`sessions`, `remember_me_tokens`) the key and the payload are credentials
  // too: only times and references (`*_at`, `*_id`) stay readable.
  const table = /\b(?:from|into|update)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/i.exec(sql)?.[1];
  const secretTable = table !== undefined && Redactor.isSecretField(table);
  for (let i = 0; i < Math.min(columns.length, safe.length); i++) {
    const column = columns[i];
    const secret = secretTable ? !/(_at|_id)$/.test(column ?? '') : column !== null && Redactor.isSecretField(column);
    if (secret && safe[i] !== null && safe[i] !== '') safe[i] = MASK;
  }
  return safe;
}

/**
 * The column each placeholder (`?` of SQLite, `$n` of PostgreSQL) is compared with or assigned to, by position;
 * null where the SQL does not say. A reading of the SQL Kysely generates, not a parser.
 */
export function parameterColumns(sql: string, count: number): (string | null)[] {
  const columns: (string | null)[] = new Array(count).fill(null);
  let last: string | null = null;
  let next = 0;
  // An insert's column list, then its value tuples: a placeholder takes the column of its position in the tuple.
  let insert: 'no' | 'table' | 'columns' | 'before-values' | 'values' = 'no';
  const insertColumns: string[] = [];
  let depth = 0;
  let position = 0;
  const assign = (index: number) => {
    if (index < 0 || index >= count) return;
    columns[index] = insert === 'values' && depth === 1 ? (insertColumns[position] ?? null) : last;
  };
  for (const match of sql.matchAll(TOKEN)) {
    const [token, quoted, dollar, word, punctuation] = match;
    if (
      quoted !== undefined ||
      (word !== undefined && !KEYWORDS.has(word.toLowerCase()) && !NO_COLUMN.has(word.toLowerCase()))
    ) {
      const name = quoted !== undefined ? quoted.replace(/""/g, '"') : word!;
      if (insert === 'columns') insertColumns.push(name);
      last = name;
      continue;
    }
    if (token === '?') {
      assign(next++);
      continue;
    }
    if (dollar !== undefined) {
      assign(Number(dollar) - 1);
      continue;
    }
    if (word !== undefined) {
      const keyword = word.toLowerCase();
      if (NO_COLUMN.has(keyword)) last = null;
      else if (keyword === 'insert') insert = 'table';
      else if (keyword === 'values' && (insert === 'before-values' || insert === 'table')) insert = 'values';
      else if (insert === 'values' && depth === 0) insert = 'no';
      continue;
    }
    if (punctuation === '(') {
      depth++;
      if (insert === 'table' && depth === 1) insert = 'columns';
      if (insert === 'values' && depth === 1) position = 0;
    } else if (punctuation === ')') {
      depth = Math.max(0, depth - 1);
      if (insert === 'columns' && depth === 0) insert = 'before-values';
    } else if (punctuation === ',' && insert === 'values' && depth === 1) {
      position++;
    }
  }
  return columns;
}
