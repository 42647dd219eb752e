import type { ProfileRecord, ProfileSearchCriteria, ProfileSearchResult, ProfileSummary, RetentionPolicy } from './profile-record.js';

/**
 * Where profiles are kept: the port (an abstract class, so it is also the DI token); the ProfilerModule picks the
 * adapter from PROFILER_DSN. Every method may be called concurrently; writes of one call are atomic.
 */
export abstract class ProfilerStorage {
  /** Opens the store (creates or migrates its schema). */
  abstract open(): Promise<void>;

  /** Writes profiles in one transaction. A token already stored is a `DuplicateTokenError` (nothing written). */
  abstract write(profiles: readonly ProfileRecord[]): Promise<void>;

  abstract read(token: string): Promise<ProfileRecord | null>;

  abstract find(criteria: ProfileSearchCriteria): Promise<ProfileSearchResult>;

  /** Which of these tokens are taken. */
  abstract taken(tokens: readonly string[]): Promise<Set<string>>;

  /** Every stored token, to seed the token generator's view of the store (at most 16.7 million). */
  abstract allTokens(): AsyncIterable<string>;

  /** The profiles written just before and just after this one (by time, then write order). */
  abstract neighbours(token: string): Promise<{ previous: ProfileSummary | null; next: ProfileSummary | null }>;

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

export class DuplicateTokenError extends Error {
  constructor(readonly tokens: string[]) {
    super(`Profile token(s) already stored: ${tokens.join(', ')}`);
    this.name = 'DuplicateTokenError';
  }
}
