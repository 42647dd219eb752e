import type { TokenStore } from './token-store.js';
import type { TokenRegistry } from './token-registry.js';

/** Tokens reserved at once at first; the batch doubles (up to MAX_BATCH) whenever the pool ran dry. */
const FIRST_BATCH = 256;
const MAX_BATCH = 8192;
/**
 * A reserved token unused for this long is given back rather than sent (the store removes reservations
 * abandoned for a day: a token is always written long before its reservation could be taken from it).
 */
export const RESERVATION_MAX_AGE_MS = 60 * 60 * 1000;

export interface TokenReservationsOptions {
  /** First batch size (default 256). */
  batchSize?: number;
  /** Default RESERVATION_MAX_AGE_MS; batches are renewed at half of it. */
  maxAgeMs?: number;
  /** First delay before reserving again after the store failed (doubles, up to 30 s). Default 1,000. */
  retryDelayMs?: number;
  /** Store failures, tokens sent unreserved: reported here, never thrown. */
  onError?: (error: unknown) => void;
  /** A monotonic clock in milliseconds (tests). */
  now?: () => number;
}

interface Batch {
  /** When the reservation was sent (before the store answered). */
  at: number;
  tokens: string[];
}

/**
 * Tokens of a shared store, reserved in the store before they are sent. The request path must get a token
 * synchronously (the X-Debug-Token header goes out before the profile is written, and a token once sent cannot
 * be changed), and a query per request is too dear; so tokens are reserved ahead, in batches drawn at random from
 * the TokenRegistry (uniformly: nothing about an instance shows in its tokens), and `next()` takes one
 * from the pool in O(1). The store refuses a reservation of a token stored or reserved by another instance and
 * lets only the reserving instance write it, so a token sent from the pool is never lost to a collision.
 *
 * The pool is refilled in the background when half of a batch is left; when a burst empties it, `next()` falls
 * back to an unreserved registry token (counted and reported: that profile is lost if another instance holds the
 * token, about (instances × pool) / 16.7 million), and the next batches are twice as big. Batches are renewed
 * before they are RESERVATION_MAX_AGE_MS old; close() gives the unused tokens back.
 */
export class TokenReservations {
  private batches: Batch[] = [];
  private available = 0;
  private batchSize: number;
  private refilling: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  private retryAt = 0;
  private unreservedCount = 0;
  /** Unreserved tokens are reported once per run of them, not once per request. */
  private dry = false;
  private closed = false;
  private readonly maxAgeMs: number;
  private readonly retryDelayMs: number;
  private readonly onError: (error: unknown) => void;
  private readonly now: () => number;

  constructor(
    private readonly store: TokenStore,
    private readonly tokens: TokenRegistry,
    options: TokenReservationsOptions = {},
  ) {
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? FIRST_BATCH));
    this.maxAgeMs = options.maxAgeMs ?? RESERVATION_MAX_AGE_MS;
    this.retryDelayMs = options.retryDelayMs ?? 1000;
    this.onError = options.onError ?? (() => undefined);
    this.now = options.now ?? (() => performance.now());
  }

  /** Reserved tokens waiting to be sent. */
  get size(): number {
    return this.available;
  }

  /** Tokens sent without a reservation (the pool was empty). */
  get unreserved(): number {
    return this.unreservedCount;
  }

  /** Reserves the first batch (awaited at start, so the first requests have reserved tokens), then renews. */
  async start(): Promise<void> {
    await this.refill();
    if (!this.timer) {
      this.timer = setInterval(() => void this.maintain(), Math.max(1, this.maxAgeMs / 4));
      this.timer.unref();
    }
  }

  /** A reserved token, now the caller's; synchronous. Falls back to an unreserved one when none is left. */
  next(): string {
    this.dropExpired(this.maxAgeMs);
    const batch = this.batches[0];
    if (batch) {
      const token = batch.tokens.pop()!;
      if (batch.tokens.length === 0) this.batches.shift();
      this.available--;
      this.dry = false;
      if (this.available < this.batchSize / 2) void this.refillInBackground();
      return token;
    }
    this.unreservedCount++;
    this.batchSize = Math.min(MAX_BATCH, this.batchSize * 2);
    void this.refillInBackground();
    if (!this.dry) {
      this.dry = true;
      this.report(
        new Error(
          `No reserved profile token was left: tokens are sent unreserved until the store answers (${this.unreservedCount} so far); reserving ${this.batchSize} at a time now.`,
        ),
      );
    }
    return this.tokens.next();
  }

  /** Renews batches past half their age (and refills). */
  maintain(): Promise<void> {
    this.dropExpired(this.maxAgeMs / 2);
    return this.available < this.batchSize / 2 ? this.refillInBackground() : Promise.resolve();
  }

  /** Stops renewing and gives every unused reservation back. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.refilling;
    const unused = this.batches.flatMap((b) => b.tokens);
    this.batches = [];
    this.available = 0;
    await this.giveBack(unused);
  }

  // --- internals ---------------------------------------------------------------------------------------------

  private dropExpired(age: number): void {
    const now = this.now();
    let expired: string[] = [];
    while (this.batches.length > 0 && now - this.batches[0].at >= age) {
      const batch = this.batches.shift()!;
      this.available -= batch.tokens.length;
      expired = expired.concat(batch.tokens);
    }
    if (expired.length > 0) void this.giveBack(expired);
  }

  private refillInBackground(): Promise<void> {
    return this.refill().catch((error: unknown) => this.report(error));
  }

  /** One reservation at a time; waits after failures (backoff). */
  private refill(): Promise<void> {
    if (this.closed || this.now() < this.retryAt) return Promise.resolve();
    this.refilling ??= this.reserve().finally(() => {
      this.refilling = null;
    });
    return this.refilling;
  }

  private async reserve(): Promise<void> {
    const candidates: string[] = [];
    try {
      for (let i = 0; i < this.batchSize; i++) candidates.push(this.tokens.next());
      const at = this.now();
      const reserved = await this.store.reserveTokens(candidates);
      // The refused ones are somebody's (stored, or reserved elsewhere): they stay taken in the registry.
      this.failures = 0;
      this.retryAt = 0;
      if (this.closed) {
        await this.giveBack(reserved);
        return;
      }
      if (reserved.length > 0) {
        this.batches.push({ at, tokens: reserved });
        this.available += reserved.length;
      }
    } catch (error) {
      // Not reserved (or not known to be): drawable again; a reservation that did commit is abandoned.
      this.tokens.release(candidates);
      this.failures++;
      this.retryAt = this.now() + Math.min(30_000, this.retryDelayMs * 2 ** (this.failures - 1));
      throw error;
    }
  }

  private async giveBack(tokens: string[]): Promise<void> {
    if (tokens.length === 0) return;
    this.tokens.release(tokens);
    try {
      await this.store.releaseTokens(tokens);
    } catch (error) {
      // Abandoned: the store removes them after a day.
      this.report(error);
    }
  }

  private report(error: unknown): void {
    try {
      this.onError(error);
    } catch {
      // The reporter failing must not break the pool.
    }
  }
}
