import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ProfileCodec } from '../profile-codec.js';
import type { ProfileKind, ProfileRecord, ProfileSearchCriteria, ProfileSearchResult, ProfileSummary, RetentionPolicy } from '../profile-record.js';
import { DuplicateTokenError, ProfilerStorage, TOKENS_SINCE_PAGE, type TokensSince } from '../profiler-storage.js';
import { ProfilerStorageOpenError } from '../profiler-storage-open.error.js';
import { PruneWorker } from './prune-worker.js';
import { createDirectory, whyCannotOpen } from './store-file.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { MAX_TIME, prefixRange, escapeLike, clampTime, kindCode, kindCodes, kindName, cleanDuration, optionalText, PROFILER_URL_PATTERN } from '../search-helpers.js';
import { SkeletonMatcher, urlSkeleton } from '../url-skeleton.js';

export interface SqliteProfilerStorageOptions {
  /** Absolute path of the database file, or `:memory:`. */
  file: string;
}

type Statement = Database.Statement<unknown[], unknown>;
/**
 * The URL filter: the LIKE pattern, and either the ids of the matching distinct URLs (when few) or the URL
 * skeletons (see the schema) whose every URL matches (`all`, with their number of profiles) and those some of
 * whose URLs may match (`check`: their URLs are checked with LIKE); null both: LIKE over every distinct URL.
 */
interface UrlMatch {
  like: string;
  ids: number[] | null;
  skeletons: { all: number[]; allProfiles: number; check: number[]; checkProfiles: number } | null;
}
/** The filter whose index drives a search through the indexes (the others checked row by row). */
type Driver = 'ip' | 'method' | 'status' | 'token' | 'url';
type Filters = Omit<NonNullable<ReturnType<typeof compileCriteria>>, 'url'> & { url: UrlMatch | null };

/** A row of COLUMNS: the list columns as ProfileSummary names them. */
type SummaryRow = ProfileSummary;


/**
 * The key of a profile: its time in the high bits, its write sequence within that millisecond in the low 20.
 * The table is thus stored in list order (newest last, equal times in write order), every index on one column
 * is ordered by (value, time, write order), and a time range is a key range.
 */
const SEQ_BITS = 20n;
/** Times are clamped to [0, 2^42) ms (until the year 2109) so that keys fit SQLite's 63 positive bits. */
const HOUR = 3_600_000;
const SCHEMA_VERSION = 6;
/** How long a statement waits for a lock another connection holds (milliseconds). */
const BUSY_TIMEOUT_MS = 250;
/** The same for a crash's last write: longer than a prune chunk of the worker (PRUNE_WORKER_SLICE_MS). */
const CRASH_BUSY_TIMEOUT_MS = 3000;

/** The list columns of profile `p` (joined with its URL `u`). */
const COLUMNS = `p.token, p.parent, p.ip, p.method, u.url, p.time, p.status AS statusCode, ${kindName('p.kind')} AS kind, p.duration, p.route,
  p.redirected_from AS redirectedFrom`;
const FROM = 'profile p CROSS JOIN profile_url u ON u.id = p.url_id';
/**
 * The live profile `p` of token `t` (profile_token): an entry whose profile was pruned points to no row, or to a
 * row of another token (keys are reused within a millisecond), and matches nothing.
 */
const BY_TOKEN = 'profile_token t CROSS JOIN profile p ON p.id = t.id AND p.token = t.token';
/** The key of the live profile of token `?` (null: none). */
const ID_OF_TOKEN = '(SELECT q.id FROM profile_token k CROSS JOIN profile q ON q.id = k.id AND q.token = k.token WHERE k.token = ?)';

/** Schema migrations: MIGRATIONS[n] brings user_version n to n + 1. */
const MIGRATIONS: string[] = [
  `
  -- The list columns, narrow: searching never reads a profile's data.
  CREATE TABLE profile (
    id INTEGER PRIMARY KEY,                 -- (time << 20) + write sequence in that millisecond: the list order
    token TEXT NOT NULL,
    parent TEXT,
    ip TEXT NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    url_id INTEGER NOT NULL,                -- profile_url.id
    time INTEGER NOT NULL,                  -- milliseconds since the epoch
    status INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX profile_token ON profile (token);
  CREATE INDEX profile_ip ON profile (ip);
  CREATE INDEX profile_method ON profile (method);
  CREATE INDEX profile_status ON profile (status);
  CREATE INDEX profile_url_id ON profile (url_id);
  CREATE INDEX profile_parent ON profile (parent) WHERE parent IS NOT NULL;

  -- Each distinct URL once, with the number of profiles that have it: requests repeat URLs, so a substring
  -- search reads far fewer trigrams and counts its matches by summing n.
  CREATE TABLE profile_url (
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL UNIQUE,
    n INTEGER NOT NULL,
    folded TEXT GENERATED ALWAYS AS (lower(url)) VIRTUAL
  );
  -- Trigrams of the distinct URLs with ASCII letters in lower case, rowid = profile_url.id: a phrase of the
  -- needle's trigrams finds exactly the URLs LIKE '%needle%' matches (LIKE folds ASCII letters only, as lower()).
  -- External content: write() and prune() add and remove entries explicitly.
  CREATE VIRTUAL TABLE profile_url_trigram USING fts5 (
    folded, content = 'profile_url', content_rowid = 'id', tokenize = 'trigram case_sensitive 1', detail = full
  );

  -- The collectors' data, one compressed blob per profile (ProfileCodec), read only by read().
  CREATE TABLE profile_data (
    id INTEGER PRIMARY KEY,                 -- profile.id
    data BLOB NOT NULL
  );

  -- Running totals, so that counting the matches of the common searches never walks a million index entries:
  -- per hour, method and status, and per client IP.
  CREATE TABLE profile_count (
    hour INTEGER NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    status INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (hour, method, status)
  ) WITHOUT ROWID;
  CREATE TABLE profile_ip_count (
    ip TEXT NOT NULL PRIMARY KEY,
    n INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  `
  -- Write order (the key is time order: a profile of an older request may be written later), for tokensSince.
  ALTER TABLE profile ADD COLUMN seq INTEGER;
  UPDATE profile SET seq = r.n FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM profile) AS r WHERE r.id = profile.id;
  CREATE UNIQUE INDEX profile_seq ON profile (seq);
  -- The last seq given: never reused, even once its profile is pruned or cleared (a cursor stays valid).
  CREATE TABLE profile_write (last INTEGER NOT NULL);
  INSERT INTO profile_write (last) SELECT coalesce(max(seq), 0) FROM profile;
  `,
  `
  -- URL skeletons: each distinct URL with the runs of digits of its path and query replaced by one '#'
  -- (url_skeleton(), a function of the connection; scheme, host and port are kept), with the number of profiles
  -- that have one of its URLs. URLs differ mostly by ids and page numbers: a few thousand skeletons stand for
  -- hundreds of thousands of distinct URLs, and count the matches of a common URL needle (see urlSkeleton()).
  CREATE TABLE profile_url_skeleton (
    id INTEGER PRIMARY KEY,
    skeleton TEXT NOT NULL UNIQUE,
    n INTEGER NOT NULL
  );
  ALTER TABLE profile_url ADD COLUMN skel_id INTEGER NOT NULL DEFAULT 0;
  INSERT INTO profile_url_skeleton (skeleton, n) SELECT url_skeleton(url), sum(n) FROM profile_url GROUP BY 1;
  UPDATE profile_url SET skel_id = s.id FROM profile_url_skeleton s WHERE s.skeleton = url_skeleton(profile_url.url);
  CREATE INDEX profile_url_skel ON profile_url (skel_id);
  -- Running totals per first two characters of the token: a token prefix of one or two characters matches a
  -- sixteenth or a 256th of the store, counted here instead of over tens of thousands of index entries.
  CREATE TABLE profile_token_count (
    prefix TEXT NOT NULL PRIMARY KEY,
    n INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO profile_token_count (prefix, n) SELECT substr(token, 1, 2), count(*) FROM profile GROUP BY 1;
  `,
  `
  -- Running totals of the combinations people search (an IP or a URL with a method and a status), so that they
  -- are counted from a few thousand rows instead of reading every row one filter's index leads to: per client IP,
  -- method and status (instead of per IP alone), per distinct URL and per URL skeleton, method and status.
  CREATE TABLE profile_ip_count_new (
    ip TEXT NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    status INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (ip, method, status)
  ) WITHOUT ROWID;
  INSERT INTO profile_ip_count_new (ip, method, status, n) SELECT ip, upper(method), status, count(*) FROM profile GROUP BY 1, 2, 3;
  DROP TABLE profile_ip_count;
  ALTER TABLE profile_ip_count_new RENAME TO profile_ip_count;
  CREATE TABLE profile_url_count (
    url_id INTEGER NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    status INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (url_id, method, status)
  ) WITHOUT ROWID;
  INSERT INTO profile_url_count (url_id, method, status, n) SELECT url_id, upper(method), status, count(*) FROM profile GROUP BY 1, 2, 3;
  CREATE TABLE profile_url_skeleton_count (
    skel_id INTEGER NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    status INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (skel_id, method, status)
  ) WITHOUT ROWID;
  INSERT INTO profile_url_skeleton_count (skel_id, method, status, n)
    SELECT u.skel_id, upper(p.method), p.status, count(*) FROM profile p CROSS JOIN profile_url u ON u.id = p.url_id GROUP BY 1, 2, 3;
  `,
  `
  -- Tokens in a table of their own instead of an index of profile: pruning leaves their entries (an entry whose
  -- profile is gone matches nothing) and sweeps them later, in token order. Tokens are random, so a prune chunk's
  -- hundred thousand deletes from a token index dirtied nearly every page of it, again in every chunk (at a million
  -- profiles, a quarter of a prune's time and a third of what it wrote). \`profile_token_stale\` counts the entries
  -- left since the last sweep.
  DROP INDEX profile_token;
  CREATE TABLE profile_token (
    token TEXT NOT NULL PRIMARY KEY,
    id INTEGER NOT NULL                     -- profile.id, while that profile has this token
  ) WITHOUT ROWID;
  INSERT INTO profile_token (token, id) SELECT token, id FROM profile ORDER BY token;
  CREATE TABLE profile_token_stale (n INTEGER NOT NULL);
  INSERT INTO profile_token_stale (n) VALUES (0);
  `,
  `
  -- What a request was (kind: 0 an application request, 1 a profiler page, 2 an asset; KIND_CODES), how long it
  -- took (milliseconds), its route and the redirect it followed (a token). A profile written before is the
  -- application's unless its URL is a profiler page's (profiler_page(), a function of the connection).
  ALTER TABLE profile ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE profile ADD COLUMN duration REAL;
  ALTER TABLE profile ADD COLUMN route TEXT;
  ALTER TABLE profile ADD COLUMN redirected_from TEXT;
  UPDATE profile SET kind = 1 WHERE url_id IN (SELECT id FROM profile_url WHERE profiler_page(url));
  CREATE INDEX profile_redirected_from ON profile (redirected_from) WHERE redirected_from IS NOT NULL;
  -- The totals that answer the search page's default searches (the application's requests alone, by time,
  -- method, status or client IP) counted per kind too.
  DROP TABLE profile_count;
  CREATE TABLE profile_count (
    hour INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    status INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (hour, kind, method, status)
  ) WITHOUT ROWID;
  INSERT INTO profile_count (hour, kind, method, status, n) SELECT time / ${HOUR}, kind, upper(method), status, count(*) FROM profile GROUP BY 1, 2, 3, 4;
  DROP TABLE profile_ip_count;
  CREATE TABLE profile_ip_count (
    ip TEXT NOT NULL,
    kind INTEGER NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    status INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (ip, kind, method, status)
  ) WITHOUT ROWID;
  INSERT INTO profile_ip_count (ip, kind, method, status, n) SELECT ip, kind, upper(method), status, count(*) FROM profile GROUP BY 1, 2, 3, 4;
  `,
];

/**
 * The embedded profile store (the default): one SQLite file through better-sqlite3, in WAL mode.
 *
 * better-sqlite3 is synchronous, so every call is kept short: a write is one transaction per batch (the blobs
 * are encoded beforehand, in slices with the event loop free between them), a search is planned to read few rows,
 * pruning a file runs in a process of its own (PruneWorker; an in-memory store prunes in chunks of about eight
 * milliseconds with the event loop free between them), and WAL checkpoints (which write megabytes back and fsync)
 * run in a worker thread.
 *
 * Tables: `profile` (the list columns, keyed by time then write order), `profile_url` (distinct URLs with their
 * trigram index `profile_url_trigram` and their skeleton), `profile_url_skeleton` (URLs with their digits
 * folded, see urlSkeleton()), `profile_data` (one compressed blob per profile) and the running totals
 * `profile_count` (per hour, kind, method and status), `profile_ip_count` (per IP, kind, method and status),
 * `profile_url_count` and `profile_url_skeleton_count` (per URL or skeleton, method and status) and
 * `profile_token_count` (per first two characters); `profile_token` finds a profile by its token (pruning leaves
 * entries behind and sweeps them later, see sweepTokens()); `profile.seq` numbers the writes (the last number given
 * in `profile_write`), for tokensSince.
 */
export class SqliteProfilerStorage extends ProfilerStorage {
  /** One writer: this process. */
  readonly shared = false;
  private db?: Database.Database;
  private checkpointer?: WalCheckpointer;
  /** Prunes a file's profiles in a child process (an in-memory store prunes on the event loop). */
  private pruner?: PruneWorker;
  /** The prune chunk under way in the worker: writes wait for it (one writer at a time, never a busy wait). */
  private pruning: Promise<unknown> | null = null;
  /** Rows deleted per worker chunk, adapted to keep each at about PRUNE_WORKER_SLICE_MS. */
  private workerChunk = PRUNE_WORKER_CHUNK_MAX;
  private readonly statements = new Map<string, Statement>();
  private readonly codec = new ProfileCodec();
  /** Rows deleted per prune transaction on the event loop (in memory), adapted to keep each at about PRUNE_SLICE_MS. */
  private pruneChunk = 100;

  constructor(private readonly options: SqliteProfilerStorageOptions) {
    super();
  }

  get file(): string {
    return this.options.file;
  }

  /** Opens the file, created with its directory; one that cannot be opened is a ProfilerStorageOpenError. */
  async open(): Promise<void> {
    if (this.db) return;
    try {
      await this.openFile();
    } catch (error) {
      throw new ProfilerStorageOpenError('SQLite', this.options.file, error, whyCannotOpen(this.options.file, error));
    }
  }

  /**
   * A file SQLite may only read (its mode, an immutable flag, a read-only mount) opens all the same, for reading:
   * found by a statement that changes nothing. A lock another process holds is the store failing for a while (the
   * write buffer retries), not a reason not to start.
   */
  override async checkWritable(): Promise<void> {
    if (this.options.file === ':memory:') return;
    try {
      this.statement('UPDATE profile_write SET last = last WHERE false').run();
    } catch (error) {
      if (String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) return;
      throw new ProfilerStorageOpenError('SQLite', this.options.file, error);
    }
  }

  private async openFile(): Promise<void> {
    const memory = this.options.file === ':memory:';
    if (!memory) await createDirectory(dirname(this.options.file));
    const db = new Database(this.options.file);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.pragma('temp_store = MEMORY');
      // 8 MB: searches touch a few index pages each (the OS caches the file); 32 MB filled as the store grew and
      // stayed in the process's RSS (+57 MB over 30,000 profiled requests with it, +2 MB without; bench/run.mjs).
      db.pragma('cache_size = -8192');
      db.pragma('journal_size_limit = 67108864');
      db.function('url_skeleton', { deterministic: true }, (url: unknown) => urlSkeleton(String(url)));
      db.function('profiler_page', { deterministic: true }, (url: unknown) => (PROFILER_URL.test(String(url)) ? 1 : 0));
      migrate(db, this.options.file);
      db.exec(PRUNE_SETUP_SQL);
      checkLayout(db, this.options.file);
    } catch (error) {
      db.close();
      throw error;
    }
    this.db = db;
    if (!memory) {
      // Checkpoints run in a worker thread, not inside a commit on the event loop; should the worker fail,
      // SQLite's automatic checkpoints take over again.
      db.pragma('wal_autocheckpoint = 0');
      this.checkpointer = new WalCheckpointer(this.options.file, 1000, () => {
        if (this.db === db) db.pragma('wal_autocheckpoint = 1000');
      });
      this.checkpointer.start();
      this.pruner = new PruneWorker(this.options.file, { setup: PRUNE_SETUP_SQL, take: PRUNE_TAKE_SQL, chunk: PRUNE_CHUNK_SQL, sweep: TOKEN_SWEEP_SQL });
    }
  }

  async write(profiles: readonly ProfileRecord[]): Promise<void> {
    if (profiles.length === 0) return;
    const blobs = await this.encodeAll(profiles);
    await this.prunerIdle();
    this.commit(profiles, blobs, false);
  }

  override get writesSynchronously(): boolean {
    return true;
  }

  /**
   * A crash's last write: encoded at once, and the transaction started IMMEDIATE with a longer busy_timeout, so it
   * waits for a prune chunk the worker may be committing (a write that starts with a read would fail at once).
   */
  override writeSync(profiles: readonly ProfileRecord[]): void {
    if (profiles.length === 0) return;
    const blobs = profiles.map((profile) => this.codec.encodeSync(profile.data ?? {}));
    const db = this.connection();
    db.pragma(`busy_timeout = ${CRASH_BUSY_TIMEOUT_MS}`);
    try {
      this.commit(profiles, blobs, true);
    } finally {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  /** The write's transaction (IMMEDIATE: it takes the write lock first). */
  private commit(profiles: readonly ProfileRecord[], blobs: Buffer[], immediate: boolean): void {
    const db = this.connection();
    const upsertUrl = this.statement('INSERT INTO profile_url (url, n) VALUES (?, ?) ON CONFLICT (url) DO UPDATE SET n = n + excluded.n RETURNING id, n, skel_id AS skelId');
    const indexUrl = this.statement('INSERT INTO profile_url_trigram (rowid, folded) VALUES (?, lower(?))');
    const upsertSkeleton = this.statement('INSERT INTO profile_url_skeleton (skeleton, n) VALUES (?, 0) ON CONFLICT (skeleton) DO UPDATE SET n = n RETURNING id').pluck();
    const setSkeleton = this.statement('UPDATE profile_url SET skel_id = ? WHERE id = ?');
    const insert = this.statement(
      `INSERT INTO profile (id, token, parent, ip, method, url_id, time, status, seq, kind, duration, route, redirected_from)
       VALUES ((SELECT coalesce(max(id) + 1, @time << ${SEQ_BITS}) FROM profile WHERE id >= @time << ${SEQ_BITS} AND id < (@time + 1) << ${SEQ_BITS}),
               @token, @parent, @ip, @method, @urlId, @time, @status, @seq, @kind, @duration, @route, @redirectedFrom)
       RETURNING id`,
    ).safeIntegers(true);
    const insertData = this.statement('INSERT INTO profile_data (id, data) VALUES (?, ?)');
    // An entry left by a pruned profile is taken over; one of a live profile is not (duplicates() has refused the
    // batch before, this is the constraint's backstop).
    const mapToken = this.statement(
      `INSERT INTO profile_token (token, id) VALUES (?, ?) ON CONFLICT (token) DO UPDATE SET id = excluded.id
       WHERE NOT EXISTS (SELECT 1 FROM profile WHERE id = profile_token.id AND token = profile_token.token)`,
    );
    const tokenId = this.statement('SELECT id FROM profile_token WHERE token = ?').safeIntegers(true).pluck();
    const transaction = db.transaction(() => {
      const duplicates = this.duplicates(profiles);
      if (duplicates.length > 0) throw new DuplicateTokenError(duplicates);
      const hours = new Counter();
      const ips = new Counter();
      const urls = new Counter();
      const skeletonsBy = new Counter();
      // Per first two characters of the token, written in one statement: a batch's random tokens have nearly as
      // many prefixes as profiles.
      const prefixes: Record<string, number> = Object.create(null);
      const skeletons = new Counter();
      const lastSeq = this.statement('UPDATE profile_write SET last = last + ? RETURNING last - ?').pluck().get(profiles.length, profiles.length) as number;
      // Each distinct URL of the batch once (a page reloaded, an endpoint polled: one statement for all its
      // profiles); a URL new to the store (its total was 0) gets its trigrams and its skeleton.
      const perUrl = new Map<string, number>();
      for (const profile of profiles) {
        const url = String(profile.url ?? '');
        perUrl.set(url, (perUrl.get(url) ?? 0) + 1);
      }
      const urlIds = new Map<string, [id: number, skeleton: number]>();
      for (const [url, k] of perUrl) {
        const { id, n, skelId } = upsertUrl.get(url, k) as { id: number; n: number; skelId: number };
        let skeleton = skelId;
        if (n === k) {
          indexUrl.run(id, url);
          skeleton = upsertSkeleton.get(urlSkeleton(url)) as number;
          setSkeleton.run(skeleton, id);
        }
        urlIds.set(url, [id, skeleton]);
      }
      profiles.forEach((profile, i) => {
        const time = clampTime(profile.time);
        const status = Math.trunc(Number(profile.statusCode)) || 0;
        const method = String(profile.method ?? '');
        const ip = String(profile.ip ?? '');
        const [urlId, skeleton] = urlIds.get(String(profile.url ?? ''))!;
        skeletons.add([skeleton]);
        const token = String(profile.token);
        const kind = kindCode(profile.kind);
        const { id } = insert.get({
          time, token, parent: profile.parent ?? null, ip, method, urlId, status, seq: lastSeq + i + 1, kind,
          duration: cleanDuration(profile.duration), route: optionalText(profile.route), redirectedFrom: optionalText(profile.redirectedFrom),
        }) as { id: bigint };
        if (mapToken.run(token, id).changes === 0 && tokenId.get(token) !== id) throw new DuplicateTokenError([token]);
        insertData.run(id, blobs[i]);
        const upper = method.toUpperCase();
        hours.add([Math.floor(time / HOUR), kind, upper, status]);
        ips.add([ip, kind, upper, status]);
        urls.add([urlId, upper, status]);
        skeletonsBy.add([skeleton, upper, status]);
        const prefix = [...token].slice(0, 2).join('');
        prefixes[prefix] = (prefixes[prefix] ?? 0) + 1;
      });
      this.addCounts(hours, ips, urls, skeletonsBy);
      this.statement(
        'INSERT INTO profile_token_count (prefix, n) SELECT key, value FROM json_each(?) WHERE true ON CONFLICT (prefix) DO UPDATE SET n = n + excluded.n',
      ).run(JSON.stringify(prefixes));
      const count = this.statement('UPDATE profile_url_skeleton SET n = n + ? WHERE id = ?');
      for (const [[skeleton], n] of skeletons) count.run(n, skeleton);
    });
    if (immediate) transaction.immediate();
    else transaction();
  }

  /**
   * SQLite's verdicts on the rows themselves; BUSY, FULL, READONLY, IOERR … are the store failing. By the code, not
   * `instanceof SqliteError`: the native addon throws the class of whichever copy of the module registered last.
   */
  override isProfileError(error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    return typeof code === 'string' && /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH|RANGE)/.test(code);
  }

  async read(token: string): Promise<ProfileRecord | null> {
    const row = this.statement(
      `SELECT ${COLUMNS}, d.data FROM ${BY_TOKEN} CROSS JOIN profile_url u ON u.id = p.url_id CROSS JOIN profile_data d ON d.id = p.id WHERE t.token = ?`,
    ).get(token) as
      | (SummaryRow & { data: Buffer })
      | undefined;
    if (!row) return null;
    const { data, ...summary } = row;
    return { ...summary, data: await this.codec.decode(data) };
  }

  /**
   * Counting: the running totals answer every search by method, status and time (and by IP alone) from a few
   * thousand rows, adding the rows of the partial hours at the ends of a time range; a URL alone is counted by
   * summing its distinct matching URLs' counts; other combinations count through the indexes. Rows: the newest
   * `limit` matches, either walking the table from the newest key (when matches are common: few rows to read) or
   * through the filters' indexes (when they are rare), whichever reads fewer rows by the exact count.
   */
  async find(criteria: ProfileSearchCriteria): Promise<ProfileSearchResult> {
    this.connection();
    const compiled = compileCriteria(criteria);
    if (!compiled) return { total: 0, rows: [] };
    const url = compiled.url === null ? null : this.matchUrls(compiled.url);
    if (url?.ids?.length === 0 || (url?.skeletons && url.skeletons.all.length === 0 && url.skeletons.check.length === 0)) return { total: 0, rows: [] };
    const filters = { ...compiled, url };
    const total = this.countMatches(filters);
    const limit = Math.max(0, Math.floor(Number(criteria.limit) || 0));
    if (total === 0 || limit === 0) return { total, rows: [] };
    return { total, rows: this.newest(filters, total, limit) };
  }

  async taken(tokens: readonly string[]): Promise<Set<string>> {
    if (tokens.length === 0) return new Set();
    return new Set(this.liveTokens(tokens));
  }

  /** In write order: the table's rows through the seq index, read nearly in key order. */
  async *allTokens(): AsyncIterable<string> {
    const page = this.statement(`SELECT seq, token FROM profile WHERE seq > ? ORDER BY seq LIMIT ${TOKEN_PAGE}`).raw();
    let after = 0;
    for (;;) {
      this.connection();
      const rows = page.all(after) as [number, string][];
      for (const row of rows) yield row[1];
      if (rows.length < TOKEN_PAGE) return;
      after = rows[rows.length - 1][0];
      await yieldToEventLoop();
    }
  }

  /** By write order (`seq`, through its index); the cursor is the last seq returned. */
  async tokensSince(cursor: string | null, limit = TOKENS_SINCE_PAGE): Promise<TokensSince> {
    this.connection();
    const after = cursor === null ? 0 : Number(cursor);
    if (!Number.isSafeInteger(after)) throw new Error(`Not a cursor of this store: ${cursor}`);
    const rows = this.statement('SELECT seq, token FROM profile WHERE seq > ? ORDER BY seq LIMIT ?').all(after, Math.max(1, Math.floor(limit))) as { seq: number; token: string }[];
    return { tokens: rows.map((r) => r.token), cursor: rows.length > 0 ? String(rows[rows.length - 1].seq) : cursor };
  }

  /** Along the key from the profile's, the kind checked row by row (the next of another kind is seldom far). */
  async neighbours(token: string, kinds?: readonly ProfileKind[]): Promise<{ previous: ProfileSummary | null; next: ProfileSummary | null }> {
    const codes = kindCodes(kinds);
    if (codes?.length === 0) return { previous: null, next: null };
    // The codes are integers of KIND_CODES, written into the text: at most seven statements, each planned once.
    const ofKind = codes === null ? '' : ` AND +p.kind IN (${codes.join(', ')})`;
    const previous = this.statement(`SELECT ${COLUMNS} FROM ${FROM} WHERE p.id < ${ID_OF_TOKEN}${ofKind} ORDER BY p.id DESC LIMIT 1`).get(token);
    const next = this.statement(`SELECT ${COLUMNS} FROM ${FROM} WHERE p.id > ${ID_OF_TOKEN}${ofKind} ORDER BY p.id LIMIT 1`).get(token);
    return { previous: (previous as SummaryRow | undefined) ?? null, next: (next as SummaryRow | undefined) ?? null };
  }

  /** Through the partial index of redirected_from. */
  async redirectsFrom(token: string): Promise<ProfileSummary[]> {
    return this.statement(`SELECT ${COLUMNS} FROM ${FROM} WHERE p.redirected_from = ? ORDER BY p.id`).all(token) as SummaryRow[];
  }

  async children(token: string): Promise<ProfileSummary[]> {
    return this.statement(`SELECT ${COLUMNS} FROM ${FROM} WHERE p.parent = ? ORDER BY p.id`).all(token) as SummaryRow[];
  }

  /**
   * Deletes the oldest profiles, a chunk per transaction, each a few set-wise statements (PRUNE_CHUNK_SQL). A
   * file's chunks run in a child process (PruneWorker), about PRUNE_WORKER_SLICE_MS each, the store's writes
   * waiting for each (asynchronously); an in-memory store's run on the event loop, about PRUNE_SLICE_MS each, with
   * the event loop free between them. Either way pruning a hundred thousand profiles never blocks requests.
   */
  async prune(policy: RetentionPolicy): Promise<string[]> {
    this.connection();
    const removed: string[] = [];
    if (policy.maxAgeMs > 0) {
      const below = BigInt(clampTime(policy.now - policy.maxAgeMs)) << SEQ_BITS;
      while (await this.pruneNext(below - 1n, Number.MAX_SAFE_INTEGER, removed)) await yieldToEventLoop();
    }
    if (policy.maxProfiles > 0) {
      for (;;) {
        const excess = this.total() - policy.maxProfiles;
        if (excess <= 0 || !(await this.pruneNext(MAX_ID, excess, removed))) break;
        await yieldToEventLoop();
      }
    }
    if (removed.length > 0) await this.sweepTokens(removed.length);
    return removed;
  }

  async clear(): Promise<number> {
    await this.prunerIdle();
    const db = this.connection();
    return db.transaction(() => {
      const count = this.statement('SELECT count(*) FROM profile').pluck().get() as number;
      db.exec(`
        DELETE FROM profile;
        DELETE FROM profile_data;
        INSERT INTO profile_url_trigram (profile_url_trigram) VALUES ('delete-all');
        DELETE FROM profile_url;
        DELETE FROM profile_url_skeleton;
        DELETE FROM profile_count;
        DELETE FROM profile_ip_count;
        DELETE FROM profile_url_count;
        DELETE FROM profile_url_skeleton_count;
        DELETE FROM profile_token_count;
        DELETE FROM profile_token;
        UPDATE profile_token_stale SET n = 0;
      `);
      return count;
    })();
  }

  async count(): Promise<number> {
    this.connection();
    return this.total();
  }

  async size(): Promise<number> {
    const db = this.connection();
    if (this.options.file === ':memory:') return (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
    // Synchronous: two metadata reads of a local file take microseconds, where each of fs/promises' goes through
    // the thread pool and back. A missing WAL counts 0; any other error is the store's (stats() reports it).
    let bytes = 0;
    for (const file of [this.options.file, `${this.options.file}-wal`]) bytes += statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    return bytes;
  }

  async close(): Promise<void> {
    const db = this.db;
    if (!db) return;
    this.db = undefined;
    this.statements.clear();
    await this.pruning?.catch(() => undefined);
    await this.pruner?.stop();
    this.pruner = undefined;
    await this.checkpointer?.stop();
    this.checkpointer = undefined;
    try {
      // Bounded: a full ANALYZE of a big store would hold up the shutdown.
      db.pragma('analysis_limit = 1000');
      db.pragma('optimize');
    } finally {
      db.close();
    }
  }

  // --- internals ---------------------------------------------------------------------------------------------

  private connection(): Database.Database {
    if (!this.db) throw new Error('The SQLite profile store is not open (call open() first).');
    return this.db;
  }

  /** Prepared statements, cached by their text (all values are bound, so the texts are few). */
  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.connection().prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** The batch's blobs (ProfileCodec.encodeMany: JSON and compression, in slices of a few milliseconds). */
  private encodeAll(profiles: readonly ProfileRecord[]): Promise<Buffer[]> {
    return this.codec.encodeMany(profiles.map((profile) => profile.data ?? {}));
  }

  /** Tokens of the batch already stored, or present twice in it. */
  private duplicates(profiles: readonly ProfileRecord[]): string[] {
    const seen = new Set<string>();
    const duplicates = new Set<string>();
    for (const { token } of profiles) {
      if (seen.has(token)) duplicates.add(token);
      seen.add(token);
    }
    for (const token of this.liveTokens([...seen])) duplicates.add(token);
    return [...duplicates];
  }

  /** Those of `tokens` that a stored profile has. */
  private liveTokens(tokens: readonly string[]): string[] {
    return this.statement(`SELECT t.token FROM ${BY_TOKEN} WHERE t.token IN (SELECT value FROM json_each(?))`).pluck().all(JSON.stringify(tokens)) as string[];
  }

  /**
   * Adds a batch's running totals: each Counter is keyed by its table's key columns (hours and IPs with the kind),
   * then method in upper case and status.
   */
  private addCounts(hours: Counter, ips: Counter, urls: Counter, skeletons: Counter): void {
    const totals: [string, string, Counter][] = [
      ['profile_count', 'hour, kind', hours],
      ['profile_ip_count', 'ip, kind', ips],
      ['profile_url_count', 'url_id', urls],
      ['profile_url_skeleton_count', 'skel_id', skeletons],
    ];
    for (const [table, columns, counter] of totals) {
      const keys = `${columns}, method, status`;
      const add = this.statement(
        `INSERT INTO ${table} (${keys}, n) VALUES (${keys.split(',').map(() => '?').join(', ')}, ?) ON CONFLICT (${keys}) DO UPDATE SET n = n + excluded.n`,
      );
      for (const [key, n] of counter) add.run(...key, n);
    }
  }

  /**
   * Counts the `left` profile_token entries a prune left behind, and sweeps them once they are TOKEN_SWEEP_MIN or a
   * tenth of the store: a pass over the table in token ranges (in the worker for a file), each range's pages written
   * once, where deleting each entry with its profile wrote every page of the table in every prune chunk. (Counted
   * once per prune, not in each chunk: a count of the chunk's rows took 10 ms of a 50,000-profile chunk. Should
   * the process end between the chunks and the count, those entries are merely swept later.)
   */
  private async sweepTokens(left: number): Promise<void> {
    await this.prunerIdle();
    const stale = this.statement('UPDATE profile_token_stale SET n = n + ? RETURNING n').pluck().get(left) as number;
    if (stale < Math.max(TOKEN_SWEEP_MIN, this.total() / 10)) return;
    const pruner = this.pruner;
    for (const [i, low] of TOKEN_SWEEP_BOUNDS.entries()) {
      const high = TOKEN_SWEEP_BOUNDS[i + 1] ?? null;
      if (pruner) {
        await this.inWorker(() => pruner.sweep(low, high));
      } else {
        this.connection().transaction(() => {
          if (high !== null) return this.statement(TOKEN_SWEEP_SQL.range).run(low, high);
          this.statement(TOKEN_SWEEP_SQL.from).run(low);
          this.statement(TOKEN_SWEEP_SQL.done).run();
        })();
        await yieldToEventLoop();
      }
    }
  }

  /** The worker's task, once no other is under way; the store's writes wait for it meanwhile. */
  private async inWorker<T>(start: () => Promise<T>): Promise<T> {
    await this.prunerIdle();
    const task = start();
    this.pruning = task;
    try {
      return await task;
    } finally {
      if (this.pruning === task) this.pruning = null;
    }
  }

  /** Resolves when no prune chunk is under way in the worker. */
  private async prunerIdle(): Promise<void> {
    while (this.pruning) await this.pruning.catch(() => undefined);
  }

  /** Deletes one chunk (in the worker for a file): the oldest profiles up to key `maxId`, at most `atMost`; false when there was none. */
  private async pruneNext(maxId: bigint, atMost: number, removed: string[]): Promise<boolean> {
    const pruner = this.pruner;
    if (!pruner) return this.pruneSlice(maxId, atMost, removed);
    const { tokens, count, ms } = await this.inWorker(() => pruner.chunk(maxId, Math.min(this.workerChunk, atMost)));
    if (count > 0 && ms > 0) {
      this.workerChunk = Math.max(100, Math.min(2 * this.workerChunk, PRUNE_WORKER_CHUNK_MAX, Math.round((this.workerChunk * PRUNE_WORKER_SLICE_MS) / ms)));
    }
    // The store's writes need not wait for the tokens' split.
    await appendLines(tokens, removed);
    return count > 0;
  }

  /** Deletes one chunk on the event loop: the oldest profiles up to key `maxId`, at most `atMost`; false when there was none. */
  private pruneSlice(maxId: bigint, atMost: number, removed: string[]): boolean {
    const started = performance.now();
    const done = this.connection().transaction(() => {
      this.statement('DELETE FROM temp.profile_gone').run();
      const taken = this.statement(PRUNE_TAKE_SQL).run(maxId, Math.min(this.pruneChunk, atMost)).changes;
      if (taken === 0) return false;
      for (const sql of PRUNE_CHUNK_SQL) this.statement(sql).run();
      for (const token of this.statement('SELECT token FROM temp.profile_gone ORDER BY id').pluck().iterate() as IterableIterator<string>) removed.push(token);
      return true;
    })();
    const elapsed = performance.now() - started;
    if (done && elapsed > 0) {
      // At most doubling: one quick slice (pages already cached) must not make the next one long.
      this.pruneChunk = Math.max(20, Math.min(2 * this.pruneChunk, PRUNE_CHUNK_MAX, Math.round((this.pruneChunk * PRUNE_SLICE_MS) / elapsed)));
    }
    return done;
  }

  private total(): number {
    return this.statement('SELECT coalesce(sum(n), 0) FROM profile_count').pluck().get() as number;
  }

  // --- search ------------------------------------------------------------------------------------------------

  /**
   * The URLs containing `needle`, exactly what LIKE '%needle%' matches, found the cheapest way:
   * - a needle without digits (nor '#') is in a URL exactly when it is in its skeleton: the matching skeletons,
   *   by LIKE over the few thousand of them;
   * - a needle with digits, through the skeletons: those containing the needle itself (digits kept in the host
   *   part) match whole, those that may hold it once their '#'s are digits are checked URL by URL
   *   (SkeletonMatcher), the others cannot match. When the URLs to check are many (`orders/42`: every order
   *   page may), the trigrams give the ids of its distinct URLs instead if at most URL_IDS_MAX have it;
   * - a needle with '#': its distinct URLs' ids through the trigrams if few, else LIKE over the distinct URLs.
   */
  private matchUrls(needle: string): UrlMatch {
    const like = `%${escapeLike(needle)}%`;
    if (!needle.includes('#') && !/[0-9]/.test(needle)) {
      const rows = this.statement(`SELECT id, n FROM profile_url_skeleton WHERE skeleton LIKE ? ESCAPE '\\'`).raw().all(like) as [number, number][];
      return { like, ids: null, skeletons: { all: rows.map((r) => r[0]), allProfiles: rows.reduce((sum, r) => sum + r[1], 0), check: [], checkProfiles: 0 } };
    }
    if (needle.includes('#')) return { like, ids: this.trigramIds(needle), skeletons: null };
    const matcher = new SkeletonMatcher(needle);
    const skeletons = { all: [] as number[], allProfiles: 0, check: [] as number[], checkProfiles: 0 };
    for (const [id, skeleton, n] of this.statement('SELECT id, skeleton, n FROM profile_url_skeleton').raw().iterate() as IterableIterator<[number, string, number]>) {
      const match = matcher.match(skeleton);
      if (match === 'all') {
        skeletons.all.push(id);
        skeletons.allProfiles += n;
      } else if (match === 'some') {
        skeletons.check.push(id);
        skeletons.checkProfiles += n;
      }
    }
    if (skeletons.checkProfiles > SKELETON_CHECK_MAX) {
      const ids = this.trigramIds(needle);
      if (ids) return { like, ids, skeletons: null };
    }
    return { like, ids: null, skeletons };
  }

  /** The ids of the distinct URLs containing `needle` (3 characters or more), through the trigrams; null if more than URL_IDS_MAX. */
  private trigramIds(needle: string): number[] | null {
    if ([...needle].length < 3) return null;
    const found = this.statement(`SELECT rowid FROM profile_url_trigram WHERE profile_url_trigram MATCH '"' || replace(lower(?), '"', '""') || '"' LIMIT ${URL_IDS_MAX + 1}`)
      .pluck()
      .all(needle) as number[];
    return found.length <= URL_IDS_MAX ? found : null;
  }

  /**
   * The hours' and the IPs' totals count per kind too; the token prefixes', URLs' and skeletons' do not, so a
   * search by token or URL with `kinds` is counted through the indexes (the search page makes those with every kind).
   */
  private countMatches(f: Filters): number {
    const others = f.ip !== null || f.method !== null || f.status !== null || f.token !== null;
    const everyKind = f.kinds === null;
    if (f.ip === null && f.url === null && f.token === null) return this.countByTotals(f, f.fromTime, f.toTime);
    if (f.ip !== null && f.url === null && f.token === null && !f.timeBounded) {
      // An IP, with a method, a status or kinds or none: from its running totals.
      const [sql, params] = rangeCondition('ip', f.ip);
      const [also, more] = totalsConditions(f, '', true);
      return this.statement(`SELECT coalesce(sum(n), 0) FROM profile_ip_count WHERE ${sql} AND ${also}`).pluck().get(...params, ...more) as number;
    }
    if (!everyKind) return this.countThroughIndexes(f);
    if (f.token !== null && [...f.token[0]].length <= 2 && f.ip === null && f.method === null && f.status === null && f.url === null && !f.timeBounded) {
      const [sql, params] = rangeCondition('prefix', f.token);
      return this.statement(`SELECT coalesce(sum(n), 0) FROM profile_token_count WHERE ${sql}`).pluck().get(...params) as number;
    }
    if (f.url !== null && !others && !f.timeBounded) {
      if (f.url.skeletons) {
        const { allProfiles, check } = f.url.skeletons;
        if (check.length === 0) return allProfiles;
        return (
          allProfiles
          + (this.statement(`SELECT coalesce(sum(n), 0) FROM profile_url WHERE skel_id IN (SELECT value FROM json_each(?)) AND url LIKE ? ESCAPE '\\'`)
            .pluck()
            .get(JSON.stringify(check), f.url.like) as number)
        );
      }
      return (
        f.url.ids
          ? this.statement('SELECT coalesce(sum(n), 0) FROM profile_url WHERE id IN (SELECT value FROM json_each(?))').pluck().get(JSON.stringify(f.url.ids))
          : this.statement(`SELECT coalesce(sum(n), 0) FROM profile_url WHERE url LIKE ? ESCAPE '\\'`).pluck().get(f.url.like)
      ) as number;
    }
    // A URL with a method, a status or both (alone it is counted above): from its running totals.
    if (!f.timeBounded && f.token === null && f.ip === null && f.url !== null) return this.countUrlTotals(f.url, f);
    return this.countThroughIndexes(f);
  }

  /** Counts the matches row by row: over the time range when it holds few profiles, else through the filters' indexes. */
  private countThroughIndexes(f: Filters): number {
    const inRange = f.timeBounded ? this.rowsInRange(f) : Infinity;
    const [where, params] = inRange <= RANGE_COUNT_MAX ? conditions(f, 'range', f.fromId, f.toId) : conditions(f, 'index', f.fromId, f.toId, this.driver(f));
    return this.statement(`SELECT count(*) FROM profile p WHERE ${where}`).pluck().get(...params) as number;
  }

  /** The profiles in the criteria's time range, whatever the other filters: the rows a walk over the range may read. */
  private rowsInRange(f: Filters): number {
    return this.countByTotals({ ...f, ip: null, method: null, status: null, url: null, token: null, kinds: null }, f.fromTime, f.toTime);
  }

  /** Matches of a URL needle with a method and/or a status, from the totals per skeleton and per distinct URL. */
  private countUrlTotals(url: UrlMatch, f: Filters): number {
    const [also, more] = totalsConditions(f, '');
    const [joined, joinedMore] = totalsConditions(f, 'c.');
    const sum = (sql: string, ...params: unknown[]) => this.statement(sql).pluck().get(...params) as number;
    const byUrl = (where: string, ...params: unknown[]) =>
      sum(`SELECT coalesce(sum(c.n), 0) FROM profile_url u CROSS JOIN profile_url_count c ON c.url_id = u.id WHERE ${where} AND ${joined}`, ...params, ...joinedMore);
    if (url.skeletons) {
      const { all, check } = url.skeletons;
      let n = 0;
      if (all.length > 0) {
        n += sum(`SELECT coalesce(sum(n), 0) FROM profile_url_skeleton_count WHERE skel_id IN (SELECT value FROM json_each(?)) AND ${also}`, JSON.stringify(all), ...more);
      }
      if (check.length > 0) n += byUrl(`u.skel_id IN (SELECT value FROM json_each(?)) AND u.url LIKE ? ESCAPE '\\'`, JSON.stringify(check), url.like);
      return n;
    }
    if (url.ids) return sum(`SELECT coalesce(sum(n), 0) FROM profile_url_count WHERE url_id IN (SELECT value FROM json_each(?)) AND ${also}`, JSON.stringify(url.ids), ...more);
    return byUrl(`u.url LIKE ? ESCAPE '\\'`, url.like);
  }

  /**
   * For a combination of filters searched through the indexes: the filter matching the fewest profiles (known
   * from the running totals and URL counts), whose index then drives the query, the others checked row by row.
   * SQLite alone would often pick the index of a common value. Null for a single filter.
   */
  private driver(f: Filters): Driver | null {
    const estimates: [Driver, number][] = [];
    // Index entries each would read: of every kind (kinds are checked row by row).
    const none = { ip: null, url: null, token: null, method: null, status: null, kinds: null };
    if (f.ip !== null) {
      const [sql, params] = rangeCondition('ip', f.ip);
      estimates.push(['ip', this.statement(`SELECT coalesce(sum(n), 0) FROM profile_ip_count WHERE ${sql}`).pluck().get(...params) as number]);
    }
    if (f.method !== null) estimates.push(['method', this.countByTotals({ ...f, ...none, method: f.method }, 0, MAX_TIME)]);
    if (f.status !== null) estimates.push(['status', this.countByTotals({ ...f, ...none, status: f.status }, 0, MAX_TIME)]);
    if (f.token !== null) estimates.push(['token', this.total() / 16 ** f.token[0].length]);
    if (f.url !== null) {
      const { ids, skeletons } = f.url;
      const n = ids
        ? (this.statement('SELECT coalesce(sum(n), 0) FROM profile_url WHERE id IN (SELECT value FROM json_each(?))').pluck().get(JSON.stringify(ids)) as number)
        : skeletons
          ? skeletons.allProfiles + skeletons.checkProfiles
          : Infinity;
      estimates.push(['url', n]);
    }
    if (estimates.length < 2) return null;
    return estimates.reduce((best, e) => (e[1] < best[1] ? e : best))[0];
  }

  /** Matches by method, status and time, from the hourly totals plus the rows of the partial hours at the ends. */
  private countByTotals(f: Filters, from: number, to: number): number {
    const firstHour = Math.ceil(from / HOUR);
    const lastHour = Math.floor((to + 1) / HOUR) - 1;
    const exact = (a: number, b: number): number => {
      if (a > b) return 0;
      const [where, params] = conditions(f, 'range', BigInt(a) << SEQ_BITS, ((BigInt(b) + 1n) << SEQ_BITS) - 1n);
      return this.statement(`SELECT count(*) FROM profile p WHERE ${where}`).pluck().get(...params) as number;
    };
    if (firstHour > lastHour) return exact(from, to);
    const [also, more] = totalsConditions(f, '', true);
    const full = this.statement(`SELECT coalesce(sum(n), 0) FROM profile_count WHERE hour BETWEEN ? AND ? AND ${also}`).pluck().get(firstHour, lastHour, ...more) as number;
    return full + exact(from, firstHour * HOUR - 1) + exact((lastHour + 1) * HOUR, to);
  }

  private newest(f: Filters, total: number, limit: number): SummaryRow[] {
    const select = (where: string, params: unknown[]) =>
      this.statement(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY p.id DESC LIMIT ?`).all(...params, limit) as SummaryRow[];
    if (f.ip === null && f.method === null && f.status === null && f.url === null && f.token === null) {
      // No filter with an index (kinds at most, checked row by row): the key range from its newest end, as far as
      // it takes to find `limit` matches, however rare they are among the newest.
      return select(...conditions(f, 'range', f.fromId, f.toId));
    }
    // Walking the table from the newest key reads about limit × inRange / total rows, cheap ones (the table is
    // in key order); seeking reads `total` index entries and as many rows, then sorts them.
    const inRange = f.timeBounded ? this.rowsInRange(f) : this.total();
    const expectedWalk = (limit * inRange) / total;
    if (expectedWalk * WALK_ROW_COST <= total) {
      const budget = Math.ceil(4 * expectedWalk) + 1000;
      const floor = this.statement('SELECT id FROM profile WHERE id <= ? ORDER BY id DESC LIMIT 1 OFFSET ?').safeIntegers(true).pluck().get(f.toId, budget) as
        | bigint
        | undefined;
      const from = floor !== undefined && floor > f.fromId ? floor : f.fromId;
      const rows = select(...conditions(f, 'walk', from, f.toId));
      // Done if enough were found, or if the walk covered the whole range (then these are all there are).
      // Otherwise the matches are rarer among the newest than overall: seek them.
      if (rows.length === limit || from === f.fromId) return rows;
    }
    if (f.timeBounded && inRange <= 4 * total + 2000) return select(...conditions(f, 'range', f.fromId, f.toId));
    return select(...conditions(f, 'index', f.fromId, f.toId, this.driver(f)));
  }
}

/** A profiler page's URL (the migration to version 6). */
const PROFILER_URL = new RegExp(PROFILER_URL_PATTERN);
/** A URL needle found in at most this many distinct URLs is searched through their ids. */
const URL_IDS_MAX = 1000;
/** A needle with digits whose skeletons leave more profiles than this to check URL by URL tries the trigrams first. */
const SKELETON_CHECK_MAX = 20_000;
/** Tokens read per query by allTokens(). */
const TOKEN_PAGE = 20_000;
/** Target duration of one prune transaction, in milliseconds. */
const PRUNE_SLICE_MS = 8;
/** Target duration of one prune transaction in the worker, in milliseconds (the store's writes wait that long at most). */
const PRUNE_WORKER_SLICE_MS = 1500;
/** Most profiles deleted in one prune transaction. */
const PRUNE_CHUNK_MAX = 100_000;
/**
 * Most profiles deleted in one transaction of the prune worker. Each chunk writes back every page of the IP and URL
 * indexes it touched, which are nearly all of them: 100,000 of a million profiles in two chunks wrote 182 MB to the
 * WAL against 279 MB in five, and took 1.9-2.1 s against 2.4-2.8. The store's writes wait for a chunk (about a
 * second here); its tokens come back as one string, split on the event loop a slice at a time (appendLines).
 */
const PRUNE_WORKER_CHUNK_MAX = 50_000;
/** Characters of a prune chunk's tokens split at a time: about 5,000 tokens of six characters. */
const TOKEN_SLICE_CHARS = 35_000;
/** The largest key. */
const MAX_ID = (1n << 63n) - 1n;
/**
 * The running totals per key × method × status (schema version 4; the IPs' per kind too, version 6): table, and
 * the columns of temp.profile_gone it counts by before method and status. A prune chunk lowers each with the
 * same two statements.
 */
const KEY_TOTALS = [
  ['profile_ip_count', ['ip', 'kind']],
  ['profile_url_count', ['url_id']],
  ['profile_url_skeleton_count', ['skel_id']],
] as const;

/**
 * A prune chunk: the profiles going (the oldest, consecutive keys) are first copied into the temporary table
 * profile_gone, with their URL's skeleton; then every running total, URL and skeleton count is lowered by one
 * grouped statement each, the URLs and skeletons no profile has any more leave (the URLs their trigram index
 * too), and the profiles and their data are deleted as one key range.
 */
const PRUNE_SETUP_SQL = `
  CREATE TEMP TABLE IF NOT EXISTS profile_gone (
    id INTEGER PRIMARY KEY, token TEXT, ip TEXT, kind INTEGER, method TEXT COLLATE NOCASE, url_id INTEGER, skel_id INTEGER, status INTEGER, time INTEGER
  )`;
const PRUNE_TAKE_SQL = `
  INSERT INTO temp.profile_gone (id, token, ip, kind, method, url_id, skel_id, status, time)
  SELECT p.id, p.token, p.ip, p.kind, p.method, p.url_id, u.skel_id, p.status, p.time
  FROM profile p CROSS JOIN profile_url u ON u.id = p.url_id
  WHERE p.id <= ? ORDER BY p.id LIMIT ?`;
const PRUNE_CHUNK_SQL = [
  `UPDATE profile_count SET n = n - g.k
   FROM (SELECT time / ${HOUR} AS hour, kind, method, status, count(*) AS k FROM temp.profile_gone GROUP BY 1, 2, 3, 4) AS g
   WHERE profile_count.hour = g.hour AND profile_count.kind = g.kind AND profile_count.method = g.method AND profile_count.status = g.status`,
  `DELETE FROM profile_count WHERE n <= 0
   AND hour BETWEEN (SELECT min(time) / ${HOUR} FROM temp.profile_gone) AND (SELECT max(time) / ${HOUR} FROM temp.profile_gone)`,
  ...KEY_TOTALS.flatMap(([table, columns]) => {
    const keys = [...columns, 'method', 'status'];
    return [
      `UPDATE ${table} SET n = n - g.k
       FROM (SELECT ${keys.join(', ')}, count(*) AS k FROM temp.profile_gone GROUP BY ${keys.map((_, i) => i + 1).join(', ')}) AS g
       WHERE ${keys.map((key) => `${table}.${key} = g.${key}`).join(' AND ')}`,
      `DELETE FROM ${table} WHERE ${columns[0]} IN (SELECT ${columns[0]} FROM temp.profile_gone) AND n <= 0`,
    ];
  }),
  `UPDATE profile_token_count SET n = n - g.k
   FROM (SELECT substr(token, 1, 2) AS prefix, count(*) AS k FROM temp.profile_gone GROUP BY 1) AS g WHERE profile_token_count.prefix = g.prefix`,
  'DELETE FROM profile_token_count WHERE n <= 0',
  'UPDATE profile_url SET n = n - g.k FROM (SELECT url_id, count(*) AS k FROM temp.profile_gone GROUP BY url_id) AS g WHERE profile_url.id = g.url_id',
  `UPDATE profile_url_skeleton SET n = n - g.k
   FROM (SELECT skel_id, count(*) AS k FROM temp.profile_gone GROUP BY skel_id) AS g WHERE profile_url_skeleton.id = g.skel_id`,
  `INSERT INTO profile_url_trigram (profile_url_trigram, rowid, folded)
   SELECT 'delete', id, lower(url) FROM profile_url WHERE id IN (SELECT url_id FROM temp.profile_gone) AND n <= 0`,
  'DELETE FROM profile_url WHERE id IN (SELECT url_id FROM temp.profile_gone) AND n <= 0',
  'DELETE FROM profile_url_skeleton WHERE id IN (SELECT skel_id FROM temp.profile_gone) AND n <= 0',
  'DELETE FROM profile WHERE id BETWEEN (SELECT min(id) FROM temp.profile_gone) AND (SELECT max(id) FROM temp.profile_gone)',
  'DELETE FROM profile_data WHERE id BETWEEN (SELECT min(id) FROM temp.profile_gone) AND (SELECT max(id) FROM temp.profile_gone)',
];
/**
 * Deletes the profile_token entries of pruned profiles in a range of tokens (one transaction per range, each
 * touching only its part of the table): pruning takes the oldest keys, so an entry below the oldest key left is
 * stale. (An entry can also be stale above it, its key reused or a late profile written below: it matches
 * nothing, and goes once pruning passes its key.) The last range, unbounded above, resets the count.
 */
const STALE_TOKEN = `id < (SELECT coalesce(min(id), ${MAX_ID}) FROM profile)`;
const TOKEN_SWEEP_SQL = {
  range: `DELETE FROM profile_token WHERE token >= ? AND token < ? AND ${STALE_TOKEN}`,
  from: `DELETE FROM profile_token WHERE token >= ? AND ${STALE_TOKEN}`,
  done: 'UPDATE profile_token_stale SET n = 0',
};
/** The lower bounds of the sweep's ranges of tokens (hex tokens spread evenly over them; any other string falls in one). */
const TOKEN_SWEEP_BOUNDS = ['', ...'123456789abcdef'];
/** A sweep runs once this many entries are stale, or a tenth of the stored profiles if more. */
const TOKEN_SWEEP_MIN = 1000;
/**
 * The method and status conditions of the filters on a running totals table (`alias` its prefix), and the kinds'
 * for a table counting per kind (`perKind`); '1' for none.
 */
function totalsConditions(f: { method: string | null; status: [number, number] | null; kinds: number[] | null }, alias: string, perKind = false): [string, unknown[]] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (perKind && f.kinds !== null) where.push(`${alias}kind IN (${f.kinds.join(', ')})`);
  if (f.method !== null) {
    where.push(`${alias}method = ?`);
    params.push(f.method);
  }
  if (f.status !== null) {
    where.push(`${alias}status BETWEEN ? AND ?`);
    params.push(f.status[0], f.status[1]);
  }
  return [where.length > 0 ? where.join(' AND ') : '1', params];
}

/** Reading the next row of a walk costs about this fraction of a match sought through an index (measured). */
const WALK_ROW_COST = 0.25;
/** A combination of filters with a time range holding at most this many profiles is counted over that range. */
const RANGE_COUNT_MAX = 50_000;

function migrate(db: Database.Database, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new Error(`The profile store has schema version ${version}, newer than this application's (${SCHEMA_VERSION}): use a newer version or another file.`);
  }
  if (version === SCHEMA_VERSION) return;
  try {
    db.transaction(() => {
      for (let v = version; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    })();
  } catch (error) {
    // Rolled back: the file is as it was. SQLite's plain SQLITE_ERROR here means its tables are not those of the
    // version it claims (another application's); a full disk, a locked or unreadable file are said as they are.
    if ((error as { code?: unknown }).code !== 'SQLITE_ERROR') throw error;
    throw new Error(
      `${file} is not a profile store of version ${version} (migrating it to version ${SCHEMA_VERSION} failed: ${(error as Error).message}): `
        + 'point PROFILER_DSN to another file, or delete this one if it only holds profiles.',
    );
  }
}

/** The columns each table of the current schema has (those queries name). */
const LAYOUT: Record<string, string[]> = {
  profile: ['id', 'token', 'parent', 'ip', 'method', 'url_id', 'time', 'status', 'seq', 'kind', 'duration', 'route', 'redirected_from'],
  profile_url: ['id', 'url', 'n', 'skel_id'],
  profile_url_skeleton: ['id', 'skeleton', 'n'],
  profile_data: ['id', 'data'],
  profile_count: ['hour', 'kind', 'method', 'status', 'n'],
  profile_ip_count: ['ip', 'kind', 'method', 'status', 'n'],
  profile_url_count: ['url_id', 'method', 'status', 'n'],
  profile_url_skeleton_count: ['skel_id', 'method', 'status', 'n'],
  profile_token_count: ['prefix', 'n'],
  profile_token: ['token', 'id'],
  profile_token_stale: ['n'],
  profile_write: ['last'],
  profile_url_trigram: ['folded'],
};

/** A clear error for a file whose tables are not this schema's (another application's, or a development build's). */
function checkLayout(db: Database.Database, file: string): void {
  for (const [table, columns] of Object.entries(LAYOUT)) {
    const present = new Set((db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[]));
    const missing = columns.filter((column) => !present.has(column));
    if (missing.length > 0) {
      throw new Error(
        `${file} is not a profile store of this version (table ${table} lacks ${missing.join(', ')}): `
          + 'point PROFILER_DSN to another file, or delete this one if it only holds profiles.',
      );
    }
  }
}

/** Search criteria as bounds and conditions; null when nothing can match. */
function compileCriteria(criteria: ProfileSearchCriteria) {
  const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
  const ipPrefix = text(criteria.ip);
  const method = text(criteria.method);
  const statusPrefix = text(criteria.statusCode);
  const needle = typeof criteria.url === 'string' && criteria.url !== '' ? criteria.url : null;
  const tokenPrefix = text(criteria.token)?.toLowerCase() ?? null;
  let status: [number, number] | null = null;
  if (statusPrefix !== null) {
    if (!/^\d{1,3}$/.test(statusPrefix)) return null;
    const scale = 10 ** (3 - statusPrefix.length);
    status = [Number(statusPrefix) * scale, Number(statusPrefix) * scale + scale - 1];
  }
  const start = typeof criteria.start === 'number' && Number.isFinite(criteria.start) ? criteria.start : null;
  const end = typeof criteria.end === 'number' && Number.isFinite(criteria.end) ? criteria.end : null;
  const fromTime = start === null ? 0 : Math.ceil(start);
  const toTime = end === null ? MAX_TIME : Math.floor(end);
  if (fromTime > MAX_TIME || toTime < 0 || fromTime > toTime) return null;
  const from = Math.max(0, fromTime);
  const to = Math.min(MAX_TIME, toTime);
  const kinds = kindCodes(criteria.kinds);
  if (kinds?.length === 0) return null;
  return {
    ip: ipPrefix === null ? null : prefixRange(ipPrefix),
    method,
    status,
    url: needle,
    token: tokenPrefix === null ? null : prefixRange(tokenPrefix),
    /** The kinds' codes (null: every kind). */
    kinds,
    timeBounded: start !== null || end !== null,
    fromTime: from,
    toTime: to,
    fromId: BigInt(from) << SEQ_BITS,
    toId: ((BigInt(to) + 1n) << SEQ_BITS) - 1n,
  };
}

/**
 * The WHERE clause of a search between two keys, written so that SQLite drives the query the chosen way: `walk`
 * and `range` through the table's key range, checking the other conditions row by row (hidden from the indexes
 * by a unary +); `index` through the filters' indexes (the key range hidden), for rare matches: only the
 * `driver`'s index when one is given (the others hidden too), else SQLite picks. `walk` is only
 * used in a SELECT that joins the profile's URL (u).
 */
function conditions(f: Filters, mode: 'walk' | 'range' | 'index', fromId: bigint, toId: bigint, driver: Driver | null = null): [string, unknown[]] {
  const indexed = (key: Driver) => mode === 'index' && (driver === null || driver === key);
  const col = (key: Driver, name: string = key) => (indexed(key) ? `p.${name}` : `+p.${name}`);
  const where = [mode === 'index' ? '+p.id BETWEEN ? AND ?' : 'p.id BETWEEN ? AND ?'];
  const params: unknown[] = [fromId, toId];
  const add = ([sql, values]: [string, unknown[]]) => {
    where.push(sql);
    params.push(...values);
  };
  if (f.ip !== null) add(rangeCondition(col('ip'), f.ip));
  // Never through an index (there is none): checked row by row. The codes are KIND_CODES' integers, in the text.
  if (f.kinds !== null) add([`+p.kind IN (${f.kinds.join(', ')})`, []]);
  if (f.method !== null) add([`${col('method')} = ?`, [f.method]]);
  if (f.status !== null) add([`${col('status')} BETWEEN ? AND ?`, f.status]);
  if (f.token !== null) {
    // Through profile_token, whose entries of pruned profiles point to no row or another token's: the row checked.
    if (indexed('token')) add(prefixed('p.id IN (SELECT id FROM profile_token WHERE ', rangeCondition('token', f.token), ')'));
    add(rangeCondition('+p.token', f.token));
  }
  if (f.url?.ids) add([`${col('url', 'url_id')} IN (SELECT value FROM json_each(?))`, [JSON.stringify(f.url.ids)]]);
  else if (f.url?.skeletons && indexed('url')) {
    const { all, check } = f.url.skeletons;
    add([
      `p.url_id IN (SELECT id FROM profile_url WHERE skel_id IN (SELECT value FROM json_each(?))
                    UNION ALL SELECT id FROM profile_url WHERE skel_id IN (SELECT value FROM json_each(?)) AND url LIKE ? ESCAPE '\\')`,
      [JSON.stringify(all), JSON.stringify(check), f.url.like],
    ]);
  } else if (f.url?.skeletons && mode !== 'walk') {
    // Row by row: the profile's URL's skeleton among those matching whole, or among the others and the URL matching.
    const { all, check } = f.url.skeletons;
    add([
      `EXISTS (SELECT 1 FROM profile_url x WHERE x.id = p.url_id
                 AND (x.skel_id IN (SELECT value FROM json_each(?)) OR (x.skel_id IN (SELECT value FROM json_each(?)) AND x.url LIKE ? ESCAPE '\\')))`,
      [JSON.stringify(all), JSON.stringify(check), f.url.like],
    ]);
  }
  else if (f.url && mode === 'walk') add([`u.url LIKE ? ESCAPE '\\'`, [f.url.like]]);
  else if (f.url) add([`${col('url', 'url_id')} IN (SELECT id FROM profile_url WHERE url LIKE ? ESCAPE '\\')`, [f.url.like]]);
  return [where.join(' AND '), params];
}

/**
 * Appends the lines of `text` to `list` (none for ''), about TOKEN_SLICE_CHARS at a time with the event loop free between:
 * a prune chunk's tens of thousands of tokens are not split and pushed in one go.
 */
export async function appendLines(text: string, list: string[]): Promise<void> {
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', Math.min(text.length, at + TOKEN_SLICE_CHARS));
    if (end === -1) end = text.length;
    for (const line of text.slice(at, end).split('\n')) list.push(line);
    at = end + 1;
    if (at < text.length) await yieldToEventLoop();
  }
}

/** A condition wrapped in text before and after. */
function prefixed(before: string, [sql, params]: [string, unknown[]], after: string): [string, unknown[]] {
  return [`${before}${sql}${after}`, params];
}

/** `column >= low AND column < high`: every string starting with the prefix (`high` null: no upper bound). */
function rangeCondition(column: string, [low, high]: [string, string | null]): [string, unknown[]] {
  return high === null ? [`${column} >= ?`, [low]] : [`${column} >= ? AND ${column} < ?`, [low, high]];
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Counts by a composite key (kept as the tuple it was first seen with). */
class Counter implements Iterable<[(string | number)[], number]> {
  private readonly counts = new Map<string, [(string | number)[], number]>();

  add(key: (string | number)[], n = 1): void {
    const id = key.join('\u0000');
    const entry = this.counts.get(id);
    if (entry) entry[1] += n;
    else this.counts.set(id, [key, n]);
  }

  [Symbol.iterator](): Iterator<[(string | number)[], number]> {
    return this.counts.values();
  }
}
