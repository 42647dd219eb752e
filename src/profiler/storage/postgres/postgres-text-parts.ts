import type pg from 'pg';
import { inTransaction } from './postgres-client.js';
import type { PostgresTables } from './postgres-tables.js';

export const TEXT_DAY = 86_400_000;
/** The advisory lock serialising the making and dropping of day tables, database-wide: "PROFTEXT". */
const PARTS_LOCK = '5787213827590428756';

/**
 * The full-text table's partitions, one a day: made before a write needs one (inside its transaction the DDL's lock
 * would hold every search back until commit), dropped once none of the day's profiles is left.
 */
export class PostgresTextParts {
  private readonly known = new Set<number>();

  constructor(private readonly tables: PostgresTables) {}

  async ensure(pool: pg.Pool, times: readonly number[]): Promise<void> {
    const days = [...new Set(times.map((time) => Math.floor(time / TEXT_DAY)))].filter((day) => !this.known.has(day));
    for (const day of days) {
      await inTransaction(pool, async (client) => {
        await client.query(`SET LOCAL lock_timeout = '10s'`);
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [PARTS_LOCK]);
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${this.tables.textDay(day)} PARTITION OF ${this.tables.text}
           FOR VALUES FROM (${day * TEXT_DAY}) TO (${(day + 1) * TEXT_DAY})`,
        );
      });
      this.known.add(day);
    }
  }

  /** Another instance may have dropped a day since. */
  forget(): void {
    this.known.clear();
  }

  async dropEmptyDays(pool: pg.Pool): Promise<void> {
    const { rows } = await pool.query<{ day: string }>(
      `SELECT substring(c.relname FROM '^profiler_profile_text_d(\\d+)$') AS day
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = to_regclass($1)
         AND substring(c.relname FROM '^profiler_profile_text_d(\\d+)$')::bigint <= (SELECT max(time) FROM ${this.tables.textFloor}) / ${TEXT_DAY}
       ORDER BY 1`,
      [this.tables.text],
    );
    for (const day of rows.map((r) => Number(r.day))) {
      await inTransaction(pool, async (client) => {
        await client.query(`SET LOCAL lock_timeout = '2s'`);
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [PARTS_LOCK]);
        const { rows: left } = await client.query(
          `SELECT 1 FROM ${this.tables.profile} WHERE time >= $1 AND time < $2 LIMIT 1`,
          [day * TEXT_DAY, (day + 1) * TEXT_DAY],
        );
        if (left.length === 0) await client.query(`DROP TABLE IF EXISTS ${this.tables.textDay(day)}`);
      });
      this.known.delete(day);
    }
  }

  async dropAll(client: pg.PoolClient): Promise<void> {
    const { rows } = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass($1)`,
      [this.tables.text],
    );
    for (const { name } of rows) {
      const day = /^profiler_profile_text_d(\d+)$/.exec(name)?.[1];
      if (day !== undefined) await client.query(`DROP TABLE IF EXISTS ${this.tables.textDay(Number(day))}`);
    }
    this.known.clear();
  }
}
