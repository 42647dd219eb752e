import { quoteIdent } from './postgres-sql.js';

/** The store's tables in its schema: qualified, quoted names, which every part of the store builds its SQL from. */
export class PostgresTables {
  /** The list columns; `id` is an identity, so time then id is the list order. */
  readonly profile: string;
  /** One ProfileCodec blob per profile. */
  readonly data: string;
  /** The full-text index: each profile's words (search-words.ts) as a tsvector, with its time for the list order. */
  readonly text: string;
  /** The newest time pruned (-1: none): full-text rows at or below it may be a pruned profile's. */
  readonly textFloor: string;
  /** The tokens reserved and not yet written (PostgresTokenStore). */
  readonly token: string;

  constructor(readonly schema: string) {
    const qualified = (name: string) => `${quoteIdent(schema)}.${name}`;
    this.profile = qualified('profiler_profile');
    this.data = qualified('profiler_profile_data');
    this.text = qualified('profiler_profile_text');
    this.token = qualified('profiler_token');
    this.textFloor = qualified('profiler_text_floor');
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
}
