import type { ProfileRecord } from './profile-record.js';
import { DuplicateTokenError, type ProfilerStorage } from './profiler-storage.js';

export interface ProfileWriteBufferOptions {
  batchSize: number;
  flushIntervalMs: number;
  /** Beyond this many waiting, the oldest are dropped (and counted). */
  bufferLimit: number;
  /** Store failures and dropped profiles are reported here, never thrown. */
  onError?: (error: unknown) => void;
  /** First retry delay after a store failure (milliseconds, doubling up to maxRetryDelayMs). */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Whether an error blames the profiles (retrying cannot help) rather than the store. Default: never. */
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
  seq: number;
  addedAt: number;
  /** A failed write of it may have committed; its token being ours alone, finding it stored means it was written. */
  uncertain?: boolean;
  background: boolean;
}

/**
 * Where finished profiles wait for the store: `add()` is synchronous and never throws (it runs on the request path).
 * A failed batch is retried with backoff, then one profile at a time, so one bad profile cannot hold up the others:
 * only a profile the store refuses alone (`isProfileError`) is dropped.
 */
export class ProfileWriteBuffer {
  private queue: Entry[] = [];
  private inFlight: Entry[] = [];
  /** Profiles of seq ≤ this are written one per batch: their batch failed, one of them may be bad. */
  private isolateThrough = 0;
  private readonly byToken = new Map<string, ProfileRecord>();
  private lastSeq = 0;
  private droppedCount = 0;
  private failures = 0;
  private retryAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private timerDue = 0;
  /** Drains run one after the other: never two writes at once. */
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

  get pending(): number {
    return this.queue.length + this.inFlight.length;
  }

  /** Dropped so far: buffer full, token already stored, or added after close(). */
  get dropped(): number {
    return this.droppedCount;
  }

  /** A `background` profile is written with its batch, but flushForeground() does not wait for it. */
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

  get open(): boolean {
    return !this.closed;
  }

  get(token: string): ProfileRecord | undefined {
    return this.byToken.get(token);
  }

  /** Writes everything added so far now, even while waiting to retry; a failure leaves it queued. Never rejects. */
  flush(): Promise<void> {
    return this.drainAfterOthers(this.lastSeq, false);
  }

  /** flush() up to the newest foreground profile; background ones after it keep waiting. */
  flushForeground(): Promise<void> {
    let target = 0;
    for (let i = this.queue.length - 1; i >= 0 && target === 0; i--)
      if (!this.queue[i].background) target = this.queue[i].seq;
    for (const entry of this.inFlight) if (!entry.background && entry.seq > target) target = entry.seq;
    return target === 0 ? Promise.resolve() : this.drainAfterOthers(target, false);
  }

  /** Retries for at most `timeoutMs`: neither lose profiles to one failed attempt nor wait for a store that is gone. */
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
   * close() for a crashing process: writeSync() everything, the batch under way too (its write will never end); no
   * retry. Null when the store cannot write synchronously.
   */
  closeNow(): number | null {
    if (!this.storage.writesSynchronously) return null;
    this.closed = true;
    this.clearTimer();
    // The batch under way may have committed unseen: a duplicate of it then counts as written.
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

  /** writeBatch() without the event loop; returns how many are left unwritten because the store failed. */
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

  /** Writes batches until none of seq ≤ target waits (`fullBatchesOnly`: until a batch is not full) or one fails. */
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

  /** For a DuplicateTokenError: drops the refused entries (uncertain ones count as written) and returns the rest. */
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

  /** One storage.write; false when the store failed (the batch is back at the front). */
  private async writeBatch(): Promise<boolean> {
    const size = this.queue[0].seq <= this.isolateThrough ? 1 : Math.min(this.batchSize, this.storage.batchLimit);
    const batch = this.queue.splice(0, size);
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
        // A write is atomic: the others were not written either.
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
      record.release?.();
    }
  }

  /** Drops the oldest waiting profiles (never the batch being written) beyond bufferLimit. */
  private enforceLimit(): void {
    const excess = Math.min(this.pending - this.bufferLimit, this.queue.length);
    if (excess <= 0) return;
    const dropped = this.queue.splice(0, excess);
    this.droppedCount += dropped.length;
    this.forget(dropped);
  }

  /** Arms the next drain: now for a full batch, at the oldest profile's interval, or at the next retry. */
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

function untilDeadline(work: Promise<unknown>, deadline: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
