import type pg from 'pg';
import type { CompiledCriteria } from '../search/compiled-criteria.js';
import { SkeletonMatcher } from '../url-skeleton.js';
import { sumOf, totalsConditions } from './postgres-running-totals.js';
import type { PostgresTables } from './postgres-tables.js';

/** The most profiles findUrl reads by their URLs (and so the most URLs count() hands back). */
const EXACT_LIST_MAX = 5000;
/** Up to this many profiles in the skeletons that may hold a needle, count() checks their URLs one by one. */
const CHECK_BY_SKELETON_MAX = 5000;

/**
 * Counting the profiles of a URL substring (without '#') from the URL totals: per distinct URL, per URL skeleton,
 * and per skeleton × method × status (see url-skeleton.ts).
 */
export class PostgresUrlCounts {
  constructor(private readonly tables: PostgresTables) {}

  /**
   * Matches of a URL substring (without '#'), from the URL totals: a needle without digits is in a URL exactly
   * when it is in its skeleton, so the few thousand skeletons' totals answer; with digits, the skeletons that hold
   * the needle itself count whole, and the distinct URLs of those that may hold it (SkeletonMatcher) are checked.
   * With `listing`, the matching URLs come back too when their profiles are few (findUrl reads them by URL).
   */
  async count(
    pool: pg.Pool,
    needle: string,
    like: string,
    listing = false,
  ): Promise<{ n: number; urls: string[] | null }> {
    const whole: string[] = [];
    let n = 0;
    if (!/[0-9]/.test(needle)) {
      const { rows } = await pool.query<{ skeleton: string; n: number }>(
        `SELECT skeleton, n FROM ${this.tables.skeletonCount} WHERE skeleton ILIKE $1`,
        [like],
      );
      for (const row of rows) {
        whole.push(row.skeleton);
        n += row.n;
      }
      return { n, urls: listing && n <= EXACT_LIST_MAX ? await this.urlsOf(pool, whole, []) : null };
    }
    const { rows } = await pool.query<{ skeleton: string; n: number }>(
      `SELECT skeleton, n FROM ${this.tables.skeletonCount}`,
    );
    const matcher = new SkeletonMatcher(needle);
    let checking = 0;
    const check: string[] = [];
    for (const row of rows) {
      const match = matcher.match(row.skeleton);
      if (match === 'all') {
        whole.push(row.skeleton);
        n += row.n;
      } else if (match === 'some') {
        check.push(row.skeleton);
        checking += row.n;
      }
    }
    if (check.length === 0)
      return { n, urls: listing && n <= EXACT_LIST_MAX ? await this.urlsOf(pool, whole, []) : null };
    // The skeletons' URLs are checked one by one when they are few (their profiles bound them); else through the
    // trigram index, which may walk long lists but reads only the candidates. The
    // planner would take both and intersect them, paying for the lists anyway: `url || ''` keeps the index out.
    const url = checking <= CHECK_BY_SKELETON_MAX ? `url || ''` : 'url';
    // The URLs found come back too, as many as findUrl may read by (matching URLs are fewer than their profiles).
    const { rows: checked } = await pool.query<{ n: number; urls: string[] | null }>(
      `WITH matches AS (SELECT url, n FROM ${this.tables.urlCount} WHERE skeleton = ANY($1::text[]) AND ${url} ILIKE $2 AND n > 0)
       SELECT coalesce(sum(n), 0)::int8 AS n, (SELECT array_agg(url) FROM (SELECT url FROM matches LIMIT ${EXACT_LIST_MAX}) AS few) AS urls FROM matches`,
      [check, like],
    );
    n += checked[0].n;
    return { n, urls: listing && n <= EXACT_LIST_MAX ? await this.urlsOf(pool, whole, checked[0].urls ?? []) : null };
  }

  /**
   * The matches of a URL part (without '#') with a method or a status, from the skeleton × method × status totals;
   * null when the needle has digits and some skeleton may hold it in only some of its URLs: those totals cannot say
   * which of that skeleton's profiles match.
   */
  async countWithStatus(
    pool: pg.Pool,
    f: CompiledCriteria & { url: { needle: string; like: string } },
  ): Promise<number | null> {
    const { needle, like } = f.url;
    const values: unknown[] = [];
    const where = totalsConditions(f, values);
    if (!/[0-9]/.test(needle)) {
      values.push(like);
      return sumOf(
        pool,
        `${this.tables.skeletonStatusCount} WHERE ${where.join(' AND ')} AND skeleton ILIKE $${values.length}`,
        values,
      );
    }
    const { rows } = await pool.query<{ skeleton: string; n: number }>(
      `SELECT skeleton, sum(n)::int8 AS n FROM ${this.tables.skeletonStatusCount} WHERE ${where.join(' AND ')} GROUP BY skeleton HAVING sum(n) > 0`,
      values,
    );
    const matcher = new SkeletonMatcher(needle);
    let n = 0;
    for (const row of rows) {
      const match = matcher.match(row.skeleton);
      if (match === 'some') return null;
      if (match === 'all') n += row.n;
    }
    return n;
  }

  /** The URLs of `skeletons` that have profiles, and `more`. */
  private async urlsOf(pool: pg.Pool, skeletons: string[], more: string[]): Promise<string[]> {
    if (skeletons.length === 0) return more;
    const { rows } = await pool.query<{ url: string }>(
      `SELECT url FROM ${this.tables.urlCount} WHERE skeleton = ANY($1::text[]) AND n > 0`,
      [skeletons],
    );
    return [...more, ...rows.map((row) => row.url)];
  }
}
