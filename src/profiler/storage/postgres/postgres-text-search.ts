import type pg from 'pg';
import type { ProfileSearchResult } from '../profile-record.js';
import type { CompiledCriteria } from '../search/compiled-criteria.js';
import type { SearchTerm } from '../search/search-words.js';
import { COUNT_CAP } from '../search-helpers.js';
import { countCapped, findCapped, type Matches } from './postgres-capped-find.js';
import { profileConditions, termsTsquery, textRowConditions } from './postgres-search-conditions.js';
import type { PostgresTables } from './postgres-tables.js';

/**
 * With other filters, the words alone are counted first: if rare, their rows drive. Else the other filters are
 * counted alone: if rarer, or holding an IP, URL or token (only the profile's row has those), the profiles drive.
 */
export class PostgresTextSearch {
  constructor(private readonly tables: PostgresTables) {}

  async find(pool: pg.Pool, f: CompiledCriteria, terms: SearchTerm[]): Promise<ProfileSearchResult> {
    const tsquery = termsTsquery(terms);
    const others = f.ip !== null || f.url !== null || f.token !== null;
    if (!others && f.kinds === null && f.method === null && f.status === null)
      return findCapped(pool, this.tables.profile, this.byWords(f, tsquery, false), f.limit);
    const inWords = await countCapped(pool, this.byWords(f, tsquery, false));
    if (inWords === 0) return { total: 0, rows: [] };
    let matches = this.byWords(f, tsquery, true);
    if (inWords > COUNT_CAP) {
      const params: unknown[] = [];
      const where = profileConditions(f, params);
      const inFilters = await countCapped(pool, {
        from: `${this.tables.profile} p WHERE ${where}`,
        params,
        driver: 'p',
      });
      if (inFilters === 0) return { total: 0, rows: [] };
      if (inFilters <= COUNT_CAP || others) matches = this.byProfiles(tsquery, where, params);
    }
    return findCapped(pool, this.tables.profile, matches, f.limit);
  }

  private byWords(f: CompiledCriteria, tsquery: string, filtered: boolean): Matches {
    const params: unknown[] = [];
    const where = [`t.doc @@ $${params.push(tsquery)}::tsquery`, this.tables.liveText()];
    if (f.time) where.push(`t.time BETWEEN $${params.push(f.time[0])} AND $${params.push(f.time[1])}`);
    if (filtered) where.push(...textRowConditions(f, params));
    const others = filtered
      ? profileConditions({ ...f, kinds: null, method: null, status: null, time: null }, params)
      : 'true';
    const profile = `CROSS JOIN LATERAL (SELECT FROM ${this.tables.profile} p WHERE p.id = t.id AND ${others} LIMIT 1) p`;
    return {
      from: `${this.tables.text} t ${others === 'true' ? '' : profile} WHERE ${where.join(' AND ')}`,
      params,
      driver: 't',
    };
  }

  private byProfiles(tsquery: string, where: string, params: unknown[]): Matches {
    const words = `LATERAL (SELECT FROM ${this.tables.text} t WHERE t.time = p.time AND t.id = p.id AND t.doc @@ $${params.length + 1}::tsquery LIMIT 1) t`;
    return {
      from: `${this.tables.profile} p CROSS JOIN ${words} WHERE ${where}`,
      params: [...params, tsquery],
      driver: 'p',
    };
  }
}
