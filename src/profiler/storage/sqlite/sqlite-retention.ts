import type { RetentionPolicy } from '../profile-record.js';
import { clampTime } from '../search-helpers.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { MAX_ID, SEQ_BITS, yieldToEventLoop } from './sqlite-keys.js';
import type { SqliteTextParts } from './sqlite-text-parts.js';
import {
  PRUNE_CHUNK_SQL,
  PRUNE_SETUP_SQL,
  PRUNE_TAKE_SQL,
  TOKEN_SWEEP_BOUNDS,
  TOKEN_SWEEP_MIN,
  TOKEN_SWEEP_SQL,
} from './sqlite-prune-sql.js';

/** Target duration of one prune transaction, in milliseconds: the event loop is never held longer than about this. */
const PRUNE_SLICE_MS = 5;
/** Most profiles deleted in one prune transaction. */
const PRUNE_CHUNK_MAX = 10_000;

/**
 * Removes profiles: the oldest beyond the retention policy, a chunk per transaction on the event loop, each a few
 * set-wise statements (PRUNE_CHUNK_SQL) sized to take about PRUNE_SLICE_MS, then the token entries left behind
 * (sweepTokens); or every profile (clear). Every chunk is a range of the oldest keys: by age, up to the policy's
 * key; by count, as many as the stored count exceeds the limit when the prune starts.
 */
export class SqliteRetention {
  /** Rows deleted per prune transaction, adapted to keep each at about PRUNE_SLICE_MS. */
  private pruneChunk = 100;

  constructor(
    private readonly connection: SqliteConnection,
    private readonly textParts: SqliteTextParts,
  ) {}

  async prune(policy: RetentionPolicy): Promise<string[]> {
    this.connection.assertOpen();
    this.connection.db.exec(PRUNE_SETUP_SQL);
    const removed: string[] = [];
    if (policy.maxAgeMs > 0) {
      const last = (BigInt(clampTime(policy.now - policy.maxAgeMs)) << SEQ_BITS) - 1n;
      while (this.pruneSlice(last, Infinity, removed)) await yieldToEventLoop();
    }
    if (policy.maxProfiles > 0) {
      // The stored count, read once: profiles written meanwhile are newer and stay.
      let excess = this.stored() - policy.maxProfiles;
      while (excess > 0) {
        const before = removed.length;
        if (!this.pruneSlice(MAX_ID, excess, removed)) break;
        excess -= removed.length - before;
        await yieldToEventLoop();
      }
    }
    if (removed.length > 0 && this.connection.isOpen) {
      await this.sweepTokens(removed.length, policy.maxProfiles);
      await this.textParts.dropEmptyDays();
    }
    return removed;
  }

  async clear(): Promise<number> {
    const db = this.connection.db;
    return db.transaction(() => {
      const count = this.connection.statement('SELECT count(*) FROM profile').pluck().get() as number;
      db.exec(`
        DELETE FROM profile;
        DELETE FROM profile_data;
        INSERT INTO profile_url_trigram (profile_url_trigram) VALUES ('delete-all');
        DELETE FROM profile_url;
        DELETE FROM profile_token;
        UPDATE profile_token_stale SET n = 0;
        UPDATE profile_write SET stored = 0;
        UPDATE profile_text_floor SET time = -1;
      `);
      this.textParts.dropAll();
      return count;
    })();
  }

  private stored(): number {
    return this.connection.statement('SELECT stored FROM profile_write').pluck().get() as number;
  }

  /**
   * Deletes one chunk of the oldest profiles with a key up to `last`, at most `atMost`; false when there was none
   * (or the store has closed between two chunks).
   */
  private pruneSlice(last: bigint, atMost: number, removed: string[]): boolean {
    if (!this.connection.isOpen) return false;
    const started = performance.now();
    const done = this.connection.db.transaction(() => {
      this.connection.statement('DELETE FROM temp.profile_gone').run();
      const taken = this.connection
        .statement(PRUNE_TAKE_SQL)
        .run({ last, atMost: Math.min(atMost, this.pruneChunk) }).changes;
      if (taken === 0) return false;
      for (const sql of PRUNE_CHUNK_SQL) this.connection.statement(sql).run();
      for (const token of this.connection
        .statement('SELECT token FROM temp.profile_gone ORDER BY id')
        .pluck()
        .iterate() as IterableIterator<string>)
        removed.push(token);
      return true;
    })();
    const elapsed = performance.now() - started;
    if (done && elapsed > 0) {
      // At most doubling: one quick slice (pages already cached) must not make the next one long.
      this.pruneChunk = Math.max(
        20,
        Math.min(2 * this.pruneChunk, PRUNE_CHUNK_MAX, Math.round((this.pruneChunk * PRUNE_SLICE_MS) / elapsed)),
      );
    }
    return done;
  }

  /**
   * Counts the `left` profile_token entries a prune left behind, and sweeps them once they are TOKEN_SWEEP_MIN or a
   * tenth of the profiles kept (`kept`, 0: no limit): a pass over the table in token ranges, one transaction each,
   * where deleting each entry with its profile would write nearly every page of the table in every prune chunk.
   */
  private async sweepTokens(left: number, kept: number): Promise<void> {
    const stale = this.connection
      .statement('UPDATE profile_token_stale SET n = n + ? RETURNING n')
      .pluck()
      .get(left) as number;
    if (stale < Math.max(TOKEN_SWEEP_MIN, kept / 10)) return;
    for (const [i, low] of TOKEN_SWEEP_BOUNDS.entries()) {
      if (!this.connection.isOpen) return;
      const high = TOKEN_SWEEP_BOUNDS[i + 1] ?? null;
      this.connection.db.transaction(() => {
        if (high !== null) return this.connection.statement(TOKEN_SWEEP_SQL.range).run(low, high);
        this.connection.statement(TOKEN_SWEEP_SQL.from).run(low);
        this.connection.statement(TOKEN_SWEEP_SQL.done).run();
      })();
      await yieldToEventLoop();
    }
  }
}
