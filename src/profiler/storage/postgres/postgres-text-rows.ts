import type { CompiledCriteria } from '../search/compiled-criteria.js';
import type { SearchTerm } from '../search/search-words.js';
import { kindCondition } from './postgres-sql.js';

/**
 * The kinds, method and status conditions on a full-text row `t` (its own columns), their values pushed to
 * `values`: checked on the rows the words' GIN lookup finds, where the facets' words (common to most profiles)
 * would make the lookup read long posting lists in every day's index.
 */
export function textRowConditions(f: CompiledCriteria, values: unknown[]): string[] {
  const where: string[] = [];
  if (f.kinds !== null) where.push(kindCondition(f.kinds, 't.kind'));
  if (f.method !== null) where.push(`t.method = $${values.push(f.method)}`);
  if (f.status !== null) where.push(`t.status BETWEEN $${values.push(f.status[0])} AND $${values.push(f.status[1])}`);
  return where;
}

/** The tsquery of the terms: every one, a prefix `:*`. */
export function termsTsquery(terms: readonly SearchTerm[]): string {
  return terms.map((t) => `${lexeme(t.word)}${t.prefix ? ':*' : ''}`).join(' & ');
}

/** A lexeme of tsquery's input syntax, taken as it is: quoted, quotes and backslashes escaped. */
function lexeme(word: string): string {
  return `'${word.replace(/['\\]/g, (c) => `\\${c}`)}'`;
}
