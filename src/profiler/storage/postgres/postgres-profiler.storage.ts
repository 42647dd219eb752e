import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ProfileCodec } from '../profile-codec.js';
import type { ProfileKind, ProfileRecord, ProfileSearchCriteria, ProfileSearchResult, ProfileSummary, RetentionPolicy } from '../profile-record.js';
import { DuplicateTokenError, ProfilerStorage, TOKENS_SINCE_PAGE, type TokensSince } from '../profiler-storage.js';
import { ProfilerStorageOpenError } from '../profiler-storage-open.error.js';
import { retryWhenAborted } from './deadlock-retry.js';
import { maskDsn } from './postgres-dsn.js';
import { MAX_TIME, prefixRange, escapeLike, clampTime, kindCode, kindCodes, kindName, cleanDuration, optionalText, PROFILER_URL_PATTERN } from '../search-helpers.js';
import { SkeletonMatcher } from '../url-skeleton.js';

/** Where the store's warnings go (a lost idle connection, no trigram index): Nest's Logger by default. */
export interface PostgresStorageLogger {
  warn(message: string): void;
}

export interface PostgresProfilerStorageOptions {
  /** A pg connection string (`postgres://user:password@host:port/db?sslmode=…`), without the schema. */
  connectionString: string;
  /** The schema holding the store's tables (created if missing). Default `public`. */
  schema?: string;
  /** Connections of the pool. Default 5. */
  poolSize?: number;
  /**
   * A query that gets no answer for this long (milliseconds) fails and its connection is dropped. Default
   * 30,000. A server that vanished without closing the connections (a network partition, a paused VM) would
   * otherwise hold a write, and every profile queued behind it, for ever. pg's `?query_timeout=` in the DSN wins.
   */
  queryTimeoutMs?: number;
  /**
   * Index URL substrings with pg_trgm (created with `CREATE EXTENSION IF NOT EXISTS pg_trgm` when missing).
   * Default true; without it, or when the extension cannot be created, a URL search scans the profiles.
   */
  trigramIndex?: boolean;
  logger?: PostgresStorageLogger;
}

/** The most profiles findUrl reads by their URLs (and so the most URLs countUrl hands back). */
const EXACT_LIST_MAX = 5000;
/** Up to this many profiles in the skeletons that may hold a needle, countUrl checks their URLs one by one. */
const CHECK_BY_SKELETON_MAX = 5000;
/**
 * Rows deleted per prune statement, each its own transaction: 100,000 of a million pruned in about a tenth less
 * time than by 2,000 (a commit, a plan and a round trip fewer per 5,000), a writer waiting at most a chunk's
 * 100–140 ms for the totals' rows it shares.
 */
const PRUNE_CHUNK = 5000;
/** Tokens read per query by allTokens(). */
const TOKEN_PAGE = 20_000;
/** The advisory lock serialising schema creation, database-wide (pg_trgm is too): "PROFSCHM". */
const SCHEMA_LOCK = '5787213827590357837';
const INT4_MAX = 2 ** 31 - 1;
/**
 * A reservation never written (its instance crashed, or kept it past RESERVATION_MAX_AGE_MS) is removed by
 * prune() after this long: far beyond the hour an instance may keep an unused reservation (TokenReservations) and
 * the time a profile waits in the write buffer, so a reservation still about to be written is never removed.
 */
const ABANDONED_RESERVATION = '1 day';

/**
 * The running totals' pages are kept this full (percent) as they are filled: the updates of a count then find room
 * on its page, and PostgreSQL writes them without touching the indexes (heap-only tuples).
 */
const TOTALS_FILLFACTOR = 70;
/** The running totals' time unit: an hour of milliseconds. */
const HOUR = 3_600_000;
/** A profile's method as the totals count it and its search compares it: upper() of a "C" text, ASCII letters folded. */
const TOTALS_METHOD = `upper(method COLLATE "C")`;
/** Joined into a totals CTE, makes it read the whole output of CTE `cte` first (see addToTotals). */
const afterCte = (cte: string) => `CROSS JOIN (SELECT count(*) FROM ${cte}) AS after_${cte}`;

/** pg's type ids of what would otherwise come back as strings. */
const PG_INT8 = 20;

/** A row of COLUMNS (a mapped type: pg wants rows with an index signature, which an interface lacks). */
type SummaryRow = { [K in keyof ProfileSummary]: ProfileSummary[K] };

/**
 * The profile store for several instances: one PostgreSQL database (through a pg Pool) that every instance of
 * the application writes to and searches, so a profile recorded behind a load balancer opens from any instance.
 *
 * Tables (in the DSN's schema): `profiler_profile` (the list columns; `id` is an identity, so time then id is the
 * list order, equal times in write order) and `profiler_profile_data` (one ProfileCodec blob per profile, read
 * only by read()). Token uniqueness is the database's (a UNIQUE constraint, across instances); a write is one
 * transaction (`INSERT … ON CONFLICT (token) DO NOTHING`, rolled back with a DuplicateTokenError when a token was
 * taken). Searches are SQL over indexes on time, IP, method, status, token and parent, and a pg_trgm GIN index
 * for the URL substring (ILIKE on a "C"-collated column: ASCII letters fold, as LIKE does in SQLite). Retention
 * deletes in chunks of PRUNE_CHUNK rows, `FOR UPDATE SKIP LOCKED`, so every instance may prune at once.
 *
 * Tokens are reserved before they are sent: `profiler_token` holds the tokens reserved and not yet written, each
 * by one instance (`owner`, a random id per store object); a stored token is the profile's (its unique token).
 * A token is reserved (`reserveTokens`) only if no row has it (the primary key) and no profile has it (checked
 * after the insert, see there); a write claims its tokens in its transaction (this owner's reservations deleted,
 * other tokens held by a row until it commits), so a token reserved by one instance is never written by another.
 * Unwritten reservations go back on close(), and prune() removes those abandoned for ABANDONED_RESERVATION (a
 * crashed instance's).
 *
 * Counting the matches of a search ("N results found") through an index reads every match: at a million
 * profiles, 25 ms for all of them and 60 for a common method. So, as the SQLite store does, running totals
 * answer the searches the search page makes: per hour × kind × method × status (`profiler_kind_count`: no filter,
 * a method, a status, a time range, with the rows of the partial hours at a range's ends counted from the time
 * index), per IP × kind × method × status (`profiler_ip_kind_count`), per distinct URL and per URL skeleton (`profiler_url_count`,
 * `profiler_skeleton_count`: a URL substring, see url-skeleton.ts), and per URL skeleton × method × status
 * (`profiler_skeleton_status_count`: a URL substring with a method or a status). Other combinations count through
 * the indexes. A URL substring is counted from them first: when its profiles are few, the totals name their URLs,
 * and the matches are read through a plain index of the URLs rather than the trigram index (findUrl). A write
 * adds to the totals and a prune subtracts from them in the statements that insert and delete the rows (so within
 * their transactions), both locking the total rows in key order: concurrent writers and pruners lock the rows
 * they share in one order, and so never deadlock. A prune deletes the address and URL totals
 * it empties as it goes (locked first, see subtractFromTotals), and the hours and skeletons down to zero at its end.
 * The skeleton × method × status totals came a version later, in a table of their own: a store without them gets
 * them counted when it opens, and one whose instances of the version before wrote or pruned meanwhile is counted
 * again (their sum checked against the profiles', as the hours' are). The totals per kind came later still: a store
 * of the version before them gets its profiles' kinds (addKinds), then its totals counted, when it opens.
 */
export class PostgresProfilerStorage extends ProfilerStorage {
  /** Several instances write to one database. */
  readonly shared = true;
  /** Whose reservations are this object's (random: an instance restarted is a new owner). */
  readonly owner = randomBytes(8).toString('hex');
  private pool?: pg.Pool;
  private opening?: Promise<void>;
  private readonly codec = new ProfileCodec();
  private readonly schema: string;
  private readonly logger: PostgresStorageLogger;
  /** Qualified, quoted table names. */
  private readonly profileTable: string;
  private readonly dataTable: string;
  private readonly tokenTable: string;
  /** The running totals (see the class comment). */
  private readonly countTable: string;
  private readonly ipCountTable: string;
  private readonly urlCountTable: string;
  private readonly skeletonCountTable: string;
  private readonly skeletonStatusCountTable: string;
  /** Each totals table with its key, in the order every statement updates them. */
  private readonly totals: ReadonlyArray<readonly [string, string]>;
  /** The schema's SQL function giving a URL's skeleton (url-skeleton.ts's urlSkeleton, in SQL). */
  private readonly skeletonOf: string;
  private trigrams = false;

  constructor(private readonly options: PostgresProfilerStorageOptions) {
    super();
    this.schema = options.schema ?? 'public';
    this.logger = options.logger ?? new Logger('profiler');
    this.profileTable = `${quoteIdent(this.schema)}.profiler_profile`;
    this.dataTable = `${quoteIdent(this.schema)}.profiler_profile_data`;
    this.tokenTable = `${quoteIdent(this.schema)}.profiler_token`;
    this.countTable = `${quoteIdent(this.schema)}.profiler_kind_count`;
    this.ipCountTable = `${quoteIdent(this.schema)}.profiler_ip_kind_count`;
    this.urlCountTable = `${quoteIdent(this.schema)}.profiler_url_count`;
    this.skeletonCountTable = `${quoteIdent(this.schema)}.profiler_skeleton_count`;
    this.skeletonStatusCountTable = `${quoteIdent(this.schema)}.profiler_skeleton_status_count`;
    this.totals = [
      [this.countTable, 'hour, kind, method, status'],
      [this.ipCountTable, 'ip, kind, method, status'],
      [this.urlCountTable, 'url'],
      [this.skeletonCountTable, 'skeleton'],
      [this.skeletonStatusCountTable, 'skeleton, method, status'],
    ];
    this.skeletonOf = `${quoteIdent(this.schema)}.profiler_url_skeleton`;
  }

  /** The pg connection string (without the schema parameter). */
  get connectionString(): string {
    return this.options.connectionString;
  }

  /** The schema holding the store's tables. */
  get schemaName(): string {
    return this.schema;
  }

  /** Where the store is, password masked (errors, logs). */
  get description(): string {
    return `${maskDsn(this.options.connectionString)} (schema ${this.schema})`;
  }

  /** Whether URL searches use the pg_trgm index (known after open()). */
  get trigramIndexed(): boolean {
    return this.trigrams;
  }

  open(): Promise<void> {
    if (this.pool) return Promise.resolve();
    this.opening ??= this.connect().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  async write(profiles: readonly ProfileRecord[]): Promise<void> {
    if (profiles.length === 0) return;
    const pool = this.connection();
    const tokens = profiles.map((p) => String(p.token));
    const seen = new Set<string>();
    const repeated = new Set<string>();
    for (const token of tokens) {
      if (seen.has(token)) repeated.add(token);
      seen.add(token);
    }
    if (repeated.size > 0) {
      // Twice in the batch (as SQLite does, the error names those and the batch's tokens already stored).
      const stored = await this.taken([...seen]);
      throw new DuplicateTokenError(orderedAsIn(tokens, new Set([...repeated, ...stored])));
    }
    const blobs = await this.encodeAll(profiles);
    const ips = profiles.map((p) => pgText(String(p.ip ?? '')));
    const methods = profiles.map((p) => pgText(String(p.method ?? '')));
    const urls = profiles.map((p) => pgText(String(p.url ?? '')));
    const times = profiles.map((p) => clampTime(p.time));
    const statuses = profiles.map((p) => clampStatus(p.statusCode));
    const kinds = profiles.map((p) => kindCode(p.kind));
    await withClient(pool, async (client) => {
      await client.query('BEGIN');
      try {
        // Claim the tokens. This instance's reservations go: from now on the profile holds the token. Any other
        // token gets a row for the rest of the transaction, refused if another instance has it reserved (a row
        // being claimed by someone else is locked until its writer is done); a token already stored has no row,
        // and the profile's unique token refuses it below.
        const mine = await client.query<{ token: string }>(
          `DELETE FROM ${this.tokenTable} WHERE token = ANY($1::text[]) AND owner = $2 AND NOT stored RETURNING token`,
          [tokens.map(pgText), this.owner],
        );
        const claimed = new Set(mine.rows.map((r) => r.token));
        const others = tokens.map(pgText).filter((t) => !claimed.has(t));
        if (others.length > 0) {
          const taken = await client.query<{ token: string }>(
            `INSERT INTO ${this.tokenTable} (token, owner) SELECT token, $2 FROM unnest($1::text[]) AS token
             ORDER BY token -- the same order in every batch: two claims of shared tokens queue, never deadlock
             ON CONFLICT (token) DO NOTHING RETURNING token`,
            [others, this.owner],
          );
          if (taken.rows.length < others.length) {
            const ours = new Set(taken.rows.map((r) => r.token));
            throw new DuplicateTokenError(tokens.filter((t) => !claimed.has(pgText(t)) && !ours.has(pgText(t))));
          }
        }
        const inserted = await client.query<{ id: number; token: string }>(
          `INSERT INTO ${this.profileTable} (token, parent, ip, method, url, time, status, kind, duration, route, redirected_from)
           SELECT token, parent, ip, method, url, time, status, kind, duration, route, redirected_from
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int8[], $7::int4[], $8::int2[], $9::float8[], $10::text[], $11::text[])
             WITH ORDINALITY AS batch (token, parent, ip, method, url, time, status, kind, duration, route, redirected_from, n)
           ORDER BY n
           ON CONFLICT (token) DO NOTHING
           RETURNING id, token`,
          [
            tokens.map(pgText), profiles.map((p) => (p.parent == null ? null : pgText(String(p.parent)))), ips, methods, urls, times, statuses, kinds,
            profiles.map((p) => cleanDuration(p.duration)), profiles.map((p) => nullableText(p.route)), profiles.map((p) => nullableText(p.redirectedFrom)),
          ],
        );
        if (inserted.rows.length < profiles.length) {
          // Taken by another instance (or committed since the tokens were drawn): nothing of the batch stays.
          const written = new Set(inserted.rows.map((r) => r.token));
          throw new DuplicateTokenError(tokens.filter((t) => !written.has(pgText(t))));
        }
        if (others.length > 0) await client.query(`DELETE FROM ${this.tokenTable} WHERE token = ANY($1::text[]) AND owner = $2`, [others, this.owner]);
        const ids = new Map(inserted.rows.map((r) => [r.token, r.id]));
        // The blobs and the running totals, in one statement.
        await client.query(
          `WITH data AS (INSERT INTO ${this.dataTable} (id, data) SELECT * FROM unnest($1::int8[], $2::bytea[])),
           batch AS (SELECT * FROM unnest($3::text[], $4::text[], $5::text[], $6::int8[], $7::int4[], $8::int2[]) AS b (ip, method, url, time, status, kind))
           ${this.addToTotals('batch', 1)}
           SELECT 1`,
          [tokens.map((t) => ids.get(pgText(t))), blobs, ips, methods, urls, times, statuses, kinds],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** The server's answers about the data (classes 22 data exception, 23 integrity, 54 limits); lost connections, timeouts and shutdowns are the store failing. */
  override isProfileError(error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    return error instanceof Error && typeof code === 'string' && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
  }

  async read(token: string): Promise<ProfileRecord | null> {
    const pool = this.connection();
    if (hasNul(token)) return null;
    const { rows } = await pool.query<SummaryRow & { data: Buffer }>(
      `SELECT ${COLUMNS}, d.data FROM ${this.profileTable} p JOIN ${this.dataTable} d ON d.id = p.id WHERE p.token = $1`,
      [token],
    );
    if (rows.length === 0) return null;
    const { data, ...summary } = rows[0];
    return { ...summary, data: await this.codec.decode(data) };
  }

  /**
   * Counts the matches (from the running totals where they answer, see the class comment) and reads the newest
   * `limit` of them through the indexes, both at once.
   */
  async find(criteria: ProfileSearchCriteria): Promise<ProfileSearchResult> {
    const pool = this.connection();
    const compiled = compileCriteria(criteria);
    if (!compiled) return { total: 0, rows: [] };
    const [where, params] = conditions(compiled);
    const limit = Math.max(0, Math.floor(Number(criteria.limit) || 0));
    if (compiled.url !== null && !compiled.needle.includes('#')) return this.findUrl(pool, compiled, where, params, limit);
    return this.findThroughIndexes(pool, compiled, where, params, limit);
  }

  /** Counts (from the totals where they answer) and lists the newest `limit` through the indexes, both at once. */
  private async findThroughIndexes(pool: pg.Pool, compiled: Compiled, where: string, params: unknown[], limit: number): Promise<ProfileSearchResult> {
    const [total, listed] = await Promise.all([
      this.countMatches(pool, compiled, where, params),
      limit === 0 ? null : this.newest(pool, where, params, limit),
    ]);
    return { total, rows: total === 0 || !listed ? [] : listed };
  }

  /** The newest `limit` profiles matching `where`, through the indexes. */
  private async newest(pool: pg.Pool, where: string, params: unknown[], limit: number): Promise<SummaryRow[]> {
    const sql = `SELECT ${COLUMNS} FROM ${this.profileTable} p WHERE ${where} ORDER BY p.time DESC, p.id DESC LIMIT $${params.length + 1}`;
    return (await pool.query<SummaryRow>(sql, [...params, limit])).rows;
  }

  async taken(tokens: readonly string[]): Promise<Set<string>> {
    const pool = this.connection();
    const valid = tokens.filter((t) => typeof t === 'string' && !hasNul(t));
    if (valid.length === 0) return new Set();
    const { rows } = await pool.query<{ token: string }>(`SELECT token FROM ${this.profileTable} WHERE token = ANY($1::text[])`, [valid]);
    return new Set(rows.map((r) => r.token));
  }

  async *allTokens(): AsyncIterable<string> {
    let after = '';
    for (;;) {
      const { rows } = await this.connection().query<{ token: string }>(
        `SELECT token FROM ${this.profileTable} WHERE token > $1 ORDER BY token LIMIT ${TOKEN_PAGE}`,
        [after],
      );
      for (const { token } of rows) yield token;
      if (rows.length < TOKEN_PAGE) return;
      after = rows[rows.length - 1].token;
    }
  }

  /**
   * By identity (the primary key's index); the cursor is the last id returned. Ids are taken when a row is
   * inserted, so a transaction that commits after a later one's may slip behind a cursor: such a token is not
   * returned, which costs a refused reservation at most (reserveTokens), never a profile.
   */
  async tokensSince(cursor: string | null, limit = TOKENS_SINCE_PAGE): Promise<TokensSince> {
    const pool = this.connection();
    const after = cursor === null ? 0 : Number(cursor);
    if (!Number.isSafeInteger(after)) throw new Error(`Not a cursor of this store: ${cursor}`);
    const { rows } = await pool.query<{ id: number; token: string }>(`SELECT id, token FROM ${this.profileTable} WHERE id > $1 ORDER BY id LIMIT $2`, [
      after,
      Math.max(1, Math.floor(limit)),
    ]);
    return { tokens: rows.map((r) => r.token), cursor: rows.length > 0 ? String(rows[rows.length - 1].id) : cursor };
  }

  /**
   * Inserts a reservation row per token no other instance has reserved (the primary key refuses the others),
   * then gives back those whose profile is stored. The second statement sees every write committed before it:
   * one that claimed a token while the insert waited on its row has committed by then.
   */
  override async reserveTokens(tokens: readonly string[]): Promise<string[]> {
    const pool = this.connection();
    const valid = [...new Set(tokens.filter((t) => typeof t === 'string' && !hasNul(t)))];
    if (valid.length === 0) return [];
    const { rows } = await pool.query<{ token: string }>(
      `INSERT INTO ${this.tokenTable} (token, owner) SELECT unnest($1::text[]), $2 ON CONFLICT (token) DO NOTHING RETURNING token`,
      [valid, this.owner],
    );
    if (rows.length === 0) return [];
    const reserved = new Set(rows.map((r) => r.token));
    const { rows: stored } = await pool.query<{ token: string }>(
      `DELETE FROM ${this.tokenTable} t USING ${this.profileTable} p WHERE t.token = ANY($1::text[]) AND t.owner = $2 AND p.token = t.token RETURNING t.token`,
      [[...reserved], this.owner],
    );
    for (const { token } of stored) reserved.delete(token);
    return valid.filter((t) => reserved.has(t));
  }

  override async releaseTokens(tokens: readonly string[]): Promise<void> {
    const valid = tokens.filter((t) => typeof t === 'string' && !hasNul(t));
    if (valid.length === 0) return;
    await this.connection().query(`DELETE FROM ${this.tokenTable} WHERE token = ANY($1::text[]) AND owner = $2 AND NOT stored`, [valid, this.owner]);
  }

  /** Along the time index from the profile's, the kind checked row by row. */
  async neighbours(token: string, kinds?: readonly ProfileKind[]): Promise<{ previous: ProfileSummary | null; next: ProfileSummary | null }> {
    const pool = this.connection();
    const codes = kindCodes(kinds);
    if (hasNul(token) || codes?.length === 0) return { previous: null, next: null };
    const of = `(SELECT time, id FROM ${this.profileTable} WHERE token = $1)`;
    const ofKind = codes === null ? '' : ` AND ${kindCondition(codes)}`;
    const [previous, next] = await Promise.all([
      pool.query<SummaryRow>(`SELECT ${COLUMNS} FROM ${this.profileTable} p WHERE (p.time, p.id) < ${of}${ofKind} ORDER BY p.time DESC, p.id DESC LIMIT 1`, [token]),
      pool.query<SummaryRow>(`SELECT ${COLUMNS} FROM ${this.profileTable} p WHERE (p.time, p.id) > ${of}${ofKind} ORDER BY p.time, p.id LIMIT 1`, [token]),
    ]);
    return { previous: previous.rows[0] ?? null, next: next.rows[0] ?? null };
  }

  /** Through the partial index of redirected_from. */
  async redirectsFrom(token: string): Promise<ProfileSummary[]> {
    const pool = this.connection();
    if (hasNul(token)) return [];
    const { rows } = await pool.query<SummaryRow>(`SELECT ${COLUMNS} FROM ${this.profileTable} p WHERE p.redirected_from = $1 ORDER BY p.time, p.id`, [token]);
    return rows;
  }

  async children(token: string): Promise<ProfileSummary[]> {
    const pool = this.connection();
    if (hasNul(token)) return [];
    const { rows } = await pool.query<SummaryRow>(`SELECT ${COLUMNS} FROM ${this.profileTable} p WHERE p.parent = $1 ORDER BY p.time, p.id`, [token]);
    return rows;
  }

  /**
   * Deletes the oldest profiles, PRUNE_CHUNK per statement (each its own short transaction), oldest first. Rows
   * another instance is deleting at the same moment are skipped (SKIP LOCKED), and the count limit deletes up to
   * a fixed boundary (the newest profile beyond maxProfiles), so instances pruning together never remove more
   * than one would.
   */
  async prune(policy: RetentionPolicy): Promise<string[]> {
    const pool = this.connection();
    const removed: string[] = [];
    if (policy.maxAgeMs > 0) {
      await this.pruneUpTo(pool, 'p.time < $1', [clampTime(policy.now - policy.maxAgeMs)], removed);
    }
    if (policy.maxProfiles > 0) {
      // The newest profile beyond maxProfiles: the hourly totals say which hour holds it and how many profiles are
      // newer than that hour, so the index is walked within that hour only (an OFFSET over the whole time index
      // reads every newer entry: 35–150 ms at a million). One statement: totals and profiles of one snapshot.
      const { rows } = await pool.query<{ time: number; id: number }>(
        `WITH hours AS (SELECT hour, sum(n) AS n FROM ${this.countTable} GROUP BY hour)
         , newer AS (SELECT hour, n, coalesce(sum(n) OVER (ORDER BY hour DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before FROM hours)
         , cut AS (SELECT hour, before FROM newer WHERE before + n > $1 ORDER BY hour DESC LIMIT 1)
         SELECT p.time, p.id FROM cut CROSS JOIN LATERAL (
           SELECT time, id FROM ${this.profileTable} p WHERE p.time >= cut.hour * ${HOUR} AND p.time < (cut.hour + 1) * ${HOUR}
           ORDER BY p.time DESC, p.id DESC OFFSET $1 - cut.before LIMIT 1
         ) AS p`,
        [Math.floor(policy.maxProfiles)],
      );
      if (rows.length > 0) await this.pruneUpTo(pool, '(p.time, p.id) <= ($1, $2)', [rows[0].time, rows[0].id], removed);
    }
    await pool.query(`DELETE FROM ${this.tokenTable} WHERE NOT stored AND reserved_at < now() - interval '${ABANDONED_RESERVATION}'`);
    if (removed.length > 0) {
      // Hours and skeletons down to zero (no profile left there), in key order as the upserts lock them; the chunks
      // deleted the addresses and URLs they emptied. These tables are small: a scan takes a few milliseconds.
      const small = [this.countTable, this.skeletonCountTable, this.skeletonStatusCountTable];
      for (const [table, key] of this.totals.filter(([table]) => small.includes(table))) {
        await pool.query(`DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE n <= 0 ORDER BY ${key} FOR UPDATE)`);
      }
    }
    return removed;
  }

  async clear(): Promise<number> {
    const pool = this.connection();
    return withClient(pool, async (client) => {
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL lock_timeout = '10s'`);
        const totals = this.totals.map(([table]) => table).join(', ');
        await client.query(`LOCK TABLE ${this.profileTable}, ${this.dataTable}, ${this.tokenTable}, ${totals} IN ACCESS EXCLUSIVE MODE`);
        const { rows } = await client.query<{ n: number }>(`SELECT count(*) AS n FROM ${this.profileTable}`);
        await client.query(`TRUNCATE ${this.dataTable}, ${this.profileTable}, ${totals}`);
        // The stored tokens are free again (rows of stored tokens: a store of the layout before, see open());
        // reservations of instances still running stay theirs.
        await client.query(`DELETE FROM ${this.tokenTable} WHERE stored`);
        await client.query('COMMIT');
        return rows[0].n;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** From the hourly totals (a count(*) reads every row: 25 ms at a million). */
  async count(): Promise<number> {
    const { rows } = await this.connection().query<{ n: number }>(`SELECT coalesce(sum(n), 0)::int8 AS n FROM ${this.countTable}`);
    return rows[0].n;
  }

  /** Bytes of the store's tables with their indexes and TOAST (pg_total_relation_size). */
  async size(): Promise<number> {
    const { rows } = await this.connection().query<{ bytes: number }>(
      'SELECT (SELECT sum(pg_total_relation_size(t::regclass)) FROM unnest($1::text[]) AS t)::int8 AS bytes',
      [[this.profileTable, this.dataTable, ...this.totals.map(([table]) => table)]],
    );
    return rows[0].bytes;
  }

  async close(): Promise<void> {
    await this.opening?.catch(() => undefined);
    const pool = this.pool;
    if (!pool) return;
    try {
      // Reservations never written are free for the other instances again.
      await pool.query(`DELETE FROM ${this.tokenTable} WHERE owner = $1 AND NOT stored`, [this.owner]);
    } catch (error) {
      this.logger.warn(`The PostgreSQL profile store ${this.description} kept this instance's unused token reservations: ${(error as Error)?.message ?? String(error)}`);
    } finally {
      this.pool = undefined;
      await pool.end();
    }
  }

  // --- internals ---------------------------------------------------------------------------------------------

  /**
   * The CTEs (each starting with a comma) adding `source`'s rows to every running total (`sign` 1, a write) or
   * taking them away (-1, a prune: see subtractFromTotals). `source` has the columns ip, method, url, time,
   * status and kind.
   *
   * Concurrent writers and pruners share total rows, so all of them must lock those rows in one order, or two
   * could each hold a row the other waits for: every table's rows are locked in key order (ORDER BY, keys in
   * the "C" collation), and the tables one after the other, hours, IPs, URLs, skeletons, skeletons by method and
   * status. PostgreSQL runs a statement's CTEs in no stated order, so each table's CTE reads the whole output of the
   * one before it (a count over its rows) before it produces a row.
   *
   * A URL's skeleton is computed once per distinct URL written; a prune takes it from the URL's total as it
   * locks it (cheaper than the function).
   */
  private addToTotals(source: string, sign: 1 | -1): string {
    const hours = `
      , hours AS (INSERT INTO ${this.countTable} AS c (hour, kind, method, status, n)
                  SELECT time / ${HOUR}, kind, ${TOTALS_METHOD}, status, ${sign === 1 ? 'count(*)' : '-count(*)'} FROM ${source}
                  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
                  ON CONFLICT (hour, kind, method, status) DO UPDATE SET n = c.n + excluded.n RETURNING 1)`;
    if (sign === -1) return this.subtractFromTotals(source, hours);
    return `${hours}
      , ips AS (INSERT INTO ${this.ipCountTable} AS c (ip, kind, method, status, n)
                SELECT ip COLLATE "C", kind, ${TOTALS_METHOD}, status, count(*) FROM ${source} ${afterCte('hours')} GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
                ON CONFLICT (ip, kind, method, status) DO UPDATE SET n = c.n + excluded.n RETURNING 1)
      , source_urls AS (SELECT url COLLATE "C" AS url, ${this.skeletonOf}(url COLLATE "C") AS skeleton, count(*) AS k FROM ${source} GROUP BY 1)
      , urls AS (INSERT INTO ${this.urlCountTable} AS c (url, skeleton, n) SELECT url, skeleton, k FROM source_urls ${afterCte('ips')} ORDER BY url
                 ON CONFLICT (url) DO UPDATE SET n = c.n + excluded.n RETURNING 1)
      , skeletons AS (INSERT INTO ${this.skeletonCountTable} AS c (skeleton, n) SELECT skeleton, sum(k) FROM source_urls ${afterCte('urls')} GROUP BY 1 ORDER BY 1
                      ON CONFLICT (skeleton) DO UPDATE SET n = c.n + excluded.n RETURNING 1)
      , skeleton_statuses AS (INSERT INTO ${this.skeletonStatusCountTable} AS c (skeleton, method, status, n)
                              SELECT u.skeleton, ${TOTALS_METHOD}, s.status, count(*) FROM ${source} s JOIN source_urls u ON u.url = s.url COLLATE "C"
                              ${afterCte('skeletons')} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
                              ON CONFLICT (skeleton, method, status) DO UPDATE SET n = c.n + excluded.n)`;
  }

  /**
   * A prune's CTEs after the hours': an address's or URL's total is locked first (in key order, as the upserts
   * lock theirs), then deleted when this prune takes it to zero, or lowered: one change to its row instead of an
   * update to zero now and a delete at the end of the prune (most addresses and many URLs have one profile).
   * The choice reads the locked row (`l.n`), not the statement's snapshot: a writer that added to it just before
   * the lock is counted, and the DELETE or UPDATE, finding the row changed since the snapshot, follows it to the
   * version locked. A total that is missing (never, for a profile that was counted) is left alone.
   */
  private subtractFromTotals(source: string, hours: string): string {
    const ipKey = (a: string, b: string) => `${a}.ip = ${b}.ip AND ${a}.kind = ${b}.kind AND ${a}.method = ${b}.method AND ${a}.status = ${b}.status`;
    return `${hours}
      , source_ips AS (SELECT ip COLLATE "C" AS ip, kind, ${TOTALS_METHOD} AS method, status, count(*) AS k FROM ${source} ${afterCte('hours')} GROUP BY 1, 2, 3, 4)
      , ips AS (SELECT c.ip, c.kind, c.method, c.status, c.n, s.k FROM ${this.ipCountTable} c JOIN source_ips s ON ${ipKey('c', 's')}
                ORDER BY c.ip, c.kind, c.method, c.status FOR UPDATE OF c)
      , ips_gone AS (DELETE FROM ${this.ipCountTable} c USING ips l WHERE ${ipKey('c', 'l')} AND l.n <= l.k)
      , ips_less AS (UPDATE ${this.ipCountTable} c SET n = c.n - l.k FROM ips l WHERE ${ipKey('c', 'l')} AND l.n > l.k)
      , source_urls AS (SELECT url COLLATE "C" AS url, count(*) AS k FROM ${source} ${afterCte('ips')} GROUP BY 1)
      , urls AS (SELECT c.url, c.skeleton, c.n, s.k FROM ${this.urlCountTable} c JOIN source_urls s ON c.url = s.url ORDER BY c.url FOR UPDATE OF c)
      , urls_gone AS (DELETE FROM ${this.urlCountTable} c USING urls l WHERE c.url = l.url AND l.n <= l.k)
      , urls_less AS (UPDATE ${this.urlCountTable} c SET n = c.n - l.k FROM urls l WHERE c.url = l.url AND l.n > l.k)
      , skeletons AS (INSERT INTO ${this.skeletonCountTable} AS c (skeleton, n) SELECT skeleton, -sum(k) FROM urls GROUP BY 1 ORDER BY 1
                      ON CONFLICT (skeleton) DO UPDATE SET n = c.n + excluded.n RETURNING 1)
      , skeleton_statuses AS (INSERT INTO ${this.skeletonStatusCountTable} AS c (skeleton, method, status, n)
                              SELECT l.skeleton, ${TOTALS_METHOD}, s.status, -count(*) FROM ${source} s JOIN urls l ON l.url = s.url COLLATE "C"
                              ${afterCte('skeletons')} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
                              ON CONFLICT (skeleton, method, status) DO UPDATE SET n = c.n + excluded.n)`;
  }

  /** The number of matches: from the running totals when they answer the filters, else through the indexes. */
  private async countMatches(pool: pg.Pool, f: Compiled, where: string, params: unknown[]): Promise<number> {
    if (f.ip === null && f.url === null && f.token === null) return this.countByHours(pool, f);
    if (f.ip !== null && f.url === null && f.token === null && f.time === null) {
      const values: unknown[] = [f.ip[0]];
      const conditions = ['ip >= $1'];
      if (f.ip[1] !== null) {
        values.push(f.ip[1]);
        conditions.push('ip < $2');
      }
      conditions.push(...totalsConditions(f, values, true));
      return sumOf(pool, `${this.ipCountTable} WHERE ${conditions.join(' AND ')}`, values);
    }
    // A URL alone is counted by findUrl.
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${this.profileTable} p WHERE ${where}`, params);
    return rows[0].n;
  }

  /** Matches by method, status and time: the hourly totals, plus the rows of the partial hours at the range's ends. */
  private async countByHours(pool: pg.Pool, f: Compiled): Promise<number> {
    const [from, to] = f.time ?? [0, MAX_TIME];
    const firstHour = Math.ceil(from / HOUR);
    const lastHour = Math.floor((to + 1) / HOUR) - 1;
    const exact = async (a: number, b: number): Promise<number> => {
      if (a > b) return 0;
      const [where, params] = conditions({ ...f, time: [a, b] });
      return (await pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${this.profileTable} p WHERE ${where}`, params)).rows[0].n;
    };
    if (firstHour > lastHour) return exact(from, to);
    const values: unknown[] = [firstHour, lastHour];
    const where = ['hour BETWEEN $1 AND $2', ...totalsConditions(f, values, true)];
    const counts = await Promise.all([
      sumOf(pool, `${this.countTable} WHERE ${where.join(' AND ')}`, values),
      exact(from, firstHour * HOUR - 1),
      exact((lastHour + 1) * HOUR, to),
    ]);
    return counts[0] + counts[1] + counts[2];
  }

  /**
   * Matches of a URL substring (without '#'), from the URL totals: a needle without digits is in a URL exactly
   * when it is in its skeleton, so the few thousand skeletons' totals answer; with digits, the skeletons that hold
   * the needle itself count whole, and the distinct URLs of those that may hold it (SkeletonMatcher) are checked.
   * With `listing`, the matching URLs come back too when their profiles are few (findUrl reads them by URL).
   */
  private async countUrl(pool: pg.Pool, needle: string, like: string, listing = false): Promise<{ n: number; urls: string[] | null }> {
    const whole: string[] = [];
    let n = 0;
    if (!/[0-9]/.test(needle)) {
      const { rows } = await pool.query<{ skeleton: string; n: number }>(`SELECT skeleton, n FROM ${this.skeletonCountTable} WHERE skeleton ILIKE $1`, [like]);
      for (const row of rows) {
        whole.push(row.skeleton);
        n += row.n;
      }
      return { n, urls: listing && n <= EXACT_LIST_MAX ? await this.urlsOf(pool, whole, []) : null };
    }
    const { rows } = await pool.query<{ skeleton: string; n: number }>(`SELECT skeleton, n FROM ${this.skeletonCountTable}`);
    const matcher = new SkeletonMatcher(needle);
    let checking = 0;
    const check: string[] = [];
    for (const row of rows) {
      const match = matcher.match(row.skeleton);
      if (match === 'all') {
        whole.push(row.skeleton);
        n += row.n;
      } else if (match === 'some') {
        check.push(row.skeleton);
        checking += row.n;
      }
    }
    if (check.length === 0) return { n, urls: listing && n <= EXACT_LIST_MAX ? await this.urlsOf(pool, whole, []) : null };
    // The skeletons' URLs are checked one by one when they are few (their profiles bound them); else through the
    // trigram index, which may walk long lists (10 ms for a product slug) but reads only the candidates. The
    // planner would take both and intersect them, paying for the lists anyway: `url || ''` keeps the index out.
    const url = checking <= CHECK_BY_SKELETON_MAX ? `url || ''` : 'url';
    // The URLs found come back too, as many as findUrl may read by (matching URLs are fewer than their profiles).
    const { rows: checked } = await pool.query<{ n: number; urls: string[] | null }>(
      `WITH matches AS (SELECT url, n FROM ${this.urlCountTable} WHERE skeleton = ANY($1::text[]) AND ${url} ILIKE $2 AND n > 0)
       SELECT coalesce(sum(n), 0)::int8 AS n, (SELECT array_agg(url) FROM (SELECT url FROM matches LIMIT ${EXACT_LIST_MAX}) AS few) AS urls FROM matches`,
      [check, like],
    );
    n += checked[0].n;
    return { n, urls: listing && n <= EXACT_LIST_MAX ? await this.urlsOf(pool, whole, checked[0].urls ?? []) : null };
  }

  /**
   * The matches of a URL part (without '#') with a method or a status, from the skeleton × method × status totals;
   * null when the needle has digits and some skeleton may hold it in only some of its URLs: those totals cannot say
   * which of that skeleton's profiles match.
   */
  private async countUrlWithStatus(pool: pg.Pool, f: Compiled): Promise<number | null> {
    const values: unknown[] = [];
    const where = totalsConditions(f, values);
    if (!/[0-9]/.test(f.needle)) {
      values.push(f.url);
      return sumOf(pool, `${this.skeletonStatusCountTable} WHERE ${where.join(' AND ')} AND skeleton ILIKE $${values.length}`, values);
    }
    const { rows } = await pool.query<{ skeleton: string; n: number }>(
      `SELECT skeleton, sum(n)::int8 AS n FROM ${this.skeletonStatusCountTable} WHERE ${where.join(' AND ')} GROUP BY skeleton HAVING sum(n) > 0`,
      values,
    );
    const matcher = new SkeletonMatcher(f.needle);
    let n = 0;
    for (const row of rows) {
      const match = matcher.match(row.skeleton);
      if (match === 'some') return null;
      if (match === 'all') n += row.n;
    }
    return n;
  }

  /** The URLs of `skeletons` that have profiles, and `more`. */
  private async urlsOf(pool: pg.Pool, skeletons: string[], more: string[]): Promise<string[]> {
    if (skeletons.length === 0) return more;
    const { rows } = await pool.query<{ url: string }>(`SELECT url FROM ${this.urlCountTable} WHERE skeleton = ANY($1::text[]) AND n > 0`, [skeletons]);
    return [...more, ...rows.map((row) => row.url)];
  }

  /**
   * A URL substring (without '#'): counted first from the URL totals (countUrl, a few milliseconds). When its
   * profiles are few, the totals name their URLs, and the matches are read through those URLs' plain index, the
   * other filters applied to them: the trigram index may walk the long lists of the trigrams a needle shares with
   * every product URL (20 to 75 ms at a million profiles for `wool-hat`). Otherwise, alone, its total is known and
   * the planner lists it (the time index read backwards, for a common needle); with other filters, the indexes do.
   */
  private async findUrl(pool: pg.Pool, f: Compiled, where: string, params: unknown[], limit: number): Promise<ProfileSearchResult> {
    const alone = urlAlone(f);
    const { n, urls } = await this.countUrl(pool, f.needle, f.url!, limit > 0 || !alone);
    if (n === 0) return { total: 0, rows: [] };
    if (urls === null) {
      // Many profiles have the URL part. Alone, their count is the URL totals'; with only a method or a status
      // besides, the skeleton totals count the matches (through the indexes, every match would be read: 60 ms
      // warm, a second cold, for "cart" and 4xx); else the indexes count them.
      const total = alone ? n : urlByTotals(f) ? await this.countUrlWithStatus(pool, f) : null;
      if (total === null) return this.findThroughIndexes(pool, f, where, params, limit);
      return { total, rows: total === 0 || limit === 0 ? [] : await this.newest(pool, where, params, limit) };
    }
    const [others, values] = conditions({ ...f, url: null });
    values.push(urls);
    const byUrl = `p.url = ANY($${values.length}::text[]) AND ${others}`;
    const [total, listed] = await Promise.all([
      alone ? n : pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${this.profileTable} p WHERE ${byUrl}`, values).then(({ rows }) => rows[0].n),
      limit === 0
        ? null
        : // `p.time + 0`: the planner, misjudging how many profiles a URL has, would read the time index
          // backwards (270,000 rows for 38 matches); these are at most EXACT_LIST_MAX, sorted in memory.
          pool.query<SummaryRow>(`SELECT ${COLUMNS} FROM ${this.profileTable} p WHERE ${byUrl} ORDER BY p.time + 0 DESC, p.id DESC LIMIT $${values.length + 1}`, [
            ...values,
            limit,
          ]),
    ]);
    return { total, rows: total === 0 || !listed ? [] : listed.rows };
  }

  private connection(): pg.Pool {
    if (!this.pool) throw new Error('The PostgreSQL profile store is not open (call open() first).');
    return this.pool;
  }

  private async connect(): Promise<void> {
    const pool = new pg.Pool({
      connectionString: this.options.connectionString,
      max: this.options.poolSize ?? 5,
      // A server that does not answer must not hold a write (and the buffer behind it) forever.
      connectionTimeoutMillis: 10_000,
      query_timeout: this.options.queryTimeoutMs ?? 30_000,
      keepAlive: true,
      fallback_application_name: 'shopkernel-profiler',
      allowExitOnIdle: true,
      types: { getTypeParser },
    });
    // An idle connection lost (server restart, network) must not crash the process: the pool drops it and
    // connects again on the next query; queries in flight reject, and the write buffer retries them later.
    pool.on('error', (error: Error) => {
      this.logger.warn(`The PostgreSQL profile store lost an idle connection (${this.description}): ${error.message}`);
    });
    try {
      // Instances starting while others already write can deadlock on the schema's table locks: the server aborts
      // one side, which tries again.
      await retryWhenAborted(() => withClient(pool, (client) => this.createSchema(client)));
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new ProfilerStorageOpenError('PostgreSQL', this.description, error);
    }
    this.pool = pool;
  }

  /**
   * Creates the schema, tables and indexes if missing, in one transaction holding an advisory lock, so that
   * instances starting together do not race on CREATE … IF NOT EXISTS (which is not safe concurrently).
   */
  private async createSchema(client: pg.PoolClient): Promise<void> {
    const schema = quoteIdent(this.schema);
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [SCHEMA_LOCK]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.profileTable} (
          id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- write order, across instances
          token text COLLATE "C" NOT NULL,
          parent text COLLATE "C",
          ip text COLLATE "C" NOT NULL,
          method text COLLATE "C" NOT NULL,                   -- upper() of a "C" text folds ASCII letters only
          url text COLLATE "C" NOT NULL,                      -- ILIKE too
          time bigint NOT NULL,                               -- milliseconds since the epoch
          status integer NOT NULL,
          kind smallint NOT NULL DEFAULT 0,                   -- KIND_CODES: 0 application, 1 profiler page, 2 asset
          duration double precision,                          -- milliseconds in the kernel (null: not measured)
          route text COLLATE "C",
          redirected_from text COLLATE "C",                   -- the token of the redirect this request followed
          CONSTRAINT profiler_profile_token_key UNIQUE (token)
        )`);
      await this.addKinds(client);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.dataTable} (
          id bigint PRIMARY KEY,                              -- a profile's; deleted with it (prune, clear)
          data bytea NOT NULL
        )`);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.tokenTable} (
          token text COLLATE "C" PRIMARY KEY,                  -- a token reserved, not yet written
          owner text COLLATE "C" NOT NULL,                     -- the instance that reserved it
          stored boolean NOT NULL DEFAULT false,               -- layouts before: a stored token's row (see below)
          reserved_at timestamptz NOT NULL DEFAULT now()
        )`);
      const existed = async (table: string) => (await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [table])).rows[0].t !== null;
      const totalsExisted = await existed(this.countTable);
      const statusesExisted = await existed(this.skeletonStatusCountTable);
      // Stores made before the running totals had the blobs deleted by a cascading foreign key: a trigger per row,
      // a fifth of a prune's time. The prune deletes them itself now.
      // Only when there is one: the ALTER locks both tables against every other instance's reads and writes.
      const { rows: cascading } = await client.query(
        `SELECT 1 FROM pg_constraint WHERE conrelid = to_regclass($1) AND conname = 'profiler_profile_data_id_fkey'`,
        [this.dataTable],
      );
      if (cascading.length > 0) await client.query(`ALTER TABLE ${this.dataTable} DROP CONSTRAINT profiler_profile_data_id_fkey`);
      await this.createTotals(client);
      await this.checkLayout(client);
      // Stores of the layout before kept a row per stored token too (`stored`), which every prune deleted: a
      // fifth of its time. The profiles' unique tokens say which are stored now; those rows go, once.
      await client.query(`DELETE FROM ${this.tokenTable} WHERE stored`);
      // Every index ends with (time, id): the newest matches of one value are an index range read backwards.
      const indexes = [
        `profiler_profile_time ON ${this.profileTable} (time, id)`,
        `profiler_profile_ip ON ${this.profileTable} (ip, time, id)`,
        `profiler_profile_method ON ${this.profileTable} (upper(method), time, id)`,
        `profiler_profile_status ON ${this.profileTable} (status, time, id)`,
        `profiler_profile_parent ON ${this.profileTable} (parent, time, id) WHERE parent IS NOT NULL`,
        `profiler_profile_redirected_from ON ${this.profileTable} (redirected_from, time, id) WHERE redirected_from IS NOT NULL`,
        // The URL alone: used for a rare URL's few profiles (findUrl), so no (time, id) after it; its equal keys
        // are then deduplicated, at a fifth of the size.
        `profiler_profile_url_exact ON ${this.profileTable} (url)`,
        // The reservations not written: few (instances × their pool), found without reading the stored ones.
        `profiler_token_reserved ON ${this.tokenTable} (owner, reserved_at) WHERE NOT stored`,
      ];
      for (const index of indexes) await client.query(`CREATE INDEX IF NOT EXISTS ${index}`);
      // A store of the version before the running totals is counted once, here (some 2 s a million profiles); so
      // is one whose totals no longer match its profiles: an instance of that version, still running during an
      // upgrade, wrote or pruned without them (one statement, one snapshot: 25 ms a million).
      if (!totalsExisted) {
        await this.recountTotals(client);
      } else {
        if (!statusesExisted) {
          // A store of the version before the skeleton × method × status totals: those are counted once.
          await client.query(`LOCK TABLE ${this.profileTable} IN SHARE MODE`);
          await this.countSkeletonStatuses(client);
        }
        // An instance of the version before updates every total but the skeletons × method × status: their sum
        // is compared too (a few thousand rows).
        const { rows } = await client.query<{ exact: boolean }>(
          `WITH stored AS (SELECT count(*) AS n FROM ${this.profileTable})
           SELECT (SELECT coalesce(sum(n), 0) FROM ${this.countTable}) = stored.n
              AND (SELECT coalesce(sum(n), 0) FROM ${this.skeletonStatusCountTable}) = stored.n AS exact FROM stored`,
        );
        if (!rows[0].exact) {
          this.logger.warn(
            `The PostgreSQL profile store ${this.description}'s running totals did not match its profiles (an instance of an earlier version wrote or pruned them): counted again.`,
          );
          await this.recountTotals(client);
        }
      }
      this.trigrams = this.options.trigramIndex !== false && (await this.createTrigramIndex(client));
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /**
   * A store of the version before kinds gets the columns kind, duration, route and redirected_from: its profiles
   * are the application's but for the profiler's pages (by their URL), neither measured nor routed nor redirected.
   * Its running totals per kind are then missing, and counted (createSchema).
   */
  private async addKinds(client: pg.PoolClient): Promise<void> {
    const { rows } = await client.query<{ column: string }>(
      `SELECT column_name AS column FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'profiler_profile'`,
      [this.schema],
    );
    const columns = new Set(rows.map((r) => r.column));
    // Done already; or a table of this name that is no profile store's, left alone for checkLayout to refuse.
    if (columns.has('kind') || !['token', 'url', 'time', 'status'].every((c) => columns.has(c))) return;
    await client.query(`
      ALTER TABLE ${this.profileTable}
        ADD COLUMN kind smallint NOT NULL DEFAULT 0,
        ADD COLUMN duration double precision,
        ADD COLUMN route text COLLATE "C",
        ADD COLUMN redirected_from text COLLATE "C"`);
    await client.query(`UPDATE ${this.profileTable} SET kind = ${kindCode('profiler')} WHERE url ~ $1`, [PROFILER_URL_PATTERN]);
  }

  /** The running totals' tables and the URL skeleton function (see the class comment). */
  private async createTotals(client: pg.PoolClient): Promise<void> {
    // url-skeleton.ts's urlSkeleton: each run of digits after the first '/' following '//' (or of the whole
    // text, when it has no '//') becomes one '#'.
    await client.query(`
      CREATE OR REPLACE FUNCTION ${this.skeletonOf}(url text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
        SELECT CASE
          WHEN a = 0 THEN regexp_replace(url, '[0-9]+', '#', 'g')
          WHEN p = 0 THEN url
          ELSE left(url, a + p) || regexp_replace(substr(url, a + p + 1), '[0-9]+', '#', 'g')
        END
        FROM (SELECT strpos(url, '//') AS a) AS authority,
             LATERAL (SELECT CASE WHEN a = 0 THEN 0 ELSE strpos(substr(url, a + 2), '/') END AS p) AS path
      $fn$`);
    // Per hour (time / 3,600,000) and per IP, each by kind, method (upper(), as searched) and status. Tables of
    // their own rather than kind added to the totals before it (profiler_count, profiler_ip_count): instances of
    // the version before, still running during an upgrade, upsert those by hour or IP, method and status.
    for (const [table, key] of [[this.countTable, 'hour bigint'], [this.ipCountTable, 'ip text COLLATE "C"']]) {
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${table} (
          ${key} NOT NULL,
          kind smallint NOT NULL,
          method text COLLATE "C" NOT NULL,
          status integer NOT NULL,
          n bigint NOT NULL,
          PRIMARY KEY (${key.split(' ')[0]}, kind, method, status)
        ) WITH (fillfactor = ${TOTALS_FILLFACTOR})`);
    }
    await client.query(`
      CREATE TABLE IF NOT EXISTS ${this.urlCountTable} (
        url text COLLATE "C" PRIMARY KEY,
        skeleton text COLLATE "C" NOT NULL,
        n bigint NOT NULL
      ) WITH (fillfactor = ${TOTALS_FILLFACTOR})`);
    await client.query(`CREATE INDEX IF NOT EXISTS profiler_url_count_skeleton ON ${this.urlCountTable} (skeleton)`);
    await client.query(`
      CREATE TABLE IF NOT EXISTS ${this.skeletonCountTable} (
        skeleton text COLLATE "C" PRIMARY KEY,
        n bigint NOT NULL
      ) WITH (fillfactor = ${TOTALS_FILLFACTOR})`);
    // A table of its own rather than method and status added to the skeletons': instances of the version before,
    // still running during an upgrade, upsert those by skeleton alone.
    await client.query(`
      CREATE TABLE IF NOT EXISTS ${this.skeletonStatusCountTable} (
        skeleton text COLLATE "C" NOT NULL,
        method text COLLATE "C" NOT NULL,
        status integer NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (skeleton, method, status)
      ) WITH (fillfactor = ${TOTALS_FILLFACTOR})`);
  }

  /**
   * The skeleton × method × status totals, from the profiles: each distinct URL, method and status once, so the
   * skeleton function runs some 100,000 times for a million profiles rather than once per profile.
   */
  private async countSkeletonStatuses(client: pg.PoolClient): Promise<void> {
    await client.query(`
      INSERT INTO ${this.skeletonStatusCountTable}
      SELECT ${this.skeletonOf}(url), method, status, sum(n) FROM (
        SELECT url, upper(method) AS method, status, count(*) AS n FROM ${this.profileTable} GROUP BY 1, 2, 3
      ) AS distinct_urls GROUP BY 1, 2, 3`);
  }

  /**
   * The running totals of the profiles stored, counted again. The profiles are locked against writes meanwhile
   * (reads go on), so that no instance writes one between the count and the commit. Blobs whose profile is gone
   * (pruned by an instance of the version that deleted them through a foreign key, dropped since) go too.
   */
  private async recountTotals(client: pg.PoolClient): Promise<void> {
    await client.query(`LOCK TABLE ${this.profileTable}, ${this.dataTable} IN SHARE MODE`);
    await client.query(`TRUNCATE ${this.totals.map(([table]) => table).join(', ')}`);
    await client.query(`INSERT INTO ${this.countTable} SELECT time / ${HOUR}, kind, upper(method), status, count(*) FROM ${this.profileTable} GROUP BY 1, 2, 3, 4`);
    await client.query(`INSERT INTO ${this.ipCountTable} SELECT ip, kind, upper(method), status, count(*) FROM ${this.profileTable} GROUP BY 1, 2, 3, 4`);
    await client.query(`INSERT INTO ${this.urlCountTable} SELECT url, ${this.skeletonOf}(url), count(*) FROM ${this.profileTable} GROUP BY url`);
    await client.query(`INSERT INTO ${this.skeletonCountTable} SELECT skeleton, sum(n) FROM ${this.urlCountTable} GROUP BY skeleton`);
    await this.countSkeletonStatuses(client);
    await client.query(`DELETE FROM ${this.dataTable} d WHERE NOT EXISTS (SELECT FROM ${this.profileTable} p WHERE p.id = d.id)`);
  }

  /** The GIN trigram index of the URLs; false (logged) when pg_trgm is neither installed nor installable. */
  private async createTrigramIndex(client: pg.PoolClient): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      await client.query('SAVEPOINT trigrams');
      try {
        let extensionSchema = await trigramSchema(client);
        if (extensionSchema === null) {
          // In `public` when it may (dropping the store's schema must not take the extension with it).
          const { rows } = await client.query<{ public: boolean }>(
            `SELECT coalesce(has_schema_privilege(to_regnamespace('public')::oid, 'CREATE'), false) AS public`,
          );
          await client.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm${rows[0].public ? ' SCHEMA public' : ''}`);
          extensionSchema = await trigramSchema(client);
        }
        if (extensionSchema === null) throw new Error('pg_trgm is not installed');
        await client.query(`CREATE INDEX IF NOT EXISTS profiler_profile_url ON ${this.profileTable} USING gin (url ${quoteIdent(extensionSchema)}.gin_trgm_ops)`);
        // The distinct URLs' too: counting a needle with digits checks the URLs of the skeletons that may hold it,
        // tens of thousands for `orders/4242` (countUrl).
        await client.query(`CREATE INDEX IF NOT EXISTS profiler_url_count_url ON ${this.urlCountTable} USING gin (url ${quoteIdent(extensionSchema)}.gin_trgm_ops)`);
        await client.query('RELEASE SAVEPOINT trigrams');
        return true;
      } catch (error) {
        await client.query('ROLLBACK TO SAVEPOINT trigrams');
        // Somebody else (the shop's migrations) created the extension at the same moment: it is there now.
        if (attempt === 1 && (error as { code?: unknown })?.code === '23505') continue;
        this.logger.warn(
          `The PostgreSQL profile store ${this.description} has no trigram index: URL searches scan the profiles `
            + `(pg_trgm: ${(error as Error)?.message ?? String(error)}).`,
        );
        return false;
      }
    }
  }

  /** A clear error for a schema whose tables of these names are not this store's. */
  private async checkLayout(client: pg.PoolClient): Promise<void> {
    const expected: Record<string, string[]> = {
      profiler_profile: ['id', 'token', 'parent', 'ip', 'method', 'url', 'time', 'status', 'kind', 'duration', 'route', 'redirected_from'],
      profiler_profile_data: ['id', 'data'],
      profiler_token: ['token', 'owner', 'stored', 'reserved_at'],
      profiler_kind_count: ['hour', 'kind', 'method', 'status', 'n'],
      profiler_ip_kind_count: ['ip', 'kind', 'method', 'status', 'n'],
      profiler_url_count: ['url', 'skeleton', 'n'],
      profiler_skeleton_count: ['skeleton', 'n'],
      profiler_skeleton_status_count: ['skeleton', 'method', 'status', 'n'],
    };
    const { rows } = await client.query<{ table: string; column: string }>(
      `SELECT table_name AS table, column_name AS column FROM information_schema.columns WHERE table_schema = $1 AND table_name = ANY($2::text[])`,
      [this.schema, Object.keys(expected)],
    );
    for (const [table, columns] of Object.entries(expected)) {
      const present = new Set(rows.filter((r) => r.table === table).map((r) => r.column));
      const missing = columns.filter((c) => !present.has(c));
      if (missing.length > 0) {
        throw new Error(`table ${this.schema}.${table} is not a profile store's (it lacks ${missing.join(', ')}): use another schema (?schema=…).`);
      }
    }
  }

  /** One chunk at a time: delete up to PRUNE_CHUNK of the oldest rows matching `condition`, until none is left. */
  private async pruneUpTo(pool: pg.Pool, condition: string, params: unknown[], removed: string[]): Promise<void> {
    for (;;) {
      const { rows } = await pool.query<{ token: string; time: number; id: number }>(
        `WITH doomed AS (
           SELECT p.id FROM ${this.profileTable} p WHERE ${condition} ORDER BY p.time, p.id LIMIT ${PRUNE_CHUNK} FOR UPDATE SKIP LOCKED
         )
         , gone AS (DELETE FROM ${this.profileTable} p USING doomed WHERE p.id = doomed.id RETURNING p.token, p.time, p.id, p.ip, p.method, p.url, p.status, p.kind)
         , blobs AS (DELETE FROM ${this.dataTable} d USING gone WHERE d.id = gone.id)
         ${this.addToTotals('gone', -1)}
         SELECT token, time, id FROM gone`,
        params,
      );
      rows.sort((a, b) => a.time - b.time || a.id - b.id);
      for (const row of rows) removed.push(row.token);
      if (rows.length < PRUNE_CHUNK) return;
    }
  }

  /** The batch's blobs (ProfileCodec.encodeMany: JSON and compression, in slices of a few milliseconds). */
  private encodeAll(profiles: readonly ProfileRecord[]): Promise<Buffer[]> {
    return this.codec.encodeMany(profiles.map((profile) => profile.data ?? {}));
  }
}

/** The list columns of profile `p`, named as ProfileSummary names them. */
const COLUMNS = `p.token, p.parent, p.ip, p.method, p.url, p.time, p.status AS "statusCode", ${kindName('p.kind')} AS kind, p.duration, p.route,
  p.redirected_from AS "redirectedFrom"`;

/**
 * `column` (p.kind by default) among the kinds' codes, written into the text: KIND_CODES' integers, so the planner
 * sees the values (at most seven texts).
 */
function kindCondition(codes: number[], column = 'p.kind'): string {
  return `${column} IN (${codes.join(', ')})`;
}

/** An optional text column as PostgreSQL can hold it. */
function nullableText(value: unknown): string | null {
  const text = optionalText(value);
  return text === null ? null : pgText(text);
}

/** int8 as a number (times, ids and counts are far below 2^53); everything else as pg parses it. */
function getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === PG_INT8 && format !== 'binary') return (value: string) => Number(value);
  return pg.types.getTypeParser(oid, format as 'text');
}

/**
 * Runs `work` on a client of the pool, listening to the client's errors meanwhile (a connection lost while a
 * client is checked out is emitted on the client, and unheard it would crash the process); a client that failed
 * is destroyed rather than returned to the pool.
 */
async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  // The listener goes on in the pool's callback, not after `await pool.connect()`: the pool stops listening as
  // it hands the client out, and a new connection's "ready" and a server's FATAL (a backend terminated at that
  // moment) can arrive in one network read, which pg parses before any promise continuation runs.
  const client = await new Promise<pg.PoolClient>((resolve, reject) => {
    pool.connect((error, connected) => {
      if (error || !connected) reject(error ?? new Error('The pool gave no client.'));
      else {
        connected.on('error', onError);
        resolve(connected);
      }
    });
  });
  try {
    const result = await work(client);
    client.removeListener('error', onError);
    client.release(lost);
    return result;
  } catch (error) {
    client.removeListener('error', onError);
    client.release(lost ?? (breaksConnection(error) ? (error as Error) : undefined));
    throw error;
  }
}

/**
 * Whether a client that failed with this error must not go back to the pool: everything but the server's
 * answers to a query (a constraint, a syntax error) and our own DuplicateTokenError, except the server's
 * connection exceptions (class 08) and shutdowns (57P0x).
 */
function breaksConnection(error: unknown): boolean {
  if (error instanceof DuplicateTokenError) return false;
  if (error instanceof pg.DatabaseError) return /^(08|57P0)/.test(error.code ?? '');
  return true;
}

async function trigramSchema(client: pg.PoolClient): Promise<string | null> {
  const { rows } = await client.query<{ schema: string }>(
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`,
  );
  return rows[0]?.schema ?? null;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

type Compiled = NonNullable<ReturnType<typeof compileCriteria>>;

/** Search criteria as bounds and conditions (the SQLite store's semantics); null when nothing can match. */
function compileCriteria(criteria: ProfileSearchCriteria) {
  const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
  const ipPrefix = text(criteria.ip);
  const method = text(criteria.method);
  const statusPrefix = text(criteria.statusCode);
  const needle = typeof criteria.url === 'string' && criteria.url !== '' ? criteria.url : null;
  const tokenPrefix = text(criteria.token)?.toLowerCase() ?? null;
  // PostgreSQL text holds no NUL: no stored value contains one.
  if ([ipPrefix, method, needle, tokenPrefix].some((v) => v !== null && hasNul(v))) return null;
  const kinds = kindCodes(criteria.kinds);
  if (kinds?.length === 0) return null;
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
  return {
    ip: ipPrefix === null ? null : prefixRange(ipPrefix),
    // Compared with upper() of the "C"-collated column, which folds ASCII letters only: so is the criterion.
    method: method === null ? null : method.replace(/[a-z]+/g, (s) => s.toUpperCase()),
    status,
    url: needle === null ? null : `%${escapeLike(needle)}%`,
    needle: needle ?? '',
    token: tokenPrefix === null ? null : prefixRange(tokenPrefix),
    /** The kinds' codes (null: every kind). */
    kinds,
    time: start === null && end === null ? null : ([Math.max(0, fromTime), Math.min(MAX_TIME, toTime)] as [number, number]),
  };
}

/** The WHERE clause of a search and its parameters ($1 …). */
function conditions(f: Compiled): [string, unknown[]] {
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const range = (column: string, [low, high]: [string, string | null]) => {
    where.push(`${column} >= ${param(low)}`);
    if (high !== null) where.push(`${column} < ${param(high)}`);
  };
  if (f.time) where.push(`p.time BETWEEN ${param(f.time[0])} AND ${param(f.time[1])}`);
  if (f.kinds !== null) where.push(kindCondition(f.kinds));
  if (f.ip) range('p.ip', f.ip);
  if (f.method !== null) where.push(`upper(p.method) = ${param(f.method)}`);
  if (f.status) where.push(`p.status BETWEEN ${param(f.status[0])} AND ${param(f.status[1])}`);
  if (f.token) range('p.token', f.token);
  if (f.url !== null) where.push(`p.url ILIKE ${param(f.url)}`);
  return [where.length === 0 ? 'true' : where.join(' AND '), params];
}

/**
 * A URL substring without '#' with at most a method and a status besides: alone, its total is the URL totals'
 * (countUrl); with a method or a status, the skeleton × method × status totals' (countUrlWithStatus).
 */
function urlByTotals(f: Compiled): boolean {
  // The URL totals count every kind.
  return f.url !== null && f.ip === null && f.token === null && f.time === null && f.kinds === null && !f.needle.includes('#');
}

function urlAlone(f: Compiled): boolean {
  return urlByTotals(f) && f.method === null && f.status === null;
}

/**
 * The method and status conditions on a totals table, and the kinds' on one counting per kind (`perKind`), their
 * values appended to `values` ($n numbered after them).
 */
function totalsConditions(f: Compiled, values: unknown[], perKind = false): string[] {
  const where: string[] = [];
  if (perKind && f.kinds !== null) where.push(kindCondition(f.kinds, 'kind'));
  if (f.method !== null) {
    values.push(f.method);
    where.push(`method = $${values.length}`);
  }
  if (f.status) {
    values.push(f.status[0], f.status[1]);
    where.push(`status BETWEEN $${values.length - 1} AND $${values.length}`);
  }
  return where;
}

/** `SELECT sum(n) FROM <from>`, 0 when no row. */
async function sumOf(pool: pg.Pool, from: string, values: unknown[]): Promise<number> {
  return (await pool.query<{ n: number }>(`SELECT coalesce(sum(n), 0)::int8 AS n FROM ${from}`, values)).rows[0].n;
}

/** The tokens of `tokens` that are in `set`, each once, in the batch's order. */
function orderedAsIn(tokens: string[], set: Set<string>): string[] {
  return [...new Set(tokens.filter((t) => set.has(t)))];
}

function hasNul(text: string): boolean {
  return text.includes('\u0000');
}

/** PostgreSQL text cannot hold NUL: written as U+FFFD. */
function pgText(text: string): string {
  return hasNul(text) ? text.replaceAll('\u0000', '\uFFFD') : text;
}

function clampStatus(status: number): number {
  const s = Math.trunc(Number(status)) || 0;
  return Math.max(-INT4_MAX - 1, Math.min(INT4_MAX, s));
}
