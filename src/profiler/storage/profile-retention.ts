import type { ProfilerStorage } from './profiler-storage.js';
import type { TokenAllocator } from '../tokens/token-allocator.js';

export interface ProfileRetentionOptions {
  /** 0: no limit. */
  maxProfiles: number;
  /** 0: no limit. */
  maxAgeMs: number;
  /** 0: only at start and on demand. */
  intervalMs: number;
  /** Failures of the periodic runs are reported here. */
  onError?: (error: unknown) => void;
  now?: () => number;
}

const RELEASE_SLICE = 10_000;

/** Applies the retention policy at start, every `intervalMs` and on demand, never two runs at once. */
export class ProfileRetention {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<string[]> | null = null;
  private readonly now: () => number;
  private readonly onError: (error: unknown) => void;

  constructor(
    private readonly storage: ProfilerStorage,
    private readonly tokens: Pick<TokenAllocator, 'release'>,
    private readonly options: ProfileRetentionOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? (() => undefined);
  }

  start(): void {
    if (this.timer) return;
    this.runInBackground();
    if (this.options.intervalMs > 0) {
      this.timer = setInterval(() => this.runInBackground(), this.options.intervalMs);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Joins the run in progress, if any; resolves with the tokens removed. */
  run(): Promise<string[]> {
    if (!this.running) {
      this.running = this.prune().finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  private async prune(): Promise<string[]> {
    const { maxProfiles, maxAgeMs } = this.options;
    if (maxProfiles <= 0 && maxAgeMs <= 0) return [];
    const removed = await this.storage.prune({
      maxProfiles: Math.max(0, maxProfiles),
      maxAgeMs: Math.max(0, maxAgeMs),
      now: this.now(),
    });
    // A slice at a time: releasing a large prune's tokens at once would hold the event loop.
    for (let at = 0; at < removed.length; at += RELEASE_SLICE) {
      if (at > 0) await new Promise((resolve) => setImmediate(resolve));
      this.tokens.release(removed.slice(at, at + RELEASE_SLICE));
    }
    return removed;
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
