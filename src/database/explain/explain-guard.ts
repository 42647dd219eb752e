/**
 * Words that make a statement more than a read: a write, a lock, a schema change, a table created by SELECT INTO,
 * SQLite's PRAGMA and ATTACH. Matched as bare words outside strings and quoted identifiers.
 */
const FORBIDDEN = new Set([
  'insert',
  'update',
  'delete',
  'merge',
  'replace',
  'upsert',
  'into',
  'create',
  'drop',
  'alter',
  'truncate',
  'grant',
  'revoke',
  'pragma',
  'attach',
  'detach',
  'vacuum',
  'reindex',
  'analyze',
  'copy',
  'call',
  'do',
  'lock',
  'set',
  'reset',
  'begin',
  'commit',
  'rollback',
  'savepoint',
  'release',
  'listen',
  'notify',
  'load',
  'execute',
  'prepare',
]);

const TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|(--|\/\*)|(\$[A-Za-z_0-9]*\$)|([A-Za-z_][A-Za-z0-9_]*)|(;)|\S/g;

/**
 * Why a recorded statement may not be explained, or null when it is a single SELECT. The statement comes from the
 * profile, not the client, and is explained, never run; this check, the driver's own read-only check (SQLite) and a
 * read-only transaction (PostgreSQL) each refuse on their own. Comments and dollar quotes are refused outright: the
 * shop's queries have none, and they are where a second statement could hide.
 */
export function explainRefusal(sql: string): string | null {
  let first: string | undefined;
  let ended = false;
  for (const match of sql.matchAll(TOKENS)) {
    const [token, comment, dollarQuote, word, semicolon] = match;
    if (ended) return 'Only a single statement can be explained: this one has more after its semicolon.';
    if (comment !== undefined) return 'A statement with a comment cannot be explained.';
    if (dollarQuote !== undefined) return 'A statement with a dollar-quoted string cannot be explained.';
    if (semicolon !== undefined) {
      ended = true;
      continue;
    }
    if (word === undefined) {
      if (first === undefined) first = token;
      continue;
    }
    const keyword = word.toLowerCase();
    if (first === undefined) first = keyword;
    if (FORBIDDEN.has(keyword))
      return `Only a SELECT can be explained: this statement contains ${keyword.toUpperCase()}.`;
  }
  if (first !== 'select') return 'Only a SELECT can be explained.';
  return null;
}
