import type { ProfileKind, ProfileRecord, ProfileSearchCriteria, ProfileSearchResult, ProfileSummary, RetentionPolicy } from './profile-record.js';

/**
 * Where profiles are kept: the port (an abstract class, so it is also the DI token); the ProfilerModule picks the
 * adapter from PROFILER_DSN. Every method may be called concurrently; writes of one call are atomic.
 */
export abstract class ProfilerStorage {
  /**
   * Whether other processes write to this store too (PostgreSQL: instances behind a load balancer). A shared
   * store's tokens are reserved before they are sent (`reserveTokens`) and the other instances' new tokens are
   * learnt by polling `tokensSince`; a private store (a SQLite file or memory) has one writer, this process.
   */
  abstract readonly shared: boolean;

  /** Opens the store (creates or migrates its schema). */
  abstract open(): Promise<void>;

  /**
   * After open(), fails with a ProfilerStorageOpenError when the store can only be read, so that an application,
   * which writes a profile per request, does not start on it; a reader (the CLI's list) does not ask.
   */
  async checkWritable(): Promise<void> {
    // Opening a store that cannot be written already fails (PostgreSQL creates its schema).
  }

  /** Writes profiles in one transaction. A token already stored is a `DuplicateTokenError` (nothing written). */
  abstract write(profiles: readonly ProfileRecord[]): Promise<void>;

  /**
   * Whether writeSync() works: the store can write with no turn of the event loop, as a crashing process must (a
   * SQLite file); a store across the network cannot.
   */
  get writesSynchronously(): boolean {
    return false;
  }

  /** write(), done when it returns (a crash's last write); only where `writesSynchronously`. */
  writeSync(_profiles: readonly ProfileRecord[]): void {
    throw new Error(`${this.constructor.name} cannot write synchronously.`);
  }

  abstract read(token: string): Promise<ProfileRecord | null>;

  abstract find(criteria: ProfileSearchCriteria): Promise<ProfileSearchResult>;

  /** Which of these tokens are taken. */
  abstract taken(tokens: readonly string[]): Promise<Set<string>>;

  /** Every stored token, to seed the token generator's view of the store (at most 16.7 million). */
  abstract allTokens(): AsyncIterable<string>;

  /**
   * The tokens written after `cursor` (an opaque value returned by an earlier call; null: from the first
   * profile), oldest write first, at most `limit` (default TOKENS_SINCE_PAGE) per call, with the cursor to pass
   * next: call again while `tokens.length` is the limit to page through. Through an index, never a scan.
   */
  abstract tokensSince(cursor: string | null, limit?: number): Promise<TokensSince>;

  /**
   * Reserves tokens for this store instance before they are sent (X-Debug-Token): returns those of `tokens` that
   * nobody had (neither stored nor reserved by another instance), now reserved. A reserved token can be written
   * by this instance only. A private store has no one to race with: the tokens not stored.
   */
  async reserveTokens(tokens: readonly string[]): Promise<string[]> {
    const stored = await this.taken(tokens);
    return [...new Set(tokens)].filter((t) => !stored.has(t));
  }

  /**
   * Whether an error thrown by write() refuses the profiles themselves (a constraint, a value the store cannot
   * hold: writing them again cannot succeed) rather than saying the store is unavailable (locked, full,
   * read-only, unreachable), which the write buffer retries. When unsure: false, so nothing is dropped for it.
   */
  isProfileError(_error: unknown): boolean {
    return false;
  }

  /** Gives back reservations this instance will not use (unwritten tokens; stored ones are kept). */
  async releaseTokens(_tokens: readonly string[]): Promise<void> {
    // A private store keeps no reservations.
  }

  /**
   * The profiles written just before and just after this one (by time, then write order), of the given kinds only
   * (undefined: any kind).
   */
  abstract neighbours(token: string, kinds?: readonly ProfileKind[]): Promise<{ previous: ProfileSummary | null; next: ProfileSummary | null }>;

  /** Profiles whose `redirectedFrom` is this token (the requests its redirect led to), oldest first. */
  abstract redirectsFrom(token: string): Promise<ProfileSummary[]>;

  /** Profiles whose parent is this token, oldest first. */
  abstract children(token: string): Promise<ProfileSummary[]>;

  /** Applies retention; returns the tokens removed. */
  abstract prune(policy: RetentionPolicy): Promise<string[]>;

  /** Removes every profile; returns how many there were. */
  abstract clear(): Promise<number>;

  abstract count(): Promise<number>;

  /** Bytes the store takes (file sizes for SQLite), for the search page and the benchmarks. */
  abstract size(): Promise<number>;

  abstract close(): Promise<void>;
}

/** Tokens a page of `tokensSince` returns by default. */
export const TOKENS_SINCE_PAGE = 5000;

export interface TokensSince {
  tokens: string[];
  /** Where the next call goes on (the same cursor when nothing new was written). */
  cursor: string | null;
}

export class DuplicateTokenError extends Error {
  constructor(readonly tokens: string[]) {
    super(`Profile token(s) already stored: ${tokens.join(', ')}`);
    this.name = 'DuplicateTokenError';
  }
}
