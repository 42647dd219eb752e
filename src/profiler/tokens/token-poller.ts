import { TOKENS_SINCE_PAGE, type TokenStore } from './token-store.js';
import type { TokenRegistry } from './token-registry.js';

/** How often an instance of a shared store learns the tokens the other instances wrote (milliseconds). */
export const TOKEN_POLL_INTERVAL_MS = 3000;
/** Pages read by one poll at most (the rest waits for the next): a burst never makes one poll long. */
const MAX_PAGES_PER_POLL = 20;
/** Tokens per page when seeding at start (one pass over the whole store). */
const SEED_PAGE = 20_000;

export interface TokenPollerOptions {
  /** Default TOKEN_POLL_INTERVAL_MS. */
  intervalMs?: number;
  /** Tokens per `tokensSince` call. Default TOKENS_SINCE_PAGE. */
  pageSize?: number;
  /** Failures of the periodic polls: reported here, never thrown (the next poll retries). */
  onError?: (error: unknown) => void;
}

/**
 * Keeps the TokenRegistry of an instance in step with a shared store: `seed()` marks every stored token at start
 * (through `tokensSince`, so it ends with the cursor of the last write it saw), then every `intervalMs` the
 * tokens written since (by any instance) are marked, page by page. The timer does not keep the process alive;
 * polls never overlap; a failed poll is reported and the next one starts from the same cursor.
 *
 * This makes drawing a token another instance stored rare (at most what was written within one interval, plus
 * writes that commit out of id order); TokenReservations makes it harmless.
 */
export class TokenPoller {
  private cursor: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private readonly intervalMs: number;
  private readonly pageSize: number;
  private readonly onError: (error: unknown) => void;

  constructor(
    private readonly store: TokenStore,
    private readonly tokens: TokenRegistry,
    options: TokenPollerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? TOKEN_POLL_INTERVAL_MS;
    this.pageSize = options.pageSize ?? TOKENS_SINCE_PAGE;
    this.onError = options.onError ?? (() => undefined);
  }

  /** Where the next poll starts (opaque, the store's). */
  get position(): string | null {
    return this.cursor;
  }

  /** Marks every stored token (all pages); resolves with how many were read. Throws what the store throws. */
  async seed(): Promise<number> {
    return this.read(Infinity, Math.max(this.pageSize, SEED_PAGE));
  }

  /** Polls every intervalMs from now on. */
  start(): void {
    if (this.timer || this.intervalMs <= 0) return;
    this.timer = setInterval(() => this.runInBackground(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One poll now (or the one in progress): resolves with the number of tokens read. */
  run(): Promise<number> {
    this.running ??= this.read(MAX_PAGES_PER_POLL, this.pageSize).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async read(maxPages: number, pageSize: number): Promise<number> {
    let read = 0;
    for (let page = 0; page < maxPages; page++) {
      const { tokens, cursor } = await this.store.tokensSince(this.cursor, pageSize);
      for (const token of tokens) this.tokens.mark(token);
      this.cursor = cursor;
      read += tokens.length;
      if (tokens.length < pageSize) break;
    }
    return read;
  }

  private runInBackground(): void {
    this.run().catch((error: unknown) => {
      try {
        this.onError(error);
      } catch {
        // The reporter failing must not become an unhandled rejection.
      }
    });
  }
}
