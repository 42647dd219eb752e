import type { ProfileSearchCriteria, ProfileSearchResult } from '../profile-record.js';
import { compileCriteria, type CompiledCriteria } from '../search/compiled-criteria.js';
import type { PostgresConnection } from './postgres-connection.js';
import { COLUMNS, countCapped, kindCondition, newestFirst, type SummaryRow } from './postgres-sql.js';
import type { PostgresTables } from './postgres-tables.js';
import { PostgresTextSearch } from './postgres-text-search.js';

/**
 * Plans and runs a search: plain SQL over B-tree indexes (value, time, id) per filter and a pg_trgm GIN index of
 * the URL, with the SQLite store's semantics. The matches are counted up to COUNT_CAP + 1, then the newest `limit`
 * listed in the order that count calls for (newestFirst). A search with full-text terms is the full-text index's
 * (PostgresTextSearch).
 */
export class PostgresSearchPlanner {
  private readonly text: PostgresTextSearch;

  constructor(
    private readonly connection: PostgresConnection,
    private readonly tables: PostgresTables,
  ) {
    this.text = new PostgresTextSearch(tables);
  }

  async find(criteria: ProfileSearchCriteria): Promise<ProfileSearchResult> {
    const pool = this.connection.pool;
    const compiled = compileCriteria(criteria);
    if (!compiled) return { total: 0, rows: [] };
    if (compiled.text !== null) {
      // Kinds, method, status and time are the full-text index's; the others checked on the profile's row.
      const others = conditions({ ...compiled, kinds: null, method: null, status: null, time: null });
      return this.text.find(pool, compiled, compiled.text, others);
    }
    const [where, params] = conditions(compiled);
    const from = `${this.tables.profile} p WHERE ${where}`;
    const total = await countCapped(pool, from, params);
    if (total === 0 || compiled.limit === 0) return { total, rows: [] };
    const { rows } = await pool.query<SummaryRow>(
      `SELECT ${COLUMNS} FROM ${from} ORDER BY ${newestFirst('p', total)} LIMIT $${params.length + 1}`,
      [...params, compiled.limit],
    );
    return { total, rows };
  }
}

/** The WHERE clause of a search and its parameters ($1 …). */
function conditions(f: CompiledCriteria): [string, unknown[]] {
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
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
  return [where.length === 0 ? 'true' : where.join(' AND '), params];
}
