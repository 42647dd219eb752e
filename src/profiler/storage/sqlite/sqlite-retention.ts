import type { RetentionPolicy } from '../profile-record.js';
import { clampTime } from '../search-helpers.js';
import { PruneWorker } from './prune-worker.js';
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

/** Target duration of one prune transaction, in milliseconds. */
const PRUNE_SLICE_MS = 8;
/** Target duration of one prune transaction in the worker, in milliseconds (the store's writes wait that long at most). */
const PRUNE_WORKER_SLICE_MS = 1500;
/** Most profiles deleted in one prune transaction. */
const PRUNE_CHUNK_MAX = 100_000;
/**
 * Most profiles deleted in one transaction of the prune worker. Each chunk writes back every page of the IP and URL
 * indexes it touched, nearly all of them, so fewer, larger chunks write less and finish sooner (BENCHMARKS.md); the
 * store's writes wait for a chunk, and its tokens come back as one string, split a slice at a time (appendLines).
 */
const PRUNE_WORKER_CHUNK_MAX = 50_000;
/** Characters of a prune chunk's tokens split at a time: about 5,000 tokens of six characters. */
const TOKEN_SLICE_CHARS = 35_000;

/**
 * Removes profiles: the oldest beyond the retention policy, a chunk per transaction, each a few set-wise statements
 * (PRUNE_CHUNK_SQL), then the token entries left behind (sweepTokens); or every profile (clear). A file's chunks
 * run in a child process (PruneWorker), the store's writes waiting for each (idle()); an in-memory store's run on
 * the event loop.
 */
export class SqliteRetention {
  /** Prunes a file's profiles in a child process (an in-memory store prunes on the event loop); made by the first prune. */
  private worker?: PruneWorker;
  /** The prune chunk under way in the worker: writes wait for it (one writer at a time, never a busy wait). */
  private pruning: Promise<unknown> | null = null;
  /** Rows deleted per worker chunk, adapted to keep each at about PRUNE_WORKER_SLICE_MS. */
  private workerChunk = PRUNE_WORKER_CHUNK_MAX;
  /** Rows deleted per prune transaction on the event loop (in memory), adapted to keep each at about PRUNE_SLICE_MS. */
  private pruneChunk = 100;

  constructor(
    private readonly connection: SqliteConnection,
    private readonly textParts: SqliteTextParts,
  ) {}

  /**
   * Deletes the oldest profiles. A file's chunks take about PRUNE_WORKER_SLICE_MS each in the worker, an in-memory
   * store's about PRUNE_SLICE_MS each with the event loop free between them: either way pruning a hundred thousand
   * profiles never blocks requests.
   */
  async prune(policy: RetentionPolicy): Promise<string[]> {
    this.connection.assertOpen();
    const removed: string[] = [];
    if (policy.maxAgeMs > 0) {
      const below = BigInt(clampTime(policy.now - policy.maxAgeMs)) << SEQ_BITS;
      while (await this.pruneNext(below - 1n, 0, removed)) await yieldToEventLoop();
    }
    if (policy.maxProfiles > 0) {
      while (await this.pruneNext(MAX_ID, policy.maxProfiles, removed)) await yieldToEventLoop();
    }
    if (removed.length > 0) {
      await this.sweepTokens(removed.length, policy.maxProfiles);
      await this.idle();
      await this.textParts.dropEmptyDays();
    }
    return removed;
  }

  async clear(): Promise<number> {
    await this.idle();
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

  /** Resolves when no prune chunk is under way in the worker. */
  async idle(): Promise<void> {
    while (this.pruning) await this.pruning.catch(() => undefined);
  }

  /** Waits for the chunk under way and stops the worker (the store is closing). */
  async close(): Promise<void> {
    await this.pruning?.catch(() => undefined);
    await this.worker?.stop();
    this.worker = undefined;
  }

  /** The worker of a file's store (none in memory). */
  private get pruner(): PruneWorker | undefined {
    if (this.connection.memory) return undefined;
    this.worker ??= new PruneWorker(this.connection.file, {
      setup: PRUNE_SETUP_SQL,
      take: PRUNE_TAKE_SQL,
      chunk: PRUNE_CHUNK_SQL,
      sweep: TOKEN_SWEEP_SQL,
    });
    return this.worker;
  }

  /**
   * Counts the `left` profile_token entries a prune left behind, and sweeps them once they are TOKEN_SWEEP_MIN or a
   * tenth of the profiles kept (`kept`, 0: no limit): a pass over the table in token ranges (in the worker for a file), each range's pages written
   * once, where deleting each entry with its profile would write every page of the table in every prune chunk.
   * Counted once per prune, not in each chunk, where counting costs a good part of the chunk; should the process end
   * between the chunks and the count, those entries are merely swept later.
   */
  private async sweepTokens(left: number, kept: number): Promise<void> {
    await this.idle();
    const stale = this.connection
      .statement('UPDATE profile_token_stale SET n = n + ? RETURNING n')
      .pluck()
      .get(left) as number;
    if (stale < Math.max(TOKEN_SWEEP_MIN, kept / 10)) return;
    const pruner = this.pruner;
    for (const [i, low] of TOKEN_SWEEP_BOUNDS.entries()) {
      const high = TOKEN_SWEEP_BOUNDS[i + 1] ?? null;
      if (pruner) {
        await this.inWorker(() => pruner.sweep(low, high));
      } else {
        this.connection.db.transaction(() => {
          if (high !== null) return this.connection.statement(TOKEN_SWEEP_SQL.range).run(low, high);
          this.connection.statement(TOKEN_SWEEP_SQL.from).run(low);
          this.connection.statement(TOKEN_SWEEP_SQL.done).run();
        })();
        await yieldToEventLoop();
      }
    }
  }

  /** The worker's task, once no other is under way; the store's writes wait for it meanwhile. */
  private async inWorker<T>(start: () => Promise<T>): Promise<T> {
    await this.idle();
    const task = start();
    this.pruning = task;
    try {
      return await task;
    } finally {
      if (this.pruning === task) this.pruning = null;
    }
  }

  /**
   * Deletes one chunk (in the worker for a file): the oldest profiles up to key `maxId` but the newest `keep` (0:
   * none kept); false when there was none.
   */
  private async pruneNext(maxId: bigint, keep: number, removed: string[]): Promise<boolean> {
    const pruner = this.pruner;
    if (!pruner) return this.pruneSlice(maxId, keep, removed);
    const { tokens, count, ms } = await this.inWorker(() => pruner.chunk(maxId, keep, this.workerChunk));
    if (count > 0 && ms > 0) {
      this.workerChunk = Math.max(
        100,
        Math.min(
          2 * this.workerChunk,
          PRUNE_WORKER_CHUNK_MAX,
          Math.round((this.workerChunk * PRUNE_WORKER_SLICE_MS) / ms),
        ),
      );
    }
    // The store's writes need not wait for the tokens' split.
    await appendLines(tokens, removed);
    return count > 0;
  }

  /** pruneNext() on the event loop. */
  private pruneSlice(maxId: bigint, keep: number, removed: string[]): boolean {
    const started = performance.now();
    const done = this.connection.db.transaction(() => {
      this.connection.statement('DELETE FROM temp.profile_gone').run();
      const taken = this.connection.statement(PRUNE_TAKE_SQL).run({ maxId, keep, atMost: this.pruneChunk }).changes;
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
}

/**
 * Appends the lines of `text` to `list` (none for ''), about TOKEN_SLICE_CHARS at a time with the event loop free between:
 * a prune chunk's tens of thousands of tokens are not split and pushed in one go.
 */
export async function appendLines(text: string, list: string[]): Promise<void> {
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', Math.min(text.length, at + TOKEN_SLICE_CHARS));
    if (end === -1) end = text.length;
    for (const line of text.slice(at, end).split('\n')) list.push(line);
    at = end + 1;
    if (at < text.length) await yieldToEventLoop();
  }
}
