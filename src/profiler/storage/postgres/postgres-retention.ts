import type pg from 'pg';
import type { RetentionPolicy } from '../profile-record.js';
import { clampTime } from '../search-helpers.js';
import { inTransaction } from './postgres-client.js';
import type { PostgresConnection } from './postgres-connection.js';
import type { PostgresTables } from './postgres-tables.js';
import type { PostgresTokenStore } from './postgres-token-store.js';
import type { PostgresTextParts } from './postgres-text-parts.js';

/** Rows per prune transaction: enough to save round trips, few enough that no transaction holds locks long. */
const PRUNE_CHUNK = 5000;

export class PostgresRetention {
  constructor(
    private readonly connection: PostgresConnection,
    private readonly tables: PostgresTables,
    private readonly tokens: PostgresTokenStore,
    private readonly textParts: PostgresTextParts,
  ) {}

  /** Instances may prune together: SKIP LOCKED, and a fixed boundary, so they never remove more than one would. */
  async prune(policy: RetentionPolicy): Promise<string[]> {
    const pool = this.connection.pool;
    const removed: string[] = [];
    if (policy.maxAgeMs > 0) {
      await this.pruneUpTo(pool, 'p.time < $1', [clampTime(policy.now - policy.maxAgeMs)], removed);
    }
    if (policy.maxProfiles > 0) {
      const { rows } = await pool.query<{ time: number; id: number }>(
        `SELECT time, id FROM ${this.tables.profile} ORDER BY time DESC, id DESC OFFSET $1 LIMIT 1`,
        [Math.floor(policy.maxProfiles)],
      );
      if (rows.length > 0)
        await this.pruneUpTo(pool, '(p.time, p.id) <= ($1, $2)', [rows[0].time, rows[0].id], removed);
    }
    await this.tokens.dropAbandoned(pool);
    if (removed.length > 0) await this.textParts.dropEmptyDays(pool);
    return removed;
  }

  async clear(): Promise<number> {
    return inTransaction(this.connection.pool, async (client) => {
      await client.query(`SET LOCAL lock_timeout = '10s'`);
      await client.query(
        `LOCK TABLE ${this.tables.profile}, ${this.tables.data}, ${this.tables.text}, ${this.tables.token} IN ACCESS EXCLUSIVE MODE`,
      );
      const { rows } = await client.query<{ n: number }>(`SELECT count(*) AS n FROM ${this.tables.profile}`);
      await this.textParts.dropAll(client);
      await client.query(`TRUNCATE ${this.tables.data}, ${this.tables.text}, ${this.tables.profile}`);
      await client.query(`UPDATE ${this.tables.textFloor} SET time = -1`);
      await this.tokens.clearStored(client);
      return rows[0].n;
    });
  }

  private async pruneUpTo(pool: pg.Pool, condition: string, params: unknown[], removed: string[]): Promise<void> {
    for (;;) {
      // The full-text floor (PostgresTables.liveText) moves in the chunk's transaction.
      const rows = await inTransaction(pool, async (client) => {
        const { rows: gone } = await client.query<{ token: string; time: number; id: number }>(
          `WITH doomed AS (
           SELECT p.id FROM ${this.tables.profile} p WHERE ${condition} ORDER BY p.time, p.id LIMIT ${PRUNE_CHUNK} FOR UPDATE SKIP LOCKED
         )
         , gone AS (DELETE FROM ${this.tables.profile} p USING doomed WHERE p.id = doomed.id RETURNING p.token, p.time, p.id)
         , blobs AS (DELETE FROM ${this.tables.data} d USING gone WHERE d.id = gone.id)
         SELECT token, time, id FROM gone`,
          params,
        );
        if (gone.length > 0) {
          await client.query(`UPDATE ${this.tables.textFloor} SET time = greatest(time, $1)`, [
            gone.reduce((max, r) => Math.max(max, Number(r.time)), -1),
          ]);
        }
        return gone;
      });
      rows.sort((a, b) => a.time - b.time || a.id - b.id);
      for (const row of rows) removed.push(row.token);
      if (rows.length < PRUNE_CHUNK) return;
    }
  }
}
