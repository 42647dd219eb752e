import type pg from 'pg';
import type { ProfileSearchResult } from '../profile-record.js';
import type { CompiledCriteria } from '../search/compiled-criteria.js';
import type { SearchTerm } from '../search/search-words.js';
import { COLUMNS, type SummaryRow } from './postgres-sql.js';
import type { PostgresTables } from './postgres-tables.js';
import type { PostgresConnection } from './postgres-connection.js';
import type { PostgresTextTotals } from './postgres-text-totals.js';
import { queryKey } from '../search/tracked-queries.js';
import { termsTsquery, textRowConditions } from './postgres-text-rows.js';

/** Matches from which the newest are found by reading the time index backwards rather than all sorted. */
const WALK_MIN_MATCHES = 20_000;

/**
 * A search with full-text terms, through the GIN index of the profiles' words (a table a day, PostgresTextParts):
 * kinds, method, status and time are the text rows' own columns, checked on the rows the words find; an IP, URL or
 * token is checked on the profile's row. A query that matched many profiles is tracked: counted from its running
 * totals from then on (PostgresTextTotals).
 */
export class PostgresTextSearch {
  constructor(
    private readonly connection: PostgresConnection,
    private readonly tables: PostgresTables,
    private readonly totals: PostgresTextTotals,
    private readonly trackMin: number,
  ) {}

  /** `rowConditions`: the WHERE clause of the other filters on the profile `p` ($1 …), with its parameters. */
  async find(
    pool: pg.Pool,
    f: CompiledCriteria,
    terms: SearchTerm[],
    [rowConditions, params]: [string, unknown[]],
  ): Promise<ProfileSearchResult> {
    const query = termsTsquery(terms);
    const values = [...params, query];
    const matching = [`t.doc @@ $${values.length}::tsquery`, this.tables.liveText(), ...textRowConditions(f, values)];
    if (f.time) {
      values.push(f.time[0], f.time[1]);
      matching.push(`t.time BETWEEN $${values.length - 1} AND $${values.length}`);
    }
    const words = matching.join(' AND ');
    const onlyWords = f.ip === null && f.url === null && f.token === null;
    const total = await (onlyWords
      ? this.countWords(pool, f, terms, query)
      : pool
          .query<{ n: string }>(
            `SELECT count(*) AS n FROM ${this.tables.text} t JOIN ${this.tables.profile} p ON p.id = t.id WHERE ${words} AND ${rowConditions}`,
            values,
          )
          .then(({ rows }) => Number(rows[0].n)));
    if (total === 0 || f.limit === 0) return { total, rows: [] };
    // Common matches: the time index read backwards finds the newest soon. Rare ones (the planner cannot tell: a
    // word's frequency is not in its statistics unless very common): all of them through the GIN index, sorted.
    const order = total >= WALK_MIN_MATCHES ? 't.time DESC, t.id DESC' : 't.time + 0 DESC, t.id DESC';
    const limit = `$${values.length + 1}`;
    const list = onlyWords
      ? `SELECT ${COLUMNS} FROM (SELECT t.id FROM ${this.tables.text} t WHERE ${words} ORDER BY ${order} LIMIT ${limit}) m
         JOIN ${this.tables.profile} p ON p.id = m.id ORDER BY p.time DESC, p.id DESC`
      : `SELECT ${COLUMNS} FROM ${this.tables.text} t JOIN ${this.tables.profile} p ON p.id = t.id WHERE ${words} AND ${rowConditions}
         ORDER BY ${order} LIMIT ${limit}`;
    const listed = await pool.query<SummaryRow>(list, [...values, f.limit]);
    return { total, rows: listed.rows };
  }

  /**
   * Matches by words, kinds, method, status and time: from the tracked query's totals, else through the index
   * (then tracked, in the background, when they are many).
   */
  private async countWords(pool: pg.Pool, f: CompiledCriteria, terms: SearchTerm[], query: string): Promise<number> {
    const key = queryKey(terms);
    const fromTotals = await this.totals.count(key, f, query);
    if (fromTotals !== null) return fromTotals;
    const values: unknown[] = [query];
    const where = [`t.doc @@ $1::tsquery`, this.tables.liveText(), ...textRowConditions(f, values)];
    if (f.time) where.push(`t.time BETWEEN $${values.push(f.time[0])} AND $${values.push(f.time[1])}`);
    const { rows } = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${this.tables.text} t WHERE ${where.join(' AND ')}`,
      values,
    );
    const total = Number(rows[0].n);
    if (total >= this.trackMin) {
      this.totals
        .track(key, query)
        .catch((error: unknown) =>
          this.connection.logger.warn(
            `The PostgreSQL profile store ${this.connection.description} could not keep totals of the search "${key}": ${(error as Error)?.message ?? String(error)}`,
          ),
        );
    }
    return total;
  }
}
