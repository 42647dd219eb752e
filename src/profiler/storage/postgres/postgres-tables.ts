import { quoteIdent } from './postgres-sql.js';

/** The store's tables in its schema: qualified, quoted names, which every part of the store builds its SQL from. */
export class PostgresTables {
  /** The list columns; `id` is an identity, so time then id is the list order. */
  readonly profile: string;
  /** One ProfileCodec blob per profile. */
  readonly data: string;
  /** The full-text index: each profile's words (search-words.ts) as a tsvector, with its time for the list order. */
  readonly text: string;
  /** The tracked full-text queries, their running totals, and the newest time pruned (PostgresTextTotals). */
  readonly textQuery: string;
  readonly textCount: string;
  readonly textFloor: string;
  /** The tokens reserved and not yet written (PostgresTokenStore). */
  readonly token: string;
  /** The running totals (PostgresRunningTotals). */
  readonly count: string;
  readonly ipCount: string;
  readonly urlCount: string;
  readonly skeletonCount: string;
  readonly skeletonStatusCount: string;
  /** Each totals table with its key, in the order every statement updates them. */
  readonly totals: ReadonlyArray<readonly [string, string]>;
  /** The schema's SQL function giving a URL's skeleton (url-skeleton.ts's urlSkeleton, in SQL). */
  readonly skeletonOf: string;

  constructor(readonly schema: string) {
    const qualified = (name: string) => `${quoteIdent(schema)}.${name}`;
    this.profile = qualified('profiler_profile');
    this.data = qualified('profiler_profile_data');
    this.text = qualified('profiler_profile_text');
    this.token = qualified('profiler_token');
    this.textQuery = qualified('profiler_text_query');
    this.textCount = qualified('profiler_text_count');
    this.textFloor = qualified('profiler_text_floor');
    this.count = qualified('profiler_kind_count');
    this.ipCount = qualified('profiler_ip_kind_count');
    this.urlCount = qualified('profiler_url_count');
    this.skeletonCount = qualified('profiler_skeleton_count');
    this.skeletonStatusCount = qualified('profiler_skeleton_status_count');
    this.totals = [
      [this.count, 'hour, kind, method, status'],
      [this.ipCount, 'ip, kind, method, status'],
      [this.urlCount, 'url'],
      [this.skeletonCount, 'skeleton'],
      [this.skeletonStatusCount, 'skeleton, method, status'],
    ];
    this.skeletonOf = qualified('profiler_url_skeleton');
  }

  /** The full-text table of a day (time / 86,400,000): a partition of `text`. */
  textDay(day: number): string {
    return `${quoteIdent(this.schema)}.profiler_profile_text_d${day}`;
  }

  /**
   * SQL true for a full-text row `t` of a live profile: above the prune floor every row is, at or below it (a day
   * partly pruned keeps its rows until its table is dropped) the profile must still be there.
   */
  liveText(alias = 't'): string {
    return `(${alias}.time > (SELECT max(time) FROM ${this.textFloor}) OR EXISTS (SELECT FROM ${this.profile} x WHERE x.id = ${alias}.id))`;
  }

  /** The names of the running totals' tables, for TRUNCATE, LOCK and sizes. */
  get totalsTables(): string[] {
    return this.totals.map(([table]) => table);
  }
}
