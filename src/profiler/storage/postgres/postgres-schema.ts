import type pg from 'pg';
import { HOUR } from '../search/hours.js';
import { kindCode, PROFILER_URL_PATTERN } from '../search-helpers.js';
import type { PostgresConnection } from './postgres-connection.js';
import { quoteIdent } from './postgres-sql.js';
import type { PostgresTables } from './postgres-tables.js';

/** The advisory lock serialising schema creation, database-wide (pg_trgm is too): "PROFSCHM". */
const SCHEMA_LOCK = '5787213827590357837';
/**
 * The running totals' pages are kept this full (percent) as they are filled: the updates of a count then find room
 * on its page, and PostgreSQL writes them without touching the indexes (heap-only tuples).
 */
const TOTALS_FILLFACTOR = 70;

/**
 * The store's tables, indexes and SQL function, created or brought up to date when the store opens (create()),
 * and its running totals counted when they are missing or no longer add up (an instance of an earlier version
 * still writing during an upgrade).
 */
export class PostgresSchema {
  /** Whether URL searches use the pg_trgm index (known once create() ran). */
  trigrams = false;

  constructor(
    private readonly tables: PostgresTables,
    private readonly connection: PostgresConnection,
    private readonly trigramIndex: boolean,
  ) {}

  /**
   * Creates the schema, tables and indexes if missing, in one transaction holding an advisory lock, so that
   * instances starting together do not race on CREATE … IF NOT EXISTS (which is not safe concurrently).
   */
  async create(client: pg.PoolClient): Promise<void> {
    const schema = quoteIdent(this.tables.schema);
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [SCHEMA_LOCK]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.tables.profile} (
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
        CREATE TABLE IF NOT EXISTS ${this.tables.data} (
          id bigint PRIMARY KEY,                              -- a profile's; deleted with it (prune, clear)
          data bytea NOT NULL
        )`);
      // The words of a profile's text and its kind, method and status as marked words (search-words.ts), lexemes
      // as they are (array_to_tsvector: no parser, no stemming, the SQLite store's words exactly), partitioned by
      // day (PostgresTextParts): a prune drops a day once its profiles are gone, where deleting each row would
      // rewrite most of the table's pages. Profiles stored before have no text to index. A plain table of that
      // name is a development build's, before the partitions: its words are dropped.
      await client.query(
        `DO $$ BEGIN IF (SELECT relkind FROM pg_class WHERE oid = to_regclass('${this.tables.text.replaceAll("'", "''")}')) = 'r'
         THEN EXECUTE 'DROP TABLE ${this.tables.text.replaceAll("'", "''")}'; END IF; END $$`,
      );
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.tables.text} (
          id bigint NOT NULL,                                 -- a profile's
          time bigint NOT NULL,                               -- the profile's: the newest matches first; the day
          kind smallint NOT NULL,                             -- the profile's, as the totals count them
          method text COLLATE "C" NOT NULL,                   -- upper case
          status integer NOT NULL,
          doc tsvector NOT NULL
        ) PARTITION BY RANGE (time)`);
      // The tracked full-text queries (tracked-queries.ts): each query's terms once, its matches per hour, kind,
      // method and status, and the newest time pruning has reached (-1: none), whose hour and those before the
      // totals no longer count whole.
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.tables.textQuery} (
          id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          query text COLLATE "C" NOT NULL UNIQUE
        )`);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.tables.textCount} (
          query_id integer NOT NULL,
          hour integer NOT NULL,
          kind smallint NOT NULL,
          method text COLLATE "C" NOT NULL,
          status integer NOT NULL,
          n integer NOT NULL,
          PRIMARY KEY (query_id, hour, kind, method, status)
        ) WITH (fillfactor = ${TOTALS_FILLFACTOR})`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.tables.textFloor} (time bigint NOT NULL)`);
      await client.query(
        `INSERT INTO ${this.tables.textFloor} (time) SELECT -1 WHERE NOT EXISTS (SELECT FROM ${this.tables.textFloor})`,
      );
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.tables.token} (
          token text COLLATE "C" PRIMARY KEY,                  -- a token reserved, not yet written
          owner text COLLATE "C" NOT NULL,                     -- the instance that reserved it
          stored boolean NOT NULL DEFAULT false,               -- layouts before: a stored token's row (see below)
          reserved_at timestamptz NOT NULL DEFAULT now()
        )`);
      const existed = async (table: string) =>
        (await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [table])).rows[0].t !== null;
      const totalsExisted = await existed(this.tables.count);
      const statusesExisted = await existed(this.tables.skeletonStatusCount);
      // Stores made before the running totals delete the blobs by a cascading foreign key, a trigger per row that
      // slows every prune: the prune deletes them itself.
      // Only when there is one: the ALTER locks both tables against every other instance's reads and writes.
      const { rows: cascading } = await client.query(
        `SELECT 1 FROM pg_constraint WHERE conrelid = to_regclass($1) AND conname = 'profiler_profile_data_id_fkey'`,
        [this.tables.data],
      );
      if (cascading.length > 0)
        await client.query(`ALTER TABLE ${this.tables.data} DROP CONSTRAINT profiler_profile_data_id_fkey`);
      await this.createTotals(client);
      await this.checkLayout(client);
      // Stores of the older layout keep a row per stored token too (`stored`), which every prune would have to
      // delete. The profiles' unique tokens say which are stored; those rows go, once.
      await client.query(`DELETE FROM ${this.tables.token} WHERE stored`);
      // Every index ends with (time, id): the newest matches of one value are an index range read backwards.
      const indexes = [
        `profiler_profile_time ON ${this.tables.profile} (time, id)`,
        `profiler_profile_ip ON ${this.tables.profile} (ip, time, id)`,
        `profiler_profile_method ON ${this.tables.profile} (upper(method), time, id)`,
        `profiler_profile_status ON ${this.tables.profile} (status, time, id)`,
        `profiler_profile_parent ON ${this.tables.profile} (parent, time, id) WHERE parent IS NOT NULL`,
        `profiler_profile_redirected_from ON ${this.tables.profile} (redirected_from, time, id) WHERE redirected_from IS NOT NULL`,
        // The URL alone: used for a rare URL's few profiles (findUrl), so no (time, id) after it; its equal keys
        // are then deduplicated, which keeps it small.
        `profiler_profile_url_exact ON ${this.tables.profile} (url)`,
        // The reservations not written: few (instances × their pool), found without reading the stored ones.
        `profiler_token_reserved ON ${this.tables.token} (owner, reserved_at) WHERE NOT stored`,
        // On every day's table (those made later too).
        `profiler_profile_text_doc ON ${this.tables.text} USING gin (doc)`,
        `profiler_profile_text_time ON ${this.tables.text} (time, id)`,
      ];
      for (const index of indexes) await client.query(`CREATE INDEX IF NOT EXISTS ${index}`);
      // A store of the version before the running totals is counted once, here; so is one whose totals no longer
      // match its profiles (an instance of that version, still running during an upgrade, wrote or pruned).
      if (!totalsExisted) {
        await this.recountTotals(client);
      } else {
        if (!statusesExisted) {
          // A store of the version before the skeleton × method × status totals: those are counted once.
          await client.query(`LOCK TABLE ${this.tables.profile} IN SHARE MODE`);
          await this.countSkeletonStatuses(client);
        }
        // An instance of the version before updates every total but the skeletons × method × status: their sum
        // is compared too.
        const { rows } = await client.query<{ exact: boolean }>(
          `WITH stored AS (SELECT count(*) AS n FROM ${this.tables.profile})
           SELECT (SELECT coalesce(sum(n), 0) FROM ${this.tables.count}) = stored.n
              AND (SELECT coalesce(sum(n), 0) FROM ${this.tables.skeletonStatusCount}) = stored.n AS exact FROM stored`,
        );
        if (!rows[0].exact) {
          this.connection.logger.warn(
            `The PostgreSQL profile store ${this.connection.description}'s running totals did not match its profiles (an instance of an earlier version wrote or pruned them): counted again.`,
          );
          await this.recountTotals(client);
        }
      }
      this.trigrams = this.trigramIndex && (await this.createTrigramIndex(client));
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
      [this.tables.schema],
    );
    const columns = new Set(rows.map((r) => r.column));
    // Done already; or a table of this name that is no profile store's, left alone for checkLayout to refuse.
    if (columns.has('kind') || !['token', 'url', 'time', 'status'].every((c) => columns.has(c))) return;
    await client.query(`
      ALTER TABLE ${this.tables.profile}
        ADD COLUMN kind smallint NOT NULL DEFAULT 0,
        ADD COLUMN duration double precision,
        ADD COLUMN route text COLLATE "C",
        ADD COLUMN redirected_from text COLLATE "C"`);
    await client.query(`UPDATE ${this.tables.profile} SET kind = ${kindCode('profiler')} WHERE url ~ $1`, [
      PROFILER_URL_PATTERN,
    ]);
  }

  /** The running totals' tables and the URL skeleton function (see the class comment). */
  private async createTotals(client: pg.PoolClient): Promise<void> {
    // url-skeleton.ts's urlSkeleton: each run of digits after the first '/' following '//' (or of the whole
    // text, when it has no '//') becomes one '#'.
    await client.query(`
      CREATE OR REPLACE FUNCTION ${this.tables.skeletonOf}(url text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
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
    for (const [table, key] of [
      [this.tables.count, 'hour bigint'],
      [this.tables.ipCount, 'ip text COLLATE "C"'],
    ]) {
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
      CREATE TABLE IF NOT EXISTS ${this.tables.urlCount} (
        url text COLLATE "C" PRIMARY KEY,
        skeleton text COLLATE "C" NOT NULL,
        n bigint NOT NULL
      ) WITH (fillfactor = ${TOTALS_FILLFACTOR})`);
    await client.query(`CREATE INDEX IF NOT EXISTS profiler_url_count_skeleton ON ${this.tables.urlCount} (skeleton)`);
    await client.query(`
      CREATE TABLE IF NOT EXISTS ${this.tables.skeletonCount} (
        skeleton text COLLATE "C" PRIMARY KEY,
        n bigint NOT NULL
      ) WITH (fillfactor = ${TOTALS_FILLFACTOR})`);
    // A table of its own rather than method and status added to the skeletons': instances of the version before,
    // still running during an upgrade, upsert those by skeleton alone.
    await client.query(`
      CREATE TABLE IF NOT EXISTS ${this.tables.skeletonStatusCount} (
        skeleton text COLLATE "C" NOT NULL,
        method text COLLATE "C" NOT NULL,
        status integer NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (skeleton, method, status)
      ) WITH (fillfactor = ${TOTALS_FILLFACTOR})`);
  }

  /**
   * The skeleton × method × status totals, from the profiles: each distinct URL, method and status once, so the
   * skeleton function runs once per distinct URL rather than once per profile.
   */
  private async countSkeletonStatuses(client: pg.PoolClient): Promise<void> {
    await client.query(`
      INSERT INTO ${this.tables.skeletonStatusCount}
      SELECT ${this.tables.skeletonOf}(url), method, status, sum(n) FROM (
        SELECT url, upper(method) AS method, status, count(*) AS n FROM ${this.tables.profile} GROUP BY 1, 2, 3
      ) AS distinct_urls GROUP BY 1, 2, 3`);
  }

  /**
   * The running totals of the profiles stored, counted again. The profiles are locked against writes meanwhile
   * (reads go on), so that no instance writes one between the count and the commit. Blobs whose profile is gone
   * (pruned by an instance of the version that deleted them through a foreign key, dropped since) go too.
   */
  private async recountTotals(client: pg.PoolClient): Promise<void> {
    await client.query(`LOCK TABLE ${this.tables.profile}, ${this.tables.data} IN SHARE MODE`);
    await client.query(`TRUNCATE ${this.tables.totalsTables.join(', ')}`);
    await client.query(
      `INSERT INTO ${this.tables.count} SELECT time / ${HOUR}, kind, upper(method), status, count(*) FROM ${this.tables.profile} GROUP BY 1, 2, 3, 4`,
    );
    await client.query(
      `INSERT INTO ${this.tables.ipCount} SELECT ip, kind, upper(method), status, count(*) FROM ${this.tables.profile} GROUP BY 1, 2, 3, 4`,
    );
    await client.query(
      `INSERT INTO ${this.tables.urlCount} SELECT url, ${this.tables.skeletonOf}(url), count(*) FROM ${this.tables.profile} GROUP BY url`,
    );
    await client.query(
      `INSERT INTO ${this.tables.skeletonCount} SELECT skeleton, sum(n) FROM ${this.tables.urlCount} GROUP BY skeleton`,
    );
    await this.countSkeletonStatuses(client);
    await client.query(
      `DELETE FROM ${this.tables.data} d WHERE NOT EXISTS (SELECT FROM ${this.tables.profile} p WHERE p.id = d.id)`,
    );
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
        await client.query(
          `CREATE INDEX IF NOT EXISTS profiler_profile_url ON ${this.tables.profile} USING gin (url ${quoteIdent(extensionSchema)}.gin_trgm_ops)`,
        );
        // The distinct URLs' too: counting a needle with digits checks the URLs of the skeletons that may hold it,
        // which can be many (countUrl).
        await client.query(
          `CREATE INDEX IF NOT EXISTS profiler_url_count_url ON ${this.tables.urlCount} USING gin (url ${quoteIdent(extensionSchema)}.gin_trgm_ops)`,
        );
        await client.query('RELEASE SAVEPOINT trigrams');
        return true;
      } catch (error) {
        await client.query('ROLLBACK TO SAVEPOINT trigrams');
        // Somebody else (the shop's migrations) created the extension at the same moment: it is there now.
        if (attempt === 1 && (error as { code?: unknown })?.code === '23505') continue;
        this.connection.logger.warn(
          `The PostgreSQL profile store ${this.connection.description} has no trigram index: URL searches scan the profiles ` +
            `(pg_trgm: ${(error as Error)?.message ?? String(error)}).`,
        );
        return false;
      }
    }
  }

  /** A clear error for a schema whose tables of these names are not this store's. */
  private async checkLayout(client: pg.PoolClient): Promise<void> {
    const expected: Record<string, string[]> = {
      profiler_profile: [
        'id',
        'token',
        'parent',
        'ip',
        'method',
        'url',
        'time',
        'status',
        'kind',
        'duration',
        'route',
        'redirected_from',
      ],
      profiler_profile_data: ['id', 'data'],
      profiler_profile_text: ['id', 'time', 'kind', 'method', 'status', 'doc'],
      profiler_text_query: ['id', 'query'],
      profiler_text_count: ['query_id', 'hour', 'kind', 'method', 'status', 'n'],
      profiler_text_floor: ['time'],
      profiler_token: ['token', 'owner', 'stored', 'reserved_at'],
      profiler_kind_count: ['hour', 'kind', 'method', 'status', 'n'],
      profiler_ip_kind_count: ['ip', 'kind', 'method', 'status', 'n'],
      profiler_url_count: ['url', 'skeleton', 'n'],
      profiler_skeleton_count: ['skeleton', 'n'],
      profiler_skeleton_status_count: ['skeleton', 'method', 'status', 'n'],
    };
    const { rows } = await client.query<{ table: string; column: string }>(
      `SELECT table_name AS table, column_name AS column FROM information_schema.columns WHERE table_schema = $1 AND table_name = ANY($2::text[])`,
      [this.tables.schema, Object.keys(expected)],
    );
    for (const [table, columns] of Object.entries(expected)) {
      const present = new Set(rows.filter((r) => r.table === table).map((r) => r.column));
      const missing = columns.filter((c) => !present.has(c));
      if (missing.length > 0) {
        throw new Error(
          `table ${this.tables.schema}.${table} is not a profile store's (it lacks ${missing.join(', ')}): use another schema (?schema=…).`,
        );
      }
    }
  }
}

async function trigramSchema(client: pg.PoolClient): Promise<string | null> {
  const { rows } = await client.query<{ schema: string }>(
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`,
  );
  return rows[0]?.schema ?? null;
}
