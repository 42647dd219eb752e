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
  /** COUNT_READ_BUDGET; the tests lower it. */
  countReadBudget?: number;
  /** The clock timing each commit, in milliseconds (tests). */
  clock?: () => number;
}

/** A write's transaction takes about this long at most (milliseconds): the event loop waits for it. */
const WRITE_SLICE_MS = 8;
/** The fewest profiles a batch is cut to, however slow the store. */
const MIN_BATCH = 10;

/** A crash's last write waits this long for a lock another process (the command line's clear, say) may hold. */
const CRASH_BUSY_TIMEOUT_MS = 3000;

/**
 * better-sqlite3 is synchronous, so every call is kept short: blobs are encoded beforehand in slices, searches read
 * few rows, pruning runs in short chunks, and WAL checkpoints run in a worker thread.
 */
export class SqliteProfilerStorage extends ProfilerStorage {
  readonly tokens: SqliteTokenStore;
  private readonly connection: SqliteConnection;
  private readonly codec = new ProfileCodec();
  private readonly writer: SqliteProfileWriter;
  private readonly reader: SqliteProfileReader;
  private readonly planner: SqliteSearchPlanner;
  private readonly retention: SqliteRetention;
  private limit = Infinity;
  private readonly clock: () => number;

  constructor(options: SqliteProfilerStorageOptions) {
    super();
    this.connection = new SqliteConnection(options.file);
    this.clock = options.clock ?? (() => performance.now());
    this.tokens = new SqliteTokenStore(this.connection);
    const textParts = new SqliteTextParts(this.connection);
    this.writer = new SqliteProfileWriter(this.connection, this.tokens, textParts, this.codec);
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
    const groups = await this.codec.encodeBatch(profiles.map((profile) => profile.json ?? profile.data ?? {}));
    const started = this.clock();
    this.writer.commit(profiles, groups, false);
    const ms = this.clock() - started;
    // A large store's indexes make a profile dearer to write: batches are cut to keep each commit within the
    // slice, and let grow again (at most doubling) while they fit.
    const fits = ms > 0 ? Math.floor((profiles.length * WRITE_SLICE_MS) / ms) : Infinity;
    if (fits < profiles.length) this.limit = Math.max(MIN_BATCH, fits);
    else this.limit = Math.max(this.limit, Math.min(2 * this.limit, fits));
  }

  override get batchLimit(): number {
    return this.limit;
  }

  override get writesSynchronously(): boolean {
    return true;
  }

  /** IMMEDIATE with a longer busy_timeout: it waits for a lock (a write starting with a read would fail at once). */
  override writeSync(profiles: readonly ProfileRecord[]): void {
    if (profiles.length === 0) return;
    const groups = this.codec.encodeBatchSync(profiles.map((profile) => profile.json ?? profile.data ?? {}));
    this.connection.withBusyTimeout(CRASH_BUSY_TIMEOUT_MS, () => this.writer.commit(profiles, groups, true));
  }

  /** BUSY, FULL, IOERR … are the store failing. By code: the addon throws the last loaded module copy's SqliteError. */
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
