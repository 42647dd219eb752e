import type { CompiledCriteria } from '../search/compiled-criteria.js';
import type { SearchTerm } from '../search/search-words.js';
import { kindCondition } from './postgres-sql.js';

/** Every filter but the full-text terms, on the profile `p`; values pushed to `params`. */
export function profileConditions(f: CompiledCriteria, params: unknown[]): string {
  const where: string[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  const range = (column: string, [low, high]: [string, string | null]) => {
    where.push(`${column} >= ${param(low)}`);
    if (high !== null) where.push(`${column} < ${param(high)}`);
  };
  if (f.time) where.push(`p.time BETWEEN ${param(f.time[0])} AND ${param(f.time[1])}`);
  if (f.kinds !== null) where.push(kindCondition(f.kinds));
  if (f.ip) range('p.ip', f.ip);
  if (f.method !== null) where.push(`upper(p.method) = ${param(f.method)}`);
  if (f.status) where.push(`p.status BETWEEN ${param(f.status[0])} AND ${param(f.status[1])}`);
  if (f.token) range('p.token', f.token);
  if (f.url !== null) where.push(`p.url ILIKE ${param(f.url.like)}`);
  return where.length === 0 ? 'true' : where.join(' AND ');
}

/** Columns of the text row `t`: as words, common to most profiles, they would make the GIN lookup read long lists. */
export function textRowConditions(f: CompiledCriteria, params: unknown[]): string[] {
  const where: string[] = [];
  if (f.kinds !== null) where.push(kindCondition(f.kinds, 't.kind'));
  if (f.method !== null) where.push(`t.method = $${params.push(f.method)}`);
  if (f.status !== null) where.push(`t.status BETWEEN $${params.push(f.status[0])} AND $${params.push(f.status[1])}`);
  return where;
}

export function termsTsquery(terms: readonly SearchTerm[]): string {
  return terms.map((t) => `${lexeme(t.word)}${t.prefix ? ':*' : ''}`).join(' & ');
}

/** Quoted, so tsquery takes it as it is. */
function lexeme(word: string): string {
  return `'${word.replace(/['\\]/g, (c) => `\\${c}`)}'`;
}
