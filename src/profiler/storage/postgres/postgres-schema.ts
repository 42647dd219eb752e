import type pg from 'pg';
import { kindCode, PROFILER_URL_PATTERN } from '../search-helpers.js';
import type { PostgresConnection } from './postgres-connection.js';
import { quoteIdent } from './postgres-sql.js';
import type { PostgresTables } from './postgres-tables.js';

/** The advisory lock serialising schema creation, database-wide (pg_trgm is too): "PROFSCHM". */
const SCHEMA_LOCK = '5787213827590357837';
/** Running totals of earlier layouts, no longer kept: dropped when the store opens. */
const DROPPED_TABLES = [
  'profiler_count',
  'profiler_ip_count',
  'profiler_kind_count',
  'profiler_ip_kind_count',
  'profiler_url_count',
  'profiler_skeleton_count',
  'profiler_skeleton_status_count',
  'profiler_text_count',
  'profiler_text_query',
];

export class PostgresSchema {
  /** Whether URL searches use the pg_trgm index (known once create() ran). */
  trigrams = false;

  constructor(
    private readonly tables: PostgresTables,
    private readonly connection: PostgresConnection,
    private readonly trigramIndex: boolean,
  ) {}

  /** In one transaction under an advisory lock: CREATE … IF NOT EXISTS is not safe for instances starting together. */
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
      // Partitioned by day, so a prune drops a day's table instead of rewriting most pages; a plain table predates it.
      await client.query(
        `DO $$ BEGIN IF (SELECT relkind FROM pg_class WHERE oid = to_regclass('${this.tables.text.replaceAll("'", "''")}')) = 'r'
         THEN EXECUTE 'DROP TABLE ${this.tables.text.replaceAll("'", "''")}'; END IF; END $$`,
      );
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${this.tables.text} (
          id bigint NOT NULL,                                 -- a profile's
          time bigint NOT NULL,                               -- the profile's: the newest matches first; the day
          kind smallint NOT NULL,                             -- the profile's
          method text COLLATE "C" NOT NULL,                   -- upper case
          status integer NOT NULL,
          doc tsvector NOT NULL
        ) PARTITION BY RANGE (time)`);
      // The prune floor (PostgresTables.liveText).
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
      // Earlier layouts' cascading foreign key (a trigger per row) slowed every prune, which deletes the blobs itself.
      // ALTER only when there is one: it locks both tables against every other instance.
      const { rows: cascading } = await client.query(
        `SELECT 1 FROM pg_constraint WHERE conrelid = to_regclass($1) AND conname = 'profiler_profile_data_id_fkey'`,
        [this.tables.data],
      );
      if (cascading.length > 0)
        await client.query(`ALTER TABLE ${this.tables.data} DROP CONSTRAINT profiler_profile_data_id_fkey`);
      await this.checkLayout(client);
      await client.query(
        `DROP TABLE IF EXISTS ${DROPPED_TABLES.map((table) => `${schema}.${table}`).join(', ')};
         DROP FUNCTION IF EXISTS ${schema}.profiler_url_skeleton(text);
         DROP INDEX IF EXISTS ${schema}.profiler_profile_url_exact`,
      );
      // Older layouts kept a row per stored token, which every prune would have to delete: gone, once.
      await client.query(`DELETE FROM ${this.tables.token} WHERE stored`);
      // Every index ends with (time, id): the newest matches of one value are an index range read backwards.
      const indexes = [
        `profiler_profile_time ON ${this.tables.profile} (time, id)`,
        `profiler_profile_ip ON ${this.tables.profile} (ip, time, id)`,
        `profiler_profile_method ON ${this.tables.profile} (upper(method), time, id)`,
        `profiler_profile_status ON ${this.tables.profile} (status, time, id)`,
        `profiler_profile_kind ON ${this.tables.profile} (kind, time, id)`,
        `profiler_profile_parent ON ${this.tables.profile} (parent, time, id) WHERE parent IS NOT NULL`,
        `profiler_profile_redirected_from ON ${this.tables.profile} (redirected_from, time, id) WHERE redirected_from IS NOT NULL`,
        // The unwritten reservations are few: found without reading the stored ones.
        `profiler_token_reserved ON ${this.tables.token} (owner, reserved_at) WHERE NOT stored`,
        // On every day's table (those made later too).
        `profiler_profile_text_doc ON ${this.tables.text} USING gin (doc)`,
        `profiler_profile_text_time ON ${this.tables.text} (time, id)`,
        // A kind with few texts (the search page counts those of the kinds it hides) is counted through it.
        `profiler_profile_text_kind ON ${this.tables.text} (kind, time, id)`,
      ];
      for (const index of indexes) await client.query(`CREATE INDEX IF NOT EXISTS ${index}`);
      this.trigrams = this.trigramIndex && (await this.createTrigramIndex(client));
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /** A store from before kinds: the new columns, and 'profiler' for the profiler's pages (by their URL). */
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
        await client.query('RELEASE SAVEPOINT trigrams');
        return true;
      } catch (error) {
        await client.query('ROLLBACK TO SAVEPOINT trigrams');
        // Somebody else created the extension at the same moment: it is there now.
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
      profiler_text_floor: ['time'],
      profiler_token: ['token', 'owner', 'stored', 'reserved_at'],
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
