import type pg from 'pg';
import type { ProfileSearchResult } from '../profile-record.js';
import { COUNT_CAP } from '../search-helpers.js';
import { COLUMNS, type SummaryRow } from './postgres-sql.js';

/** `from` is `<tables> WHERE <conditions>`; `driver` the alias of its rows, with a time and an id. */
export interface Matches {
  from: string;
  params: unknown[];
  driver: string;
}

export async function countCapped(pool: pg.Pool, { from, params, driver }: Matches): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT ${driver}.id FROM ${from} LIMIT ${COUNT_CAP + 1}) AS capped`,
    params,
  );
  return rows[0].n;
}

/**
 * One statement counts up to the cap and, when that was all, returns the newest too. Otherwise they are common: a
 * second statement reads them newest first (the time index read backwards finds them soon).
 */
export async function findCapped(
  pool: pg.Pool,
  profile: string,
  matches: Matches,
  limit: number,
): Promise<ProfileSearchResult> {
  const { from, params, driver } = matches;
  const n = `$${params.length + 1}`;
  const { rows } = await pool.query<SummaryRow & { total: number }>(
    `WITH m AS MATERIALIZED (SELECT ${driver}.id, ${driver}.time FROM ${from} LIMIT ${COUNT_CAP + 1})
     SELECT c.total, ${COLUMNS} FROM (SELECT count(*)::int AS total FROM m) c
     LEFT JOIN LATERAL (SELECT id FROM m WHERE c.total <= ${COUNT_CAP} ORDER BY time DESC, id DESC LIMIT ${n}) top ON true
     LEFT JOIN ${profile} p ON p.id = top.id
     ORDER BY p.time DESC, p.id DESC`,
    [...params, limit],
  );
  const total = rows[0].total;
  if (total <= COUNT_CAP || limit === 0)
    return { total, rows: rows.filter((row) => row.token !== null).map(({ total: _, ...row }) => row) };
  const newest = await pool.query<SummaryRow>(
    `SELECT ${COLUMNS} FROM (SELECT ${driver}.id FROM ${from} ORDER BY ${driver}.time DESC, ${driver}.id DESC LIMIT ${n}) top
     JOIN ${profile} p ON p.id = top.id ORDER BY p.time DESC, p.id DESC`,
    [...params, limit],
  );
  return { total, rows: newest.rows };
}
