import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket, connect as netConnect } from 'node:net';
import pg from 'pg';
import { describePostgres, POSTGRES_URL } from '../../../../test/support/postgres.js';
import type { ProfileRecord, ProfileSearchCriteria } from '../profile-record.js';
import { ProfileWriteBuffer } from '../profile-write-buffer.js';
import { DuplicateTokenError } from '../profiler-storage.js';
import { COUNT_CAP } from '../search-helpers.js';
import { TokenPoller } from '../../tokens/token-poller.js';
import { TokenRegistry } from '../../tokens/token-registry.js';
import { TokenReservations } from '../../tokens/token-reservations.js';
import { fullTextSearchContract } from '../testing/full-text-search.contract.js';
import {
  profilerStorageContract,
  record,
  summary,
  T0,
  tokensOf,
  preKindProfiles,
  storedCount,
} from '../testing/profiler-storage.contract.js';
import type { PostgresConnection } from './postgres-connection.js';
import { PostgresProfilerStorage, type PostgresProfilerStorageOptions } from './postgres-profiler.storage.js';

const describeIfPostgres = describePostgres('PostgresProfilerStorage tests');

/** This run's schemas (a random prefix), all dropped afterwards. */
const PREFIX = `profiler_test_${process.pid}_${randomBytes(3).toString('hex')}`;
let schemas = 0;
const created: string[] = [];
function newSchema(): string {
  const schema = `${PREFIX}_${++schemas}`;
  created.push(schema);
  return schema;
}

class RecordingLogger {
  readonly warnings: string[] = [];
  warn(message: string): void {
    this.warnings.push(message);
  }
}

/** The SQL of every query the store's pool runs from now on (appended as they are sent). */
function recordStatements(storage: PostgresProfilerStorage): string[] {
  const pool = (storage as unknown as { connection: PostgresConnection }).connection.pool;
  const statements: string[] = [];
  const query = pool.query.bind(pool) as (sql: string, values?: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: typeof query }).query = (sql, values) => {
    statements.push(sql);
    return query(sql, values);
  };
  return statements;
}

/**
 * `count` profiles over 50 minutes, one in ten of a cart (`/cart/0` … `/cart/49`), the others of an item
 * (`/Item/<item(i)>`), with `more(i)` for the rest.
 */
function cartAndItems(
  count: number,
  item: (i: number) => string,
  more: (i: number) => Partial<ProfileRecord>,
): ProfileRecord[] {
  return Array.from({ length: count }, (_, i) =>
    record(i.toString(16).padStart(6, '0'), {
      time: T0 + ((i * 7919) % 3000) * 1000,
      url: i % 10 === 0 ? `http://localhost/cart/${i % 50}` : `http://localhost/Item/${item(i)}`,
      ...more(i),
    }),
  );
}

/** Profiles in the list's order: newest first, equal times in reverse write order. */
function newestOf(profiles: ProfileRecord[]): ProfileRecord[] {
  return profiles
    .map((p, i) => ({ p, i }))
    .sort((a, b) => b.p.time - a.p.time || b.i - a.i)
    .map(({ p }) => p);
}

/** Whether a profile matches a search's URL, method, status, IP and time filters, as the search page means them. */
function matchesCriteria(p: ProfileRecord, criteria: Omit<ProfileSearchCriteria, 'limit'>): boolean {
  return (
    (criteria.url === undefined || p.url.toLowerCase().includes(criteria.url.toLowerCase())) &&
    (criteria.method === undefined || p.method.toUpperCase() === criteria.method.toUpperCase()) &&
    (criteria.statusCode === undefined || String(p.statusCode).startsWith(criteria.statusCode)) &&
    (criteria.ip === undefined || p.ip.startsWith(criteria.ip)) &&
    (criteria.start === undefined || p.time >= criteria.start) &&
    (criteria.end === undefined || p.time <= criteria.end)
  );
}

/** The error a promise rejects with (fails if it fulfils). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected a rejection');
}

describeIfPostgres('PostgresProfilerStorage', () => {
  let admin: pg.Client;
  const opened: PostgresProfilerStorage[] = [];

  /** A store on `schema` (not opened), closed after the test. */
  const store = (schema: string, options: Partial<PostgresProfilerStorageOptions> = {}) => {
    const storage = new PostgresProfilerStorage({
      connectionString: POSTGRES_URL,
      schema,
      logger: new RecordingLogger(),
      ...options,
    });
    opened.push(storage);
    return storage;
  };

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  afterAll(async () => {
    for (const schema of created) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  describe('the storage contract', () => {
    const schema = newSchema();
    profilerStorageContract({
      open: async () => {
        const storage = new PostgresProfilerStorage({
          connectionString: POSTGRES_URL,
          schema,
          logger: new RecordingLogger(),
        });
        await storage.open();
        await storage.clear();
        return storage;
      },
      tokens: (storage) => (storage as PostgresProfilerStorage).tokens,
    });
  });

  describe('full-text search', () => {
    const schema = newSchema();
    const open = (options: Partial<PostgresProfilerStorageOptions>) => async () => {
      const storage = new PostgresProfilerStorage({
        connectionString: POSTGRES_URL,
        schema,
        logger: new RecordingLogger(),
        ...options,
      });
      await storage.open();
      await storage.clear();
      opened.push(storage);
      return storage;
    };
    fullTextSearchContract(open({}));
  });

  it('searches the words through their rows when they are rare, else through the profiles of rarer or row-only filters, alike', async () => {
    const storage = store(newSchema());
    await storage.open();
    const profiles = Array.from({ length: COUNT_CAP + 2000 }, (_, i) =>
      record(i.toString(16).padStart(6, '0'), {
        time: T0 + i * 1000,
        method: i % 40 === 1 ? 'DELETE' : i % 3 === 0 ? 'POST' : 'GET',
        statusCode: i % 100 === 7 ? 500 : i % 10 === 3 ? 404 : 200,
        ip: i % 1000 === 5 ? `10.9.0.${i % 7}` : i % 2 ? '192.168.1.1' : '127.0.0.1',
        kind: i % 4 === 2 ? 'asset' : 'application',
        url: i % 5 === 0 ? `http://localhost/cart/${i % 50}` : `http://localhost/item/${i}`,
        text: [i % 500 === 0 ? 'common and rare' : 'common'],
      }),
    );
    for (let i = 0; i < profiles.length; i += 2000) await storage.write(profiles.slice(i, i + 2000));
    const statements = recordStatements(storage);
    const newestFirst = newestOf(profiles);
    const cases: [Omit<ProfileSearchCriteria, 'limit'>, 'words' | 'profiles'][] = [
      [{ text: 'rare', ip: '192.168.' }, 'words'],
      [{ text: 'rare', statusCode: '2', kinds: ['application'] }, 'words'],
      [{ text: 'common', statusCode: '500' }, 'profiles'],
      [{ text: 'common', method: 'delete', kinds: ['application'] }, 'profiles'],
      [{ text: 'common', ip: '10.9.' }, 'profiles'],
      // Both common: the text rows' own columns, or the profiles when a filter is the profile's row's only.
      [{ text: 'common', statusCode: '2' }, 'words'],
      [{ text: 'common', statusCode: '20', start: T0 + 100_000 }, 'words'],
      [{ text: 'common', kinds: ['asset'], method: 'GET' }, 'profiles'],
      [{ text: 'common', ip: '1' }, 'profiles'],
      [{ text: 'common', url: 'localhost/', statusCode: '4' }, 'profiles'],
      [{ text: 'common', url: 'cart/', start: T0 + 500_000, end: T0 + 11_500_000 }, 'profiles'],
    ];
    for (const [criteria, driver] of cases) {
      statements.length = 0;
      const matches = newestFirst.filter(
        (p) =>
          matchesCriteria(p, criteria) &&
          p.text!.some((t) => t.includes(criteria.text!)) &&
          (criteria.kinds === undefined || criteria.kinds.includes(p.kind)),
      );
      const found = await storage.find({ limit: 5, ...criteria });
      expect({ criteria, found }).toEqual({
        criteria,
        found: {
          total: Math.min(matches.length, COUNT_CAP + 1),
          rows: matches.slice(0, 5).map((p) => summary({ ...p, text: undefined })),
        },
      });
      const byProfiles = statements.some((sql) => /profiler_profile p CROSS JOIN LATERAL/.test(sql));
      expect({ criteria, driver: byProfiles ? 'profiles' : 'words' }).toEqual({ criteria, driver });
    }
  });

  it("keeps the full-text words in a table a day, drops a day's once its profiles are gone, and never matches a pruned profile's", async () => {
    const schema = newSchema();
    const a = store(schema);
    const b = store(schema);
    await a.open();
    await b.open();
    const DAY = 86_400_000;
    const day = (n: number, ms = 0) => 20_000 * DAY + n * DAY + ms;
    await a.write([
      record('0000a1', { time: day(0, 1000), text: ['cart one'] }),
      record('0000a2', { time: day(0, 2000), kind: 'profiler', text: ['cart two'] }),
      record('0000b1', { time: day(1, 1000), text: ['cart three'] }),
      record('0000b2', { time: day(1, 5000), text: ['cart four'] }),
      record('0000c1', { time: day(2, 1000), text: ['cart five'] }),
    ]);
    const days = async () =>
      (
        await admin.query(
          `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '"${schema}".profiler_profile_text'::regclass ORDER BY 1`,
        )
      ).rows.map((r) => r.relname);
    expect(await days()).toEqual([
      'profiler_profile_text_d20000',
      'profiler_profile_text_d20001',
      'profiler_profile_text_d20002',
    ]);
    const cart = async () => tokensOf((await a.find({ limit: 10, text: 'cart' })).rows);
    await b.prune({ maxProfiles: 2, maxAgeMs: 0, now: 0 });
    expect(await cart()).toEqual(['0000c1', '0000b2']);
    expect((await a.find({ limit: 10, text: 'three' })).total).toBe(0);
    expect(await days()).toEqual(['profiler_profile_text_d20001', 'profiler_profile_text_d20002']);
    // a still believes the first day has a table: its write makes it again.
    await a.write([record('0000d1', { time: day(0, 500), text: ['cart late'] })]);
    expect(await cart()).toEqual(['0000c1', '0000b2', '0000d1']);
    expect((await a.find({ limit: 1, text: 'cart', start: day(0), end: day(1, 1000) })).total).toBe(1);
    expect(await a.size()).toBeGreaterThan(0);
    await a.clear();
    expect(await days()).toEqual([]);
    expect(await cart()).toEqual([]);
    await a.write([record('0000e1', { time: day(3), text: ['cart after the clear'] })]);
    expect(await cart()).toEqual(['0000e1']);
  });

  describe('schema', () => {
    it('creates its tables and indexes in the DSN schema, token unique, URL trigram-indexed', async () => {
      const schema = newSchema();
      const storage = store(schema);
      await storage.open();
      expect(storage.trigramIndexed).toBe(true);
      const tables = await admin.query(`SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`, [
        schema,
      ]);
      expect(tables.rows.map((r) => r.tablename)).toEqual([
        'profiler_profile',
        'profiler_profile_data',
        'profiler_profile_text',
        'profiler_text_floor',
        'profiler_token',
      ]);
      const indexes = await admin.query(
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname`,
        [schema],
      );
      const byName = new Map(indexes.rows.map((r) => [r.indexname as string, r.indexdef as string]));
      expect([...byName.keys()]).toEqual([
        'profiler_profile_data_pkey',
        'profiler_profile_ip',
        'profiler_profile_kind',
        'profiler_profile_method',
        'profiler_profile_parent',
        'profiler_profile_pkey',
        'profiler_profile_redirected_from',
        'profiler_profile_status',
        'profiler_profile_text_doc',
        'profiler_profile_text_kind',
        'profiler_profile_text_time',
        'profiler_profile_time',
        'profiler_profile_token_key',
        'profiler_profile_url',
        'profiler_token_pkey',
        'profiler_token_reserved',
      ]);
      expect(byName.get('profiler_profile_token_key')).toMatch(/^CREATE UNIQUE INDEX .* \(token\)$/);
      expect(byName.get('profiler_profile_url')).toMatch(/USING gin \(url (\S+\.)?gin_trgm_ops\)$/);
      expect(byName.get('profiler_profile_text_doc')).toMatch(/USING gin \(doc\)$/);
      // The URL search can use it (forced: the table is small).
      await storage.write(Array.from({ length: 50 }, (_, i) => record(i.toString(16).padStart(6, '0'))));
      await admin.query('BEGIN');
      try {
        await admin.query('SET LOCAL enable_seqscan = off');
        const plan = await admin.query(
          `EXPLAIN SELECT count(*) FROM "${schema}".profiler_profile p WHERE p.url ILIKE '%localhost/00002%'`,
        );
        expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('profiler_profile_url');
      } finally {
        await admin.query('ROLLBACK');
      }
    });

    it('runs its statements without JIT compilation or parallel workers', async () => {
      const storage = store(newSchema());
      await storage.open();
      const pool = (storage as unknown as { connection: PostgresConnection }).connection.pool;
      const { rows } = await pool.query(
        `SELECT current_setting('jit') AS jit, current_setting('max_parallel_workers_per_gather') AS workers`,
      );
      expect(rows).toEqual([{ jit: 'off', workers: '0' }]);
    });

    it('opens again on an existing schema, keeping its profiles', async () => {
      const schema = newSchema();
      const first = store(schema);
      await first.open();
      await first.write([record('000001', { data: { a: 1 } })]);
      await first.close();
      const second = store(schema);
      await second.open();
      expect(await second.read('000001')).toEqual(record('000001', { data: { a: 1 } }));
    });

    it("drops, when it opens, the stored tokens' rows of the layout before, and still refuses those tokens", async () => {
      const schema = newSchema();
      const first = store(schema);
      await first.open();
      await first.write([record('000001'), record('000002')]);
      expect(await first.tokens.reserveTokens(['000003'])).toEqual(['000003']);
      await first.close();
      // As the layout before left them: a row per stored token, and one reservation of a running instance.
      await admin.query(
        `INSERT INTO "${schema}".profiler_token (token, owner, stored) VALUES ('000001', '', true), ('000002', '', true), ('000004', 'other', false)`,
      );
      const second = store(schema);
      await second.open();
      const { rows } = await admin.query(`SELECT token, owner, stored FROM "${schema}".profiler_token ORDER BY token`);
      expect(rows).toEqual([{ token: '000004', owner: 'other', stored: false }]);
      expect(await second.tokens.reserveTokens(['000001', '000002', '000004', '000005'])).toEqual(['000005']);
    });

    it('opens a store of the version before kinds: its profiles kept, of kind application (profiler pages by their URL)', async () => {
      const schema = newSchema();
      const first = store(schema);
      await first.open();
      const written = preKindProfiles(T0);
      await first.write(written);
      await first.close();
      // The layout of the version before: no kind, duration, route nor redirect.
      await admin.query(`
        DROP INDEX "${schema}".profiler_profile_kind;
        ALTER TABLE "${schema}".profiler_profile DROP COLUMN kind, DROP COLUMN duration, DROP COLUMN route, DROP COLUMN redirected_from`);
      const logger = new RecordingLogger();
      const second = store(schema, { logger });
      await second.open();
      expect(logger.warnings).toEqual([]);
      const profilerPages = new Set(['000001', '000002', '000003']);
      const before = written.map(
        (p) =>
          ({
            ...p,
            kind: profilerPages.has(p.token) ? 'profiler' : 'application',
            duration: null,
            route: null,
            redirectedFrom: null,
          }) as const,
      );
      expect(await second.read('000001')).toEqual(before[1]);
      expect(await second.read('000004')).toEqual(before[4]);
      expect((await second.find({ limit: 10 })).rows).toEqual([...before].reverse().map(summary));
      const total = async (criteria: Omit<ProfileSearchCriteria, 'limit'>) =>
        (await second.find({ limit: 10, ...criteria })).total;
      expect(await total({ kinds: ['application'] })).toBe(4);
      expect(await total({ kinds: ['profiler'] })).toBe(3);
      expect(await total({ kinds: ['application'], ip: '10.' })).toBe(1);
      expect(await total({ kinds: ['profiler'], method: 'POST' })).toBe(1);
      expect(await second.redirectsFrom('000000')).toEqual([]);
      await second.write([record('000009', { time: T0 + 9_000_000, kind: 'asset', redirectedFrom: '000006' })]);
      expect(tokensOf(await second.redirectsFrom('000006'))).toEqual(['000009']);
      await second.prune({ maxProfiles: 5, maxAgeMs: 0, now: 0 });
      expect(await total({ kinds: ['application'] })).toBe(3);
      expect(await total({ kinds: ['asset'] })).toBe(1);
    });

    it("drops the running totals' tables of earlier layouts when it opens, and searches as before", async () => {
      const schema = newSchema();
      const first = store(schema);
      await first.open();
      await first.write(
        Array.from({ length: 30 }, (_, i) =>
          record(i.toString(16).padStart(6, '0'), {
            time: T0 + i * 1_800_000,
            method: i % 2 ? 'get' : 'POST',
            url: `http://localhost/orders/${i}`,
            text: [i % 3 ? 'cart lines' : 'stock'],
          }),
        ),
      );
      await first.close();
      // What earlier layouts kept besides the profiles: totals per hour, address, URL, skeleton and full-text query.
      const totals = [
        'profiler_count (hour bigint, method text, status integer, n bigint)',
        'profiler_ip_count (ip text, method text, status integer, n bigint)',
        'profiler_kind_count (hour bigint, kind smallint, method text, status integer, n bigint)',
        'profiler_ip_kind_count (ip text, kind smallint, method text, status integer, n bigint)',
        'profiler_url_count (url text PRIMARY KEY, skeleton text, n bigint)',
        'profiler_skeleton_count (skeleton text PRIMARY KEY, n bigint)',
        'profiler_skeleton_status_count (skeleton text, method text, status integer, n bigint)',
        'profiler_text_query (id integer PRIMARY KEY, query text UNIQUE)',
        'profiler_text_count (query_id integer, hour integer, kind smallint, method text, status integer, n integer)',
      ];
      for (const table of totals) await admin.query(`CREATE TABLE "${schema}".${table}`);
      await admin.query(`
        INSERT INTO "${schema}".profiler_kind_count VALUES (1, 0, 'GET', 200, 999);
        CREATE FUNCTION "${schema}".profiler_url_skeleton(url text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT url $$;
        CREATE INDEX profiler_profile_url_exact ON "${schema}".profiler_profile (url)`);
      const second = store(schema);
      await second.open();
      const left = await admin.query(
        `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relname = ANY($2::text[])
         UNION ALL SELECT proname FROM pg_proc WHERE pronamespace = to_regnamespace($3)`,
        [schema, [...totals.map((t) => t.split(' ')[0]), 'profiler_profile_url_exact'], `"${schema}"`],
      );
      expect(left.rows).toEqual([]);
      const total = async (criteria: Omit<ProfileSearchCriteria, 'limit'>) =>
        (await second.find({ limit: 10, ...criteria })).total;
      expect(await storedCount(second)).toBe(30);
      expect(await total({ method: 'GET' })).toBe(15);
      expect(await total({ url: 'orders/1' })).toBe(11);
      expect(await total({ text: 'cart', method: 'post' })).toBe(10);
      await second.write([record('0000ff', { time: T0 + 99_000_000, text: ['cart'] })]);
      await second.prune({ maxProfiles: 20, maxAgeMs: 0, now: 0 });
      expect(await storedCount(second)).toBe(20);
      expect(tokensOf((await second.find({ limit: 2, text: 'cart' })).rows)).toEqual(['0000ff', '00001d']);
    });

    it('finds a URL part, rare or common, alone or with other filters, as the profiles say', async () => {
      const schema = newSchema();
      const storage = store(schema);
      await storage.open();
      // "item/" is in 5,400 of 6,000, "item/12" and "cart" in a few hundred.
      const profiles = cartAndItems(
        6000,
        (i) => `${i % 2000}`,
        (i) => ({
          method: i % 3 === 0 ? 'POST' : 'GET',
          statusCode: i % 7 === 0 ? 404 : 200,
          ip: i % 4 === 0 ? '10.0.0.1' : '127.0.0.1',
        }),
      );
      for (let i = 0; i < profiles.length; i += 1000) await storage.write(profiles.slice(i, i + 1000));
      const newestFirst = newestOf(profiles);
      const cases: Omit<ProfileSearchCriteria, 'limit'>[] = [
        { url: 'item/' },
        { url: 'item/12' },
        { url: 'cart' },
        { url: 'ITEM/1999' },
        { url: '/1' },
        { url: 'localhost/' },
        { url: 'item/12', method: 'post' },
        { url: 'cart', statusCode: '4' },
        { url: 'item/1', method: 'GET', statusCode: '404', start: T0 + 500_000, end: T0 + 2_000_000 },
        { url: 'item/', statusCode: '404' },
        { url: 'cart/4', ip: '10.' },
      ];
      for (const criteria of cases) {
        const matches = newestFirst.filter((p) => matchesCriteria(p, criteria));
        expect({ criteria, found: await storage.find({ limit: 10, ...criteria }) }).toEqual({
          criteria,
          found: { total: matches.length, rows: matches.slice(0, 10).map(summary) },
        });
      }
    });

    it('lets several instances open a new schema at the same moment', async () => {
      const schema = newSchema();
      const instances = Array.from({ length: 4 }, () => store(schema));
      await Promise.all(instances.map((s) => s.open()));
      await instances[0].write([record('000001')]);
      for (const instance of instances) expect(await storedCount(instance)).toBe(1);
    });

    it('makes no trigram index when told not to, and still finds URL substrings', async () => {
      const schema = newSchema();
      const logger = new RecordingLogger();
      const storage = store(schema, { trigramIndex: false, logger });
      await storage.open();
      expect(storage.trigramIndexed).toBe(false);
      const indexes = await admin.query(
        `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexdef LIKE '%gin_trgm_ops%'`,
        [schema],
      );
      expect(indexes.rows).toEqual([]);
      // The same SQL as with the index (which only narrows the rows to check): the contract's URL cases again.
      await storage.write([
        record('000001', { url: 'http://localhost/Checkout?step=2' }),
        record('000002', { url: 'http://localhost/search?q=100%25_off' }),
        record('000003', { url: 'http://localhost/a_b/100%off' }),
        record('000004', { url: 'http://localhost/Café' }),
        record('000005', { url: 'http://localhost/CAFÉ' }),
      ]);
      const urls = async (url: string) => tokensOf((await storage.find({ limit: 10, url })).rows);
      expect(await urls('checkOUT')).toEqual(['000001']);
      expect(await urls('?')).toEqual(['000002', '000001']);
      expect(await urls('%')).toEqual(['000003', '000002']);
      expect(await urls('_off')).toEqual(['000002']);
      expect(await urls('a_b')).toEqual(['000003']);
      expect(await urls('cafÉ')).toEqual(['000005']);
      expect(await urls('CAFé')).toEqual(['000004']);
      expect(await urls('caf')).toEqual(['000005', '000004']);
      expect((await storage.find({ limit: 1, url: 'LOCALHOST' })).total).toBe(5);
      expect(logger.warnings).toEqual([]);
    });

    it('refuses a schema whose tables of the same names are not a profile store', async () => {
      const schema = newSchema();
      await admin.query(`CREATE SCHEMA "${schema}"`);
      await admin.query(
        `CREATE TABLE "${schema}".profiler_profile (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, token text UNIQUE)`,
      );
      const error = await rejection(store(schema).open());
      expect(String((error as Error).message)).toContain(
        `table ${schema}.profiler_profile is not a profile store's (it lacks parent, ip, method, url, time, status, kind, duration, route, redirected_from): use another schema (?schema=…).`,
      );
    });

    it('refuses to work before open() and after close()', async () => {
      const storage = store(newSchema());
      await expect(storage.find({ limit: 1 })).rejects.toThrow('The PostgreSQL profile store is not open');
      await storage.open();
      await storage.close();
      await expect(storedCount(storage)).rejects.toThrow('not open');
      await expect(storage.write([record('000001')])).rejects.toThrow('not open');
    });

    it('fails to open, with the password masked, when no server answers', async () => {
      const port = await freePort();
      const storage = store('public', { connectionString: `postgres://postgres:s3cret@127.0.0.1:${port}/test` });
      const error = (await rejection(storage.open())) as Error;
      expect(error.message).toMatch(
        new RegExp(
          `^Cannot open the PostgreSQL profile store postgres://postgres:\\*{6}@127\\.0\\.0\\.1:${port}/test \\(schema public\\): `,
        ),
      );
      expect(error.message).not.toContain('s3cret');
      await expect(storedCount(storage)).rejects.toThrow('not open');
    });
  });

  describe('several instances on one schema', () => {
    let schema: string;
    let a: PostgresProfilerStorage;
    let b: PostgresProfilerStorage;

    beforeEach(async () => {
      schema = newSchema();
      a = store(schema);
      b = store(schema);
      await Promise.all([a.open(), b.open()]);
    });

    it('refuses a reservation of a token whose write commits while the reservation waits for it, and grants none while it rolls back', async () => {
      expect(await a.tokens.reserveTokens(['00000a', '00000b'])).toEqual(['00000a', '00000b']);
      // A's writes, held open: each claims its reservation (deletes its row) and inserts the profile.
      const writing = async (token: string) => {
        const client = new pg.Client({ connectionString: POSTGRES_URL });
        await client.connect();
        await client.query('BEGIN');
        await client.query(`DELETE FROM "${schema}".profiler_token WHERE token = $1`, [token]);
        await client.query(
          `INSERT INTO "${schema}".profiler_profile (token, ip, method, url, time, status) VALUES ($1, '127.0.0.1', 'GET', 'http://localhost/', $2, 200)`,
          [token, T0],
        );
        return client;
      };
      for (const [token, end] of [
        ['00000a', 'COMMIT'],
        ['00000b', 'ROLLBACK'],
      ] as const) {
        const client = await writing(token);
        let settled = false;
        const reserving = b.tokens.reserveTokens([token]).finally(() => {
          settled = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect(settled).toBe(false);
        await client.query(end);
        await client.end();
        expect(await reserving).toEqual([]);
      }
      const { rows } = await admin.query(
        `SELECT token, owner = $1 AS a FROM "${schema}".profiler_token ORDER BY token`,
        [a.tokens.owner],
      );
      expect(rows).toEqual([{ token: '00000b', a: true }]);
    });

    it('reads and finds from one what the other wrote', async () => {
      const profile = record('0000a1', {
        ip: '192.168.1.10',
        method: 'POST',
        url: 'http://localhost/cart/items',
        statusCode: 303,
        data: { request: { method: 'POST' } },
      });
      await a.write([record('0000a0', { time: T0 - 1 }), profile]);
      expect(await b.read('0000a1')).toEqual(profile);
      expect(
        tokensOf((await b.find({ limit: 10, url: 'CART/', method: 'post', statusCode: '3', ip: '192.' })).rows),
      ).toEqual(['0000a1']);
      expect((await b.neighbours('0000a1')).previous?.token).toBe('0000a0');
      expect(await b.tokens.taken(['0000a0', '0000a1', '0000a2'])).toEqual(new Set(['0000a0', '0000a1']));
      const seen: string[] = [];
      for await (const token of b.tokens.allTokens()) seen.push(token);
      expect(seen).toEqual(['0000a0', '0000a1']);
    });

    it('refuses from one a token the other stored (DuplicateTokenError, nothing written), then takes new tokens', async () => {
      await a.write([record('000001')]);
      const error = await rejection(b.write([record('000002'), record('000001'), record('000003')]));
      expect(error).toBeInstanceOf(DuplicateTokenError);
      expect((error as DuplicateTokenError).tokens).toEqual(['000001']);
      expect(await storedCount(a)).toBe(1);
      expect(await a.read('000002')).toBeNull();
      // The same connection pool goes on writing.
      await b.write([record('000002'), record('000003')]);
      expect(tokensOf((await a.find({ limit: 10 })).rows)).toEqual(['000003', '000002', '000001']);
    });

    it('lets exactly one of two writes of the same token at the same moment win', async () => {
      const results = await Promise.allSettled([
        a.write([record('0000aa'), record('00000a')]),
        b.write([record('0000bb'), record('00000a')]),
      ]);
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(failed).toHaveLength(1);
      expect(failed[0].reason).toBeInstanceOf(DuplicateTokenError);
      expect((failed[0].reason as DuplicateTokenError).tokens).toEqual(['00000a']);
      expect(await storedCount(a)).toBe(2);
    });

    it('writes the rest of a batch through the write buffer when another instance has one of its tokens', async () => {
      await a.write([record('000001')]);
      const errors: unknown[] = [];
      const buffer = new ProfileWriteBuffer(b, {
        batchSize: 10,
        flushIntervalMs: 1000,
        bufferLimit: 100,
        onError: (e) => errors.push(e),
      });
      buffer.add(record('000002'));
      buffer.add(record('000001', { url: 'http://localhost/from-b' }));
      buffer.add(record('000003'));
      await buffer.flush();
      expect(buffer.pending).toBe(0);
      expect(buffer.dropped).toBe(1);
      expect(errors).toHaveLength(1);
      expect((errors[0] as DuplicateTokenError).tokens).toEqual(['000001']);
      expect(tokensOf((await a.find({ limit: 10 })).rows)).toEqual(['000003', '000002', '000001']);
      expect((await a.read('000001'))?.url).toBe('http://localhost/000001');
      await buffer.close();
    });

    it('prunes from both at once without removing more than the policy says', async () => {
      const profiles = Array.from({ length: 3000 }, (_, i) =>
        record(i.toString(16).padStart(6, '0'), { time: T0 + i }),
      );
      for (let i = 0; i < profiles.length; i += 1000) await a.write(profiles.slice(i, i + 1000));
      const policy = { maxProfiles: 1000, maxAgeMs: 0, now: T0 };
      const [byA, byB] = await Promise.all([a.prune(policy), b.prune(policy)]);
      expect(await storedCount(a)).toBe(1000);
      expect([...byA, ...byB].sort()).toEqual(profiles.slice(0, 2000).map((p) => p.token));
      expect(new Set([...byA, ...byB]).size).toBe(byA.length + byB.length);
      expect(tokensOf((await b.find({ limit: 1, start: 0, end: T0 + 1999 })).rows)).toEqual([]);
    });

    it('writes and prunes from both at once, the text index and the searches agreeing with the rows after', async () => {
      const batch = (k: number) =>
        Array.from({ length: 200 }, (_, i) => {
          const n = k * 200 + i;
          return record(n.toString(16).padStart(6, '0'), {
            time: T0 + n * 60_000,
            method: ['GET', 'post', 'Delete'][n % 3],
            url: `http://localhost:8000/product/${n % 7}?page=${n % 5}`,
            text: [`product ${n % 7}`],
          });
        });
      await a.write(batch(0));
      await b.write(batch(1));
      const policy = { maxProfiles: 300, maxAgeMs: 0, now: T0 };
      await Promise.all([a.write(batch(2)), b.prune(policy), b.write(batch(3)), a.prune(policy), a.write(batch(4))]);
      const rows = async (sql: string) => Number((await admin.query(sql)).rows[0].n);
      const stored = await rows(`SELECT count(*) AS n FROM "${schema}".profiler_profile`);
      expect(await storedCount(b)).toBe(stored);
      expect((await b.find({ limit: 0, text: 'product' })).total).toBe(stored);
      expect((await a.find({ limit: 0, method: 'DELETE' })).total).toBe(
        await rows(`SELECT count(*) AS n FROM "${schema}".profiler_profile WHERE method = 'Delete'`),
      );
    });

    it('is cleared by one for both', async () => {
      await a.write([record('000001'), record('000002')]);
      expect(await b.clear()).toBe(2);
      expect(await storedCount(a)).toBe(0);
      await a.write([record('000001')]);
      expect(await storedCount(b)).toBe(1);
    });

    it('refuses to reserve or write a token the other reserved, and frees a reservation on release, close and prune', async () => {
      expect(await a.tokens.reserveTokens(['000005', '000006', '000007'])).toEqual(['000005', '000006', '000007']);
      expect(await b.tokens.reserveTokens(['000005', '000008'])).toEqual(['000008']);
      const error = await rejection(b.write([record('000008'), record('000005')]));
      expect(error).toBeInstanceOf(DuplicateTokenError);
      expect((error as DuplicateTokenError).tokens).toEqual(['000005']);
      await a.write([record('000005')]);
      await b.write([record('000008')]);
      // A stored token stays taken for both; a released one is free.
      await a.tokens.releaseTokens(['000005', '000006']);
      expect(await b.tokens.reserveTokens(['000005', '000006'])).toEqual(['000006']);
      // Clearing frees the stored tokens, not the reservations.
      await b.clear();
      expect(await b.tokens.reserveTokens(['000005', '000007'])).toEqual(['000005']);
      await a.close();
      expect(await b.tokens.reserveTokens(['000007'])).toEqual(['000007']);
      await b.write([record('000007', { time: T0 }), record('000009', { time: T0 + 5 })]);
      await b.prune({ maxProfiles: 1, maxAgeMs: 0, now: T0 });
      const c = store(schema);
      await c.open();
      expect(await c.tokens.reserveTokens(['000007', '000009'])).toEqual(['000007']);
    });

    it('learns through tokensSince what the other wrote, across pages', async () => {
      const start = await b.tokens.tokensSince(null);
      await a.write(Array.from({ length: 7 }, (_, i) => record(`00001${i}`)));
      const first = await b.tokens.tokensSince(start.cursor, 5);
      const second = await b.tokens.tokensSince(first.cursor, 5);
      expect([...first.tokens, ...second.tokens]).toEqual(Array.from({ length: 7 }, (_, i) => `00001${i}`));
    });

    it("never loses a profile when one instance's registry draws a token the other stored (reserved before sent)", async () => {
      // Tiny token spaces (16 tokens) make every draw a likely collision; B's registry knows nothing of A's.
      const registryA = new TokenRegistry({ bits: 4, maxAttempts: 10_000 });
      const registryB = new TokenRegistry({ bits: 4, maxAttempts: 10_000 });
      const poolA = new TokenReservations(a.tokens, registryA, { batchSize: 4 });
      await poolA.start();
      const sentByA = Array.from({ length: 4 }, () => poolA.next());
      await a.write(sentByA.map((t) => record(t)));
      // A gives back the reservations it drew ahead (its refill), so that only its 4 stored tokens are taken.
      await poolA.close();
      // B's registry sees 8 free tokens: A's 4 (which it does not know of) and 4 really free. Its first
      // reservation of 8 draws every one of them, so it certainly meets A's tokens, and the store must refuse them.
      const all = Array.from({ length: 16 }, (_, i) => i.toString(16).padStart(6, '0'));
      const free = all.filter((t) => !sentByA.includes(t)).slice(0, 4);
      for (const t of all) if (!sentByA.includes(t) && !free.includes(t)) registryB.mark(t);
      const poolB = new TokenReservations(b.tokens, registryB, { batchSize: 8 });
      await poolB.start();
      const sentByB: string[] = [];
      for (let i = 0; i < 4; i++) {
        // As traffic does, leave the background refill time to answer (a refused token is drawn again).
        for (let wait = 0; poolB.size === 0 && wait < 100; wait++) await poolB.maintain();
        sentByB.push(poolB.next());
      }
      expect(poolB.unreserved).toBe(0);
      expect(sentByB.filter((t) => sentByA.includes(t))).toEqual([]);
      expect([...sentByB].sort()).toEqual(free);
      await b.write(sentByB.map((t) => record(t)));
      expect(await storedCount(a)).toBe(8);
      // B's registry drew (and the store refused) A's tokens: they stay marked taken there.
      expect(sentByA.every((t) => registryB.has(t))).toBe(true);
      await poolB.close();
    });

    it("makes A's tokens taken in B's registry after B polls", async () => {
      const registryB = new TokenRegistry();
      const poller = new TokenPoller(b.tokens, registryB, { intervalMs: 0 });
      await a.write([record('00a001')]);
      expect(await poller.seed()).toBe(1);
      await a.write([record('00a002'), record('00a003')]);
      expect(registryB.has('00a002')).toBe(false);
      expect(await poller.run()).toBe(2);
      expect(['00a001', '00a002', '00a003'].map((t) => registryB.has(t))).toEqual([true, true, true]);
    });
  });

  describe('a lost connection', () => {
    it('never crashes: calls reject while the server is away, the write buffer retries, and the pool reconnects', async () => {
      const proxy = new TcpProxy(new URL(POSTGRES_URL));
      const port = await proxy.start();
      const url = new URL(POSTGRES_URL);
      url.host = `127.0.0.1:${port}`;
      const logger = new RecordingLogger();
      const storage = store(newSchema(), { connectionString: url.toString(), logger });
      await storage.open();
      await storage.write([record('000001')]);
      expect(await storedCount(storage)).toBe(1);

      await proxy.stop();
      await waitFor(() => logger.warnings.length > 0);
      expect(logger.warnings[0]).toMatch(/^The PostgreSQL profile store lost an idle connection/);
      // (pg's errors come from Node's realm, not the test's: not `toBeInstanceOf(Error)`.)
      expect(String(((await rejection(storedCount(storage))) as Error).message)).not.toBe('');
      const errors: unknown[] = [];
      const buffer = new ProfileWriteBuffer(storage, {
        batchSize: 10,
        flushIntervalMs: 10,
        bufferLimit: 100,
        retryDelayMs: 20,
        onError: (e) => errors.push(e),
      });
      buffer.add(record('000002'));
      await buffer.flush();
      expect(buffer.pending).toBe(1);
      expect(errors.length).toBeGreaterThan(0);
      expect(errors[0]).not.toBeInstanceOf(DuplicateTokenError);

      await proxy.start(port);
      await waitFor(async () => {
        await buffer.flush();
        return buffer.pending === 0;
      });
      expect(tokensOf((await storage.find({ limit: 10 })).rows)).toEqual(['000002', '000001']);
      await buffer.close();
      await proxy.stop();
    });
  });
});

/** Forwards TCP connections to the PostgreSQL server; stop() cuts every connection, as a server restart would. */
class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly target: URL) {}

  async start(port = 0): Promise<number> {
    const server = createServer((client) => {
      const upstream = netConnect(Number(this.target.port || 5432), this.target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('Timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
