import type { ProfileRecord } from './profile-record.js';
import { DuplicateTokenError, type ProfilerStorage } from './profiler-storage.js';

export interface ProfileWriteBufferOptions {
  /** Profiles per `storage.write`; a batch is written as soon as this many wait. */
  batchSize: number;
  /** A profile waits at most this long (milliseconds) before its batch is written. */
  flushIntervalMs: number;
  /** At most this many profiles wait; beyond it the oldest are dropped (and counted). */
  bufferLimit: number;
  /** Store failures, dropped duplicates: reported here, never thrown to the caller. */
  onError?: (error: unknown) => void;
  /** First delay before retrying after the store failed (milliseconds; doubles each time). Default 500. */
  retryDelayMs?: number;
  /** Longest delay between retries (milliseconds). Default 30,000. */
  maxRetryDelayMs?: number;
  /**
   * Whether a write's error refuses the profiles themselves (a constraint, a value the store cannot hold), so
   * that retrying cannot help, rather than saying the store is unavailable. Default: never (retry everything).
   */
  isProfileError?: (error: unknown) => boolean;
}

/** A profile the store refused on its own while it accepted the others: dropped (counted), never retried. */
export class UnwritableProfileError extends Error {
  constructor(
    readonly token: string,
    cause: unknown,
  ) {
    super(
      `Profile ${token} was dropped: the store refuses it (${cause instanceof Error ? cause.message : String(cause)})`,
      { cause },
    );
    this.name = 'UnwritableProfileError';
  }
}

interface Entry {
  record: ProfileRecord;
  /** Order of addition, for flush(). */
  seq: number;
  /** Date.now() when added: written at most flushIntervalMs later. */
  addedAt: number;
  /**
   * A write of it failed in a way that leaves its outcome unknown (a connection lost after COMMIT reached the
   * server). Its token is this process's alone (TokenRegistry, and reservations in a shared store), so if a
   * retry finds the token stored, that earlier write did commit: the profile is written, not a duplicate.
   */
  uncertain?: boolean;
  /** Added as background: flushForeground() does not write it unless a foreground profile waits behind it. */
  background: boolean;
}

/**
 * Where finished profiles wait for the store: `add()` is synchronous and never fails (the request path calls it
 * at kernel.terminate); profiles are written in batches, one write at a time, oldest first, at most
 * `flushIntervalMs` after they were added or as soon as `batchSize` wait, and `get()` returns them meanwhile.
 *
 * A failing store gets the batch back at the front of the queue, retried with exponential backoff; beyond
 * `bufferLimit` the oldest waiting profiles are dropped and counted (`dropped`), as are duplicate tokens. After a
 * batch failed, its profiles are retried one at a time (at once when the store blames a profile, `isProfileError`),
 * so that one bad profile cannot hold up the others: one the store refuses alone with such an error is dropped (an
 * UnwritableProfileError). Any other error is the store failing, and drops nothing however often it comes.
 */
export class ProfileWriteBuffer {
  private queue: Entry[] = [];
  private inFlight: Entry[] = [];
  /** Profiles of seq ≤ this are written one per batch (their batch failed: one of them may be bad). */
  private isolateThrough = 0;
  private readonly byToken = new Map<string, ProfileRecord>();
  private lastSeq = 0;
  private droppedCount = 0;
  private failures = 0;
  private retryAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private timerDue = 0;
  /** The drains, one after the other: never two writes at once, so the order is kept. */
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly bufferLimit: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly onError: (error: unknown) => void;
  private readonly isProfileError: (error: unknown) => boolean;

  constructor(
    private readonly storage: ProfilerStorage,
    options: ProfileWriteBufferOptions,
  ) {
    this.batchSize = Math.max(1, Math.floor(options.batchSize));
    this.flushIntervalMs = Math.max(0, options.flushIntervalMs);
    this.bufferLimit = Math.max(1, Math.floor(options.bufferLimit));
    this.retryDelayMs = options.retryDelayMs ?? 500;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
    this.onError = options.onError ?? (() => undefined);
    this.isProfileError = options.isProfileError ?? (() => false);
  }

  /** Profiles waiting to be written (the batch being written included). */
  get pending(): number {
    return this.queue.length + this.inFlight.length;
  }

  /** Profiles dropped so far: the buffer was full, their token was already stored, or they came after close(). */
  get dropped(): number {
    return this.droppedCount;
  }

  /**
   * Queues a profile for the store. Synchronous; never throws. A `background` profile is written with its batch
   * like any other, but flushForeground() does not wait for it.
   */
  add(record: ProfileRecord, background = false): void {
    try {
      if (this.closed) {
        this.droppedCount++;
        return;
      }
      this.queue.push({ record, seq: ++this.lastSeq, addedAt: Date.now(), background });
      this.byToken.set(record.token, record);
      this.enforceLimit();
      this.schedule();
    } catch (error) {
      this.report(error);
    }
  }

  /** Whether add() still takes profiles (close() and closeNow() end that). */
  get open(): boolean {
    return !this.closed;
  }

  /** A profile still waiting for the store, by token. */
  get(token: string): ProfileRecord | undefined {
    return this.byToken.get(token);
  }

  /**
   * Resolves once every profile added before the call has been written, dropped, or has failed to be written
   * (it then stays queued for the next retry). Writes now, even while waiting to retry. Never rejects.
   */
  flush(): Promise<void> {
    return this.drainAfterOthers(this.lastSeq, false);
  }

  /**
   * flush(), through the newest profile not added as background only: those before it are written too (the order
   * is kept), the background ones after it keep waiting for their batch. Resolves at once when only background
   * profiles wait.
   */
  flushForeground(): Promise<void> {
    let target = 0;
    for (let i = this.queue.length - 1; i >= 0 && target === 0; i--)
      if (!this.queue[i].background) target = this.queue[i].seq;
    for (const entry of this.inFlight) if (!entry.background && entry.seq > target) target = entry.seq;
    return target === 0 ? Promise.resolve() : this.drainAfterOthers(target, false);
  }

  /**
   * Writes everything still waiting, retrying a failing store (backoff) for at most `timeoutMs`, then stops the
   * timer; later profiles are dropped. Shutting down must neither lose profiles to one failed attempt nor wait
   * for ever on a store that is gone: what is still waiting at the deadline is counted as dropped and reported.
   * Resolves with that number; never rejects.
   */
  async close(timeoutMs = 0): Promise<number> {
    this.closed = true;
    this.clearTimer();
    const deadline = Date.now() + Math.max(0, timeoutMs);
    let delay = Math.min(this.retryDelayMs, 250);
    for (;;) {
      // A write that hangs (a server that accepts but never answers) must not hold the shutdown either.
      await untilDeadline(this.flush(), deadline);
      const left = deadline - Date.now();
      if (this.pending === 0 || left <= 0) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(delay, left)));
      delay = Math.min(delay * 2, this.maxRetryDelayMs);
    }
    this.clearTimer();
    const lost = this.pending;
    if (lost > 0) {
      this.droppedCount += lost;
      this.report(new Error(`${lost} profile(s) could not be written before the profiler closed: they are lost.`));
    }
    return lost;
  }

  /**
   * close() for a crashing process, which exits right after: everything waiting is written before this returns,
   * with the store's writeSync(), the batch whose write is under way too (that write will never end), and later
   * profiles are dropped. A profile the store refuses for itself is dropped as by a write; the first failure of the
   * store itself ends it: no retry, the process is going. Returns how many were lost (counted as dropped and
   * reported), or null, doing nothing, when the store cannot write synchronously: close() with a bounded wait then.
   */
  closeNow(): number | null {
    if (!this.storage.writesSynchronously) return null;
    this.closed = true;
    this.clearTimer();
    // The batch under way may have been committed just now, its answer not yet seen: a duplicate then is written.
    for (const entry of this.inFlight) entry.uncertain = true;
    const waiting = [...this.inFlight, ...this.queue];
    this.inFlight = [];
    this.queue = [];
    let lost = 0;
    for (let i = 0; i < waiting.length && lost === 0; i += this.batchSize) {
      const left = this.writeNow(waiting.slice(i, i + this.batchSize));
      if (left > 0) lost = left + Math.max(0, waiting.length - i - this.batchSize);
    }
    this.forget(waiting);
    if (lost > 0) {
      this.droppedCount += lost;
      this.report(new Error(`${lost} profile(s) could not be written before the profiler closed: they are lost.`));
    }
    return lost;
  }

  // --- internals ---------------------------------------------------------------------------------------------

  /**
   * writeBatch() without the event loop; returns how many of the batch are left unwritten because the store
   * failed (0: each written or dropped). Duplicates and profiles the store refuses alone are dropped as
   * writeBatch() drops them.
   */
  private writeNow(batch: Entry[]): number {
    try {
      this.storage.writeSync(batch.map((entry) => entry.record));
      this.forget(batch);
      return 0;
    } catch (error) {
      const rest = this.dropDuplicates(error, batch);
      if (rest) return rest.length === 0 ? 0 : this.writeNow(rest);
      if (this.isProfileError(error)) {
        if (batch.length === 1) {
          this.droppedCount++;
          this.forget(batch);
          this.report(new UnwritableProfileError(batch[0].record.token, error));
          return 0;
        }
        // One of them is bad: each alone, until the store itself fails.
        for (let i = 0; i < batch.length; i++) if (this.writeNow([batch[i]]) > 0) return batch.length - i;
        return 0;
      }
      this.report(error);
      return batch.length;
    }
  }

  private drainAfterOthers(target: number, fullBatchesOnly: boolean): Promise<void> {
    const run = this.chain.then(() => this.drain(target, fullBatchesOnly));
    this.chain = run;
    return run;
  }

  /**
   * Writes batches, oldest first, until no profile of seq ≤ target waits (or, for `fullBatchesOnly`, fewer than
   * batchSize wait: the rest keep waiting for their interval), or a write fails.
   */
  private async drain(target: number, fullBatchesOnly: boolean): Promise<void> {
    try {
      while (
        this.queue.length > 0 &&
        this.queue[0].seq <= target &&
        (!fullBatchesOnly || this.queue.length >= this.batchSize)
      ) {
        if (!(await this.writeBatch())) return;
      }
    } catch (error) {
      this.report(error);
    } finally {
      this.schedule();
    }
  }

  /**
   * A write the store refused for tokens it already holds: those entries are dropped and counted (but those an
   * earlier, unacknowledged write of ours did store, which count as written); returns the rest of the batch, still to
   * write. Null for any other failure.
   */
  private dropDuplicates(error: unknown, batch: Entry[]): Entry[] | null {
    if (!(error instanceof DuplicateTokenError)) return null;
    const duplicates = new Set(error.tokens);
    const refused = batch.filter((entry) => duplicates.has(entry.record.token));
    if (refused.length === 0) return null;
    const lost = refused.filter((entry) => !entry.uncertain);
    this.droppedCount += lost.length;
    this.forget(refused);
    if (lost.length > 0) this.report(error);
    return batch.filter((entry) => !duplicates.has(entry.record.token));
  }

  /** One storage.write; false when it failed (the batch is back at the front of the queue). */
  private async writeBatch(): Promise<boolean> {
    const batch = this.queue.splice(0, this.queue[0].seq <= this.isolateThrough ? 1 : this.batchSize);
    this.inFlight = batch;
    try {
      await this.storage.write(batch.map((entry) => entry.record));
      this.inFlight = [];
      this.forget(batch);
      this.failures = 0;
      this.retryAt = 0;
      return true;
    } catch (error) {
      this.inFlight = [];
      const rest = this.dropDuplicates(error, batch);
      if (rest) {
        // The others were not written either (a write is atomic): they go back first.
        this.queue.unshift(...rest);
        return true;
      }
      for (const entry of batch) entry.uncertain = true;
      const profileAtFault = this.isProfileError(error);
      if (profileAtFault && batch.length === 1) {
        this.droppedCount++;
        this.forget(batch);
        this.report(new UnwritableProfileError(batch[0].record.token, error));
        return true;
      }
      this.queue.unshift(...batch);
      if (batch.length > 1) this.isolateThrough = Math.max(this.isolateThrough, batch[batch.length - 1].seq);
      // The store works, one of these profiles does not: find it now, one by one.
      if (profileAtFault) return true;
      this.failures++;
      this.retryAt = Date.now() + Math.min(this.maxRetryDelayMs, this.retryDelayMs * 2 ** (this.failures - 1));
      this.enforceLimit();
      this.report(error);
      return false;
    }
  }

  private forget(entries: Entry[]): void {
    for (const { record } of entries) {
      if (this.byToken.get(record.token) === record) this.byToken.delete(record.token);
    }
  }

  /** Drops the oldest waiting profiles (never the batch being written) while more than bufferLimit wait. */
  private enforceLimit(): void {
    const excess = Math.min(this.pending - this.bufferLimit, this.queue.length);
    if (excess <= 0) return;
    const dropped = this.queue.splice(0, excess);
    this.droppedCount += dropped.length;
    this.forget(dropped);
  }

  /**
   * Arms the timer for the next drain: now when a batch is full (full batches only), when the oldest waiting
   * profile has waited flushIntervalMs (everything), or at the next retry (everything).
   */
  private schedule(): void {
    if (this.closed || this.queue.length === 0) {
      this.clearTimer();
      return;
    }
    const now = Date.now();
    const retrying = this.retryAt > now;
    const full = !retrying && this.queue.length >= this.batchSize;
    const due = retrying ? this.retryAt : full ? now : this.queue[0].addedAt + this.flushIntervalMs;
    // Keep an earlier timer, except while waiting to retry (nothing is written before the retry is due).
    if (this.timer && (retrying ? this.timerDue === due : this.timerDue <= due)) return;
    this.clearTimer();
    this.timerDue = due;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        if (this.retryAt > Date.now()) this.schedule();
        else
          void this.drainAfterOthers(
            this.lastSeq,
            this.queue.length > 0 && this.queue[0].addedAt + this.flushIntervalMs > Date.now(),
          );
      },
      Math.max(retrying ? 1 : 0, due - now),
    );
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private report(error: unknown): void {
    try {
      this.onError(error);
    } catch {
      // The reporter failing must not break the buffer.
    }
  }
}

/** Waits for `work`, or until `deadline` (Date.now() milliseconds), whichever comes first. */
function untilDeadline(work: Promise<unknown>, deadline: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
