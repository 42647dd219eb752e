import type pg from 'pg';
import type { ProfileSearchResult } from '../profile-record.js';
import type { CompiledCriteria } from '../search/compiled-criteria.js';
import type { SearchTerm } from '../search/search-words.js';
import { COLUMNS, countCapped, newestFirst, type SummaryRow } from './postgres-sql.js';
import type { PostgresTables } from './postgres-tables.js';
import { termsTsquery, textRowConditions } from './postgres-text-rows.js';

/**
 * A search with full-text terms, through the GIN index of the profiles' words (a table a day, PostgresTextParts):
 * kinds, method, status and time are the text rows' own columns, checked on the rows the words find; an IP, URL or
 * token is checked on the profile's row. Counted up to COUNT_CAP + 1, as every search.
 */
export class PostgresTextSearch {
  constructor(private readonly tables: PostgresTables) {}

  /** `rowConditions`: the WHERE clause of the other filters on the profile `p` ($1 …), with its parameters. */
  async find(
    pool: pg.Pool,
    f: CompiledCriteria,
    terms: SearchTerm[],
    [rowConditions, params]: [string, unknown[]],
  ): Promise<ProfileSearchResult> {
    const values = [...params, termsTsquery(terms)];
    const matching = [`t.doc @@ $${values.length}::tsquery`, this.tables.liveText(), ...textRowConditions(f, values)];
    if (f.time) matching.push(`t.time BETWEEN $${values.push(f.time[0])} AND $${values.push(f.time[1])}`);
    const words = matching.join(' AND ');
    const onlyWords = f.ip === null && f.url === null && f.token === null;
    const from = onlyWords
      ? `${this.tables.text} t WHERE ${words}`
      : `${this.tables.text} t JOIN ${this.tables.profile} p ON p.id = t.id WHERE ${words} AND ${rowConditions}`;
    const total = await countCapped(pool, from, values);
    if (total === 0 || f.limit === 0) return { total, rows: [] };
    const order = newestFirst('t', total);
    const limit = `$${values.length + 1}`;
    const list = onlyWords
      ? `SELECT ${COLUMNS} FROM (SELECT t.id FROM ${from} ORDER BY ${order} LIMIT ${limit}) m
         JOIN ${this.tables.profile} p ON p.id = m.id ORDER BY p.time DESC, p.id DESC`
      : `SELECT ${COLUMNS} FROM ${from} ORDER BY ${order} LIMIT ${limit}`;
    const listed = await pool.query<SummaryRow>(list, [...values, f.limit]);
    return { total, rows: listed.rows };
  }
}
