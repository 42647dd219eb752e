import type {
  ProfileKind,
  ProfileRecord,
  ProfileSearchCriteria,
  ProfileSearchResult,
  ProfileSummary,
  RetentionPolicy,
} from './profile-record.js';

/** The port, and so the DI token. Every method may be called concurrently; writes of one call are atomic. */
export abstract class ProfilerStorage {
  /** Creates or migrates the schema. */
  abstract open(): Promise<void>;

  /** What open() did that an operator should hear of (an older store set aside). */
  get openNotice(): string | null {
    return null;
  }

  /** A ProfilerStorageOpenError for a read-only store, so the application does not start on it (the CLI may). */
  async checkWritable(): Promise<void> {
    // Opening a store that cannot be written already fails (PostgreSQL creates its schema).
  }

  /** One transaction. A token already stored is a `DuplicateTokenError` (nothing written). */
  abstract write(profiles: readonly ProfileRecord[]): Promise<void>;

  /** Most profiles a write() should take now: a store that writes on the event loop keeps each write short. */
  get batchLimit(): number {
    return Infinity;
  }

  /** Whether writeSync() works, as a crashing process needs (a SQLite file; not a store across the network). */
  get writesSynchronously(): boolean {
    return false;
  }

  writeSync(_profiles: readonly ProfileRecord[]): void {
    throw new Error(`${this.constructor.name} cannot write synchronously.`);
  }

  abstract read(token: string): Promise<ProfileRecord | null>;

  abstract find(criteria: ProfileSearchCriteria): Promise<ProfileSearchResult>;

  /** Whether write()'s error blames the profiles (retrying cannot help); when unsure, false: nothing is dropped. */
  isProfileError(_error: unknown): boolean {
    return false;
  }

  /** By time, then write order. */
  abstract neighbours(
    token: string,
    kinds?: readonly ProfileKind[],
  ): Promise<{ previous: ProfileSummary | null; next: ProfileSummary | null }>;

  /** Oldest first. */
  abstract redirectsFrom(token: string): Promise<ProfileSummary[]>;

  /** Returns the tokens removed. */
  abstract prune(policy: RetentionPolicy): Promise<string[]>;

  /** Returns how many profiles there were. */
  abstract clear(): Promise<number>;

  /** Bytes, for the search page and the benchmarks. */
  abstract size(): Promise<number>;

  abstract close(): Promise<void>;
}

export class DuplicateTokenError extends Error {
  constructor(readonly tokens: string[]) {
    super(`Profile token(s) already stored: ${tokens.join(', ')}`);
    this.name = 'DuplicateTokenError';
  }
}

/** The tokens present more than once in a write batch, each once, in the order of their second occurrence. */
export function repeatedTokens(tokens: readonly string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const token of tokens) {
    if (seen.has(token)) repeated.add(token);
    seen.add(token);
  }
  return [...repeated];
}
