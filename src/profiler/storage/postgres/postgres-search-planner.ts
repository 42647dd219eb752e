import type { ProfileSearchCriteria, ProfileSearchResult } from '../profile-record.js';
import { compileCriteria } from '../search/compiled-criteria.js';
import { findCapped } from './postgres-capped-find.js';
import type { PostgresConnection } from './postgres-connection.js';
import { profileConditions } from './postgres-search-conditions.js';
import type { PostgresTables } from './postgres-tables.js';
import { PostgresTextSearch } from './postgres-text-search.js';

/** Plain SQL: PostgreSQL's planner picks the index by its statistics. */
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
    if (compiled.text !== null) return this.text.find(pool, compiled, compiled.text);
    const params: unknown[] = [];
    const from = `${this.tables.profile} p WHERE ${profileConditions(compiled, params)}`;
    return findCapped(pool, this.tables.profile, { from, params, driver: 'p' }, compiled.limit);
  }
}
