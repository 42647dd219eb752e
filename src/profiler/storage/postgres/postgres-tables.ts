import { quoteIdent } from './postgres-sql.js';

/** Qualified, quoted names. */
export class PostgresTables {
  /** `id` is an identity, so time then id is the list order. */
  readonly profile: string;
  readonly data: string;
  readonly text: string;
  /** The newest time pruned (-1: none): full-text rows at or below it may be a pruned profile's. */
  readonly textFloor: string;
  /** The tokens reserved and not yet written. */
  readonly token: string;

  constructor(readonly schema: string) {
    const qualified = (name: string) => `${quoteIdent(schema)}.${name}`;
    this.profile = qualified('profiler_profile');
    this.data = qualified('profiler_profile_data');
    this.text = qualified('profiler_profile_text');
    this.token = qualified('profiler_token');
    this.textFloor = qualified('profiler_text_floor');
  }

  textDay(day: number): string {
    return `${quoteIdent(this.schema)}.profiler_profile_text_d${day}`;
  }

  /** A day partly pruned keeps its rows until its table is dropped: at or below the floor, the profile is checked. */
  liveText(alias = 't'): string {
    return `(${alias}.time > (SELECT max(time) FROM ${this.textFloor}) OR EXISTS (SELECT FROM ${this.profile} x WHERE x.id = ${alias}.id))`;
  }
}
