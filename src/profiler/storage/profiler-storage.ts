import type {
  ProfileKind,
  ProfileRecord,
  ProfileSearchCriteria,
  ProfileSearchResult,
  ProfileSummary,
  RetentionPolicy,
} from './profile-record.js';

/**
 * Where profiles are kept: the port (an abstract class, so it is also the DI token); the ProfilerModule picks the
 * adapter from PROFILER_DSN. Every method may be called concurrently; writes of one call are atomic. The token
 * queries on the same store are a port of their own, TokenStore (src/profiler/tokens/).
 */
export abstract class ProfilerStorage {
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

  /**
   * Whether an error thrown by write() refuses the profiles themselves (a constraint, a value the store cannot
   * hold: writing them again cannot succeed) rather than saying the store is unavailable (locked, full,
   * read-only, unreachable), which the write buffer retries. When unsure: false, so nothing is dropped for it.
   */
  isProfileError(_error: unknown): boolean {
    return false;
  }

  /**
   * The profiles written just before and just after this one (by time, then write order), of the given kinds only
   * (undefined: any kind).
   */
  abstract neighbours(
    token: string,
    kinds?: readonly ProfileKind[],
  ): Promise<{ previous: ProfileSummary | null; next: ProfileSummary | null }>;

  /** Profiles whose `redirectedFrom` is this token (the requests its redirect led to), oldest first. */
  abstract redirectsFrom(token: string): Promise<ProfileSummary[]>;

  /** Applies retention; returns the tokens removed. */
  abstract prune(policy: RetentionPolicy): Promise<string[]>;

  /** Removes every profile; returns how many there were. */
  abstract clear(): Promise<number>;

  /** Bytes the store takes (file sizes for SQLite), for the search page and the benchmarks. */
  abstract size(): Promise<number>;

  abstract close(): Promise<void>;
}

export class DuplicateTokenError extends Error {
  constructor(readonly tokens: string[]) {
    super(`Profile token(s) already stored: ${tokens.join(', ')}`);
    this.name = 'DuplicateTokenError';
  }
}
