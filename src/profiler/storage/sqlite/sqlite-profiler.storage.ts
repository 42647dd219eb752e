import { ProfileCodec } from '../profile-codec.js';
import type {
  ProfileKind,
  ProfileRecord,
  ProfileSearchCriteria,
  ProfileSearchResult,
  ProfileSummary,
  RetentionPolicy,
} from '../profile-record.js';
import { ProfilerStorage } from '../profiler-storage.js';
import { SqliteConnection } from './sqlite-connection.js';
import { SqliteProfileReader } from './sqlite-profile-reader.js';
import { SqliteProfileWriter } from './sqlite-profile-writer.js';
import { SqliteRetention } from './sqlite-retention.js';
import { SqliteTextParts } from './sqlite-text-parts.js';
import { SqliteSearchPlanner } from './sqlite-search-planner.js';
import { SqliteTokenStore } from './sqlite-token-store.js';
import { SqliteUrlMatcher } from './sqlite-url-matcher.js';

export interface SqliteProfilerStorageOptions {
  /** Absolute path of the database file, or `:memory:`. */
  file: string;
  /** What a count reads at most before its matches are a lower bound (COUNT_READ_BUDGET; the tests lower it). */
  countReadBudget?: number;
}

/** A crash's last write waits this long for a lock another process (the command line's clear, say) may hold. */
const CRASH_BUSY_TIMEOUT_MS = 3000;

/**
 * The embedded profile store (the default): one SQLite file through better-sqlite3, in WAL mode.
 *
 * better-sqlite3 is synchronous, so every call is kept short: a write is one transaction per batch (the blobs
 * are encoded beforehand, in slices with the event loop free between them), a search is planned to read few rows,
 * pruning runs in short chunks with the event loop free between them, and WAL checkpoints (which write the WAL
 * back and fsync) run in a worker thread.
 *
 * This class composes the parts, each in a file of its own: the connection and its schema (sqlite-connection.ts,
 * sqlite-schema.ts), the write path (SqliteProfileWriter), reads by token (SqliteProfileReader), search
 * (SqliteSearchPlanner, SqliteUrlMatcher), retention (SqliteRetention) and the token queries (`tokens`, a SqliteTokenStore on the same connection).
 */
export class SqliteProfilerStorage extends ProfilerStorage {
  /** The token queries on this store, for the token allocator. */
  readonly tokens: SqliteTokenStore;
  private readonly connection: SqliteConnection;
  private readonly codec = new ProfileCodec();
  private readonly writer: SqliteProfileWriter;
  private readonly reader: SqliteProfileReader;
  private readonly planner: SqliteSearchPlanner;
  private readonly retention: SqliteRetention;

  constructor(options: SqliteProfilerStorageOptions) {
    super();
    this.connection = new SqliteConnection(options.file);
    this.tokens = new SqliteTokenStore(this.connection);
    const textParts = new SqliteTextParts(this.connection);
    this.writer = new SqliteProfileWriter(this.connection, this.tokens, textParts);
    this.reader = new SqliteProfileReader(this.connection, this.codec);
    this.planner = new SqliteSearchPlanner(
      this.connection,
      new SqliteUrlMatcher(this.connection),
      textParts,
      options.countReadBudget,
    );
    this.retention = new SqliteRetention(this.connection, textParts);
  }

  get file(): string {
    return this.connection.file;
  }

  /** Opens the file, created with its directory; one that cannot be opened is a ProfilerStorageOpenError. */
  open(): Promise<void> {
    return this.connection.open();
  }

  override get openNotice(): string | null {
    return this.connection.notice;
  }

  override async checkWritable(): Promise<void> {
    this.connection.checkWritable();
  }

  async write(profiles: readonly ProfileRecord[]): Promise<void> {
    if (profiles.length === 0) return;
    const blobs = await this.codec.encodeMany(profiles.map((profile) => profile.data ?? {}));
    this.writer.commit(profiles, blobs, false);
  }

  override get writesSynchronously(): boolean {
    return true;
  }

  /**
   * A crash's last write: encoded at once, and the transaction started IMMEDIATE with a longer busy_timeout, so it
   * waits for a lock another connection may hold (a write that starts with a read would fail at once).
   */
  override writeSync(profiles: readonly ProfileRecord[]): void {
    if (profiles.length === 0) return;
    const blobs = profiles.map((profile) => this.codec.encodeSync(profile.data ?? {}));
    this.connection.withBusyTimeout(CRASH_BUSY_TIMEOUT_MS, () => this.writer.commit(profiles, blobs, true));
  }

  /**
   * SQLite's verdicts on the rows themselves; BUSY, FULL, READONLY, IOERR … are the store failing. By the code, not
   * `instanceof SqliteError`: the native addon throws the class of whichever copy of the module registered last.
   */
  override isProfileError(error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    return typeof code === 'string' && /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH|RANGE)/.test(code);
  }

  read(token: string): Promise<ProfileRecord | null> {
    return this.reader.read(token);
  }

  async find(criteria: ProfileSearchCriteria): Promise<ProfileSearchResult> {
    return this.planner.find(criteria);
  }

  async neighbours(
    token: string,
    kinds?: readonly ProfileKind[],
  ): Promise<{ previous: ProfileSummary | null; next: ProfileSummary | null }> {
    return this.reader.neighbours(token, kinds);
  }

  async redirectsFrom(token: string): Promise<ProfileSummary[]> {
    return this.reader.redirectsFrom(token);
  }

  prune(policy: RetentionPolicy): Promise<string[]> {
    return this.retention.prune(policy);
  }

  clear(): Promise<number> {
    return this.retention.clear();
  }

  async size(): Promise<number> {
    return this.connection.size();
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
