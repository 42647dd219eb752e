import Database from 'better-sqlite3';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProfileSearchCriteria } from '../profile-record.js';
import { profilerStorageContract, record, storedCount } from '../testing/profiler-storage.contract.js';
import { fullTextSearchContract } from '../testing/full-text-search.contract.js';
import { DuplicateTokenError } from '../profiler-storage.js';
import { ProfilerStorageOpenError } from '../profiler-storage-open.error.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { SqliteProfilerStorage } from './sqlite-profiler.storage.js';
import { OLDEST_MIGRATED, SCHEMA_VERSION } from './sqlite-schema.js';

const require = createRequire(import.meta.url);

async function memoryStore(): Promise<SqliteProfilerStorage> {
  const storage = new SqliteProfilerStorage({ file: ':memory:' });
  await storage.open();
  return storage;
}

/** Runs `sql` on the store's file (closed first) with a connection of its own: a file as another version left it. */
function rewrite(file: string, sql: string): void {
  const db = new Database(file);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/** `look` run on a read-only connection to the store's file, closed afterwards. */
function inFile<T>(file: string, look: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true });
  try {
    return look(db);
  } finally {
    db.close();
  }
}

describe('SqliteProfilerStorage', () => {
  profilerStorageContract({ open: memoryStore, tokens: (storage) => (storage as SqliteProfilerStorage).tokens });

  describe('full-text search', () => fullTextSearchContract(memoryStore));

  it('never matches a pruned profile through its token entry, even once its key is reused by another token', async () => {
    const store = await memoryStore();
    await store.write([record('00000a', { time: 5000 }), record('00000b', { time: 9000 })]);
    expect(await store.prune({ maxProfiles: 1, maxAgeMs: 0, now: 0 })).toEqual(['00000a']);
    // The same millisecond, so the same key as 00000a's, whose token entry is still there (no sweep for one).
    await store.write([record('00000c', { time: 5000 })]);
    expect(await store.read('00000a')).toBeNull();
    expect(await store.read('00000c')).toEqual(record('00000c', { time: 5000 }));
    expect(await store.tokens.taken(['00000a', '00000c'])).toEqual(new Set(['00000c']));
    expect(await store.find({ limit: 10, token: '00000a' })).toEqual({ total: 0, rows: [] });
    expect((await store.find({ limit: 10, token: '00000' })).rows.map((r) => r.token)).toEqual(['00000b', '00000c']);
    await store.write([record('00000a', { time: 7000 })]);
    expect((await store.read('00000a'))?.time).toBe(7000);
    expect(await store.read('00000c')).toEqual(record('00000c', { time: 5000 }));
    await store.close();
  });

  it('sweeps the token entries of pruned profiles in memory too, on the event loop', async () => {
    const store = await memoryStore();
    const db = (store as unknown as { connection: SqliteConnection }).connection.db;
    const entries = () =>
      db.prepare('SELECT (SELECT count(*) FROM profile_token), (SELECT n FROM profile_token_stale)').raw().get();
    const profiles = Array.from({ length: 1200 }, (_, i) =>
      record((0x200000 + i).toString(16), { time: 2_000_000 + i }),
    );
    await store.write(profiles);
    expect(await store.prune({ maxProfiles: 700, maxAgeMs: 0, now: 0 })).toHaveLength(500);
    expect(entries()).toEqual([1200, 500]);
    expect(await store.prune({ maxProfiles: 100, maxAgeMs: 0, now: 0 })).toHaveLength(600);
    expect(entries()).toEqual([100, 0]);
    expect(await store.tokens.taken(profiles.map((p) => p.token))).toEqual(
      new Set(profiles.slice(1100).map((p) => p.token)),
    );
    await store.close();
  });

  it('counts no more than its read budget: filters common alone but rare together give a lower bound', async () => {
    const store = new SqliteProfilerStorage({ file: ':memory:', countReadBudget: 50 });
    await store.open();
    // 300 profiles: every third a POST, every second from 10.0.1.x (a sixth both), one from 10.9.9.9.
    await store.write(
      Array.from({ length: 300 }, (_, i) =>
        record((0x500000 + i).toString(16), {
          time: 1_000 + i,
          method: i % 3 === 0 ? 'POST' : 'GET',
          ip: i === 150 ? '10.9.9.9' : i % 2 === 0 ? `10.0.1.${i % 200}` : '192.168.0.1',
        }),
      ),
    );
    const both = await store.find({ limit: 3, method: 'POST', ip: '10.0.1.' });
    expect(both.atLeast).toBe(true);
    expect(both.total).toBeLessThan(50);
    expect(both.total).toBeGreaterThan(0);
    expect(both.rows.map((r) => r.token)).toEqual(['500126', '500120', '50011a']);
    expect(await store.find({ limit: 1, ip: '10.9.9.9', method: 'POST' })).toEqual({
      total: 1,
      rows: [expect.objectContaining({ token: '500096' })],
    });
    expect((await store.find({ limit: 0 })).atLeast).toBe(true);
    await store.close();
  });

  it("counts a filter's matches among the application's requests in its index, reading no row", async () => {
    const store = await memoryStore();
    const connection = (store as unknown as { connection: SqliteConnection }).connection;
    await store.write(
      Array.from({ length: 40 }, (_, i) =>
        record((0x600000 + i).toString(16), {
          time: 1_000 + i,
          ip: `10.0.${i % 4}.1`,
          kind: i % 5 === 0 ? 'asset' : 'application',
        }),
      ),
    );
    const executed: string[] = [];
    const statement = connection.statement.bind(connection);
    connection.statement = (sql: string) => {
      executed.push(sql);
      return statement(sql);
    };
    const criteria: ProfileSearchCriteria = { limit: 0, ip: '10.0.1.', kinds: ['application'] };
    expect((await store.find(criteria)).total).toBe(8);
    const counts = executed.filter((sql) => sql.includes('count(*)') && sql.includes('kind IN'));
    expect(counts.length).toBeGreaterThan(0);
    for (const sql of counts) {
      const plan = connection.db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...new Array<null>(sql.split('?').length - 1).fill(null)) as { detail: string }[];
      expect(plan.map((step) => step.detail).join('\n')).toMatch(/USING COVERING INDEX profile_ip \(ip>\? AND ip<\?\)/);
    }
    // The newest rows: their keys from the index alone, then the rows of those only.
    executed.length = 0;
    expect((await store.find({ ...criteria, limit: 3 })).rows.map((row) => row.token)).toEqual([
      '600025',
      '600021',
      '60001d',
    ]);
    const list = executed.find((sql) => sql.includes('WHERE p.id IN (SELECT p.id'));
    const plan = connection.db
      .prepare(`EXPLAIN QUERY PLAN ${list}`)
      .all(...new Array<null>(list!.split('?').length - 1).fill(null)) as { detail: string }[];
    expect(plan.map((step) => step.detail).join('\n')).toMatch(/USING COVERING INDEX profile_ip/);
    await store.close();
  });

  it('refuses to work before open() and after close()', async () => {
    const closed = new SqliteProfilerStorage({ file: ':memory:' });
    await expect(closed.find({ limit: 1 })).rejects.toThrow('not open');
    await closed.open();
    await closed.close();
    await expect(closed.find({ limit: 0 })).rejects.toThrow('not open');
  });

  it('asks for smaller batches after a commit longer than its slice, and lets them grow again while they fit', async () => {
    // The commit's clock: each write's two readings are `elapsed` apart.
    let elapsed = 0;
    let reading = 0;
    const store = new SqliteProfilerStorage({ file: ':memory:', clock: () => (reading++ % 2 === 0 ? 0 : elapsed) });
    await store.open();
    expect(store.batchLimit).toBe(Infinity);
    const batch = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => record((0x700000 + from + i).toString(16), { time: 1_000 + from + i }));
    elapsed = 4; // 100 profiles in 4 ms: within the 8 ms slice
    await store.write(batch(0, 100));
    expect(store.batchLimit).toBe(Infinity);
    elapsed = 20; // 100 in 20 ms: 40 fit in the slice
    await store.write(batch(100, 100));
    expect(store.batchLimit).toBe(40);
    elapsed = 2; // 40 in 2 ms: at most doubled
    await store.write(batch(200, 40));
    expect(store.batchLimit).toBe(80);
    elapsed = 800; // however slow, batches of 10 at least
    await store.write(batch(240, 80));
    expect(store.batchLimit).toBe(10);
    expect(await storedCount(store)).toBe(320);
    await store.close();
  });

  describe('in a file', () => {
    let dir: string;

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'shopkernel-storage-'));
    });

    afterEach(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    it("writes synchronously (a crash's last write), waiting for a lock another process holds a moment", async () => {
      const file = join(dir, 'sync.sqlite');
      const store = new SqliteProfilerStorage({ file });
      await store.open();
      expect(store.writesSynchronously).toBe(true);
      store.writeSync([record('000001', { data: { a: 1 } }), record('000002')]);
      expect(await store.read('000001')).toEqual(record('000001', { data: { a: 1 } }));
      expect(() => store.writeSync([record('000002')])).toThrow(DuplicateTokenError);
      // Another process (the command line's clear, say) holds the write lock for a while: the crash's write waits for it rather than failing.
      const holder = spawn(
        process.execPath,
        [
          '-e',
          `
        const db = new (require(${JSON.stringify(require.resolve('better-sqlite3'))}))(${JSON.stringify(file)});
        db.exec('BEGIN IMMEDIATE');
        process.stdout.write('locked\\n');
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400);
        db.exec('COMMIT');
      `,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
      const started = Date.now();
      store.writeSync([record('000003')]);
      expect(Date.now() - started).toBeGreaterThan(100);
      expect(await storedCount(store)).toBe(3);
      await new Promise((resolve) => holder.once('exit', resolve));
      await store.close();
    });

    it('refuses to open, saying which file and why, a store it could not write', async () => {
      const folder = join(dir, 'folder.sqlite');
      mkdirSync(folder);
      const parentFile = join(dir, 'a-file');
      writeFileSync(parentFile, '');
      const text = join(dir, 'text.sqlite');
      writeFileSync(text, 'not a database\n'.repeat(100));
      const failures: [string, string][] = [
        [folder, `Cannot open the SQLite profile store ${folder}: it is a directory (SQLITE_CANTOPEN)`],
        [
          join(parentFile, 'p.sqlite'),
          `Cannot open the SQLite profile store ${parentFile}/p.sqlite: its directory cannot be created: ${parentFile} is not a directory (EEXIST)`,
        ],
        [text, `Cannot open the SQLite profile store ${text}: file is not a database (SQLITE_NOTADB)`],
        [
          '/proc/shopkernel-none/p.sqlite',
          'Cannot open the SQLite profile store /proc/shopkernel-none/p.sqlite: its directory /proc/shopkernel-none cannot be created (ENOENT)',
        ],
      ];
      for (const [file, message] of failures) {
        const error = await new SqliteProfilerStorage({ file }).open().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ProfilerStorageOpenError);
        expect((error as Error).message).toBe(message);
      }
    });

    it('checkWritable() refuses a store file SQLite may only read (it opens it for reading, and every write would fail after)', async () => {
      const file = join(dir, 'read-only.sqlite');
      const store = new SqliteProfilerStorage({ file });
      await store.open();
      await store.close();
      // A file this process may only read: its mode, or for root (whom modes do not stop) the immutable flag.
      const root = process.getuid?.() === 0;
      if (root) {
        try {
          execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
        } catch {
          process.stderr.write(
            'checkWritable() on a read-only file was not tried: root cannot set the immutable flag here.\n',
          );
          return;
        }
      } else chmodSync(file, 0o444);
      const readOnly = new SqliteProfilerStorage({ file });
      try {
        // Opened for reading (the CLI's list), refused for writing (the application).
        await readOnly.open();
        expect(await storedCount(readOnly)).toBe(0);
        const error = await readOnly.checkWritable().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ProfilerStorageOpenError);
        expect((error as Error).message).toBe(
          `Cannot open the SQLite profile store ${file}: attempt to write a readonly database (SQLITE_READONLY)`,
        );
      } finally {
        await readOnly.close().catch(() => undefined);
        if (root) execFileSync('chattr', ['-i', file]);
        else chmodSync(file, 0o644);
      }
      const writable = new SqliteProfilerStorage({ file });
      await writable.open();
      await expect(writable.checkWritable()).resolves.toBeUndefined();
      await writable.close();
    });

    it(`creates the directory, the schema (user_version ${SCHEMA_VERSION}) and uses WAL mode`, async () => {
      const file = join(dir, 'nested', 'var', 'profiler.sqlite');
      const store = new SqliteProfilerStorage({ file });
      await store.open();
      await store.write([record('000001')]);
      inFile(file, (db) => {
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
        expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
        expect(db.prepare('SELECT token FROM profile').pluck().all()).toEqual(['000001']);
      });
      expect(await store.size()).toBeGreaterThan(0);
      await store.close();
    });

    it('keeps the profiles when reopened', async () => {
      const file = join(dir, 'profiler.sqlite');
      const first = new SqliteProfilerStorage({ file });
      await first.open();
      await first.write([record('000001', { data: { a: 1 } })]);
      await first.close();
      const second = new SqliteProfilerStorage({ file });
      await second.open();
      expect(await second.read('000001')).toEqual(record('000001', { data: { a: 1 } }));
      expect((await second.find({ limit: 1, method: 'GET' })).total).toBe(1);
      await second.close();
    });

    it('gives each profile its own key when two connections write the same millisecond, late profiles too', async () => {
      const file = join(dir, 'shared.sqlite');
      const [a, b] = [new SqliteProfilerStorage({ file }), new SqliteProfilerStorage({ file })];
      await a.open();
      await b.open();
      const t = 1_800_000_000_000;
      await a.write([record('00000a', { time: t }), record('00000b', { time: t })]);
      // b knows no key yet: its first choice, the millisecond's first key, is a's.
      await b.write([record('00000c', { time: t }), record('00000d', { time: t + 1 })]);
      await a.write([record('00000e', { time: t }), record('00000f', { time: t - 5 })]);
      await b.write([record('000010', { time: t + 1 }), record('000011', { time: t - 5 })]);
      const keys = inFile(file, (db) =>
        db.prepare('SELECT token, id FROM profile ORDER BY id').safeIntegers(true).all(),
      ) as { token: string; id: bigint }[];
      expect(keys.map((k) => k.token)).toEqual([
        '00000f',
        '000011',
        '00000a',
        '00000b',
        '00000c',
        '00000e',
        '00000d',
        '000010',
      ]);
      expect(keys.map((k) => Number(k.id >> 20n) - t)).toEqual([-5, -5, 0, 0, 0, 0, 1, 1]);
      expect((await a.find({ limit: 10 })).rows.map((row) => row.token)).toEqual(keys.map((k) => k.token).reverse());
      for (const token of ['00000c', '000011']) expect((await a.read(token))?.token).toBe(token);
      await a.close();
      await b.close();
    });

    it('refuses a file whose tables are not this schema', async () => {
      const file = join(dir, 'other.sqlite');
      rewrite(
        file,
        `CREATE TABLE profile (id INTEGER PRIMARY KEY, token TEXT, seq INTEGER); PRAGMA user_version = ${SCHEMA_VERSION}`,
      );
      await expect(new SqliteProfilerStorage({ file }).open()).rejects.toThrow(
        `${file} is not a profile store of this version (table profile lacks parent, ip, method, url_id, time, status, kind, duration, route, redirected_from)`,
      );
    });

    it('refuses a file whose tables are not those of the older version it claims, and leaves it as it was', async () => {
      const file = join(dir, 'other-v7.sqlite');
      rewrite(file, 'CREATE TABLE profile (id INTEGER PRIMARY KEY, token TEXT, seq INTEGER); PRAGMA user_version = 7');
      await expect(new SqliteProfilerStorage({ file }).open()).rejects.toThrow(
        `${file} is not a profile store of version 7 (migrating it to version ${SCHEMA_VERSION} failed: no such table: profile_count): point PROFILER_DSN to another file, or delete this one if it only holds profiles.`,
      );
      inFile(file, (after) => {
        expect(after.pragma('user_version', { simple: true })).toBe(7);
        expect(
          after.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all(),
        ).toEqual(['profile']);
      });
    });

    it(`migrates a store of version ${OLDEST_MIGRATED}: its profiles kept, searchable and pruned, new ones written after them`, async () => {
      const file = join(dir, 'v7.sqlite');
      const store = new SqliteProfilerStorage({ file });
      await store.open();
      await store.write([
        record('0000a1', { time: 1000, url: 'http://localhost/cart/12', method: 'POST', statusCode: 303 }),
        record('0000a2', { time: 2000, url: 'http://localhost/_profiler/abc', kind: 'profiler' }),
      ]);
      await store.close();
      // Back to version 7 as it was: running totals, URL skeletons, no stored count.
      rewrite(
        file,
        `CREATE TABLE profile_count (n INTEGER); CREATE TABLE profile_ip_count (n INTEGER);
         CREATE TABLE profile_url_count (n INTEGER); CREATE TABLE profile_url_skeleton_count (n INTEGER);
         CREATE TABLE profile_token_count (n INTEGER); CREATE TABLE profile_text_query (n INTEGER);
         CREATE TABLE profile_text_count (n INTEGER); CREATE TABLE profile_url_skeleton (id INTEGER PRIMARY KEY);
         ALTER TABLE profile_url ADD COLUMN skel_id INTEGER NOT NULL DEFAULT 0; CREATE INDEX profile_url_skel ON profile_url (skel_id);
         ALTER TABLE profile_write DROP COLUMN stored; DROP INDEX profile_kind_other; PRAGMA user_version = 7;`,
      );
      const migrated = new SqliteProfilerStorage({ file });
      await migrated.open();
      expect(migrated.openNotice).toBeNull();
      const tokens = async (criteria: Omit<ProfileSearchCriteria, 'limit'>) =>
        (await migrated.find({ limit: 10, ...criteria })).rows.map((r) => r.token);
      expect(await tokens({ url: 'cart/1', method: 'post', statusCode: '3' })).toEqual(['0000a1']);
      expect(await tokens({ kinds: ['application'] })).toEqual(['0000a1']);
      expect((await migrated.read('0000a1'))?.data).toEqual({});
      await migrated.write([record('0000b1', { time: 3000, url: 'http://localhost/cart/13', text: ['cart'] })]);
      expect(await tokens({ url: 'cart/' })).toEqual(['0000b1', '0000a1']);
      expect(await tokens({ text: 'cart' })).toEqual(['0000b1']);
      expect(await migrated.prune({ maxProfiles: 1, maxAgeMs: 0, now: 0 })).toEqual(['0000a1', '0000a2']);
      expect(await storedCount(migrated)).toBe(1);
      await migrated.close();
      inFile(file, (check) => {
        expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
        expect(check.prepare('SELECT stored FROM profile_write').pluck().get()).toBe(1);
        expect(
          check
            .prepare("SELECT count(*) FROM sqlite_schema WHERE name GLOB '*_count' OR name GLOB '*skel*'")
            .pluck()
            .get(),
        ).toBe(0);
      });
    });

    it('sets a store older than that aside, keeping it whole beside a new one, and says so once', async () => {
      for (const version of [1, OLDEST_MIGRATED - 1]) {
        const file = join(dir, `v${version}.sqlite`);
        rewrite(
          file,
          `CREATE TABLE profile (id INTEGER PRIMARY KEY, token TEXT); CREATE TABLE profile_data (id INTEGER PRIMARY KEY, data BLOB);
           INSERT INTO profile VALUES (1, '0000a1'); PRAGMA user_version = ${version};`,
        );
        // A store set aside before keeps its place: this one is numbered.
        if (version === 1) rewrite(`${file}.v1`, 'CREATE TABLE earlier (n INTEGER)');
        const aside = version === 1 ? `${file}.v1.1` : `${file}.v${version}`;
        const store = new SqliteProfilerStorage({ file });
        await store.open();
        expect(store.openNotice).toBe(
          `The profile store ${file} was written by an older version of the application (schema ${version}; ` +
            `this one migrates ${OLDEST_MIGRATED} and later): it was kept as ${aside}, and a new store started.`,
        );
        expect(await storedCount(store)).toBe(0);
        await store.write([record('0000b1')]);
        expect(await storedCount(store)).toBe(1);
        await store.close();
        inFile(aside, (old) => {
          expect(old.pragma('user_version', { simple: true })).toBe(version);
          expect(old.prepare('SELECT token FROM profile').pluck().all()).toEqual(['0000a1']);
        });
        inFile(file, (current) => expect(current.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION));
        const reopened = new SqliteProfilerStorage({ file });
        await reopened.open();
        expect(reopened.openNotice).toBeNull();
        await reopened.close();
      }
    });

    it('prunes a file in chunks on the event loop, a write between two chunks kept, every count exact', async () => {
      const file = join(dir, 'prune.sqlite');
      const store = new SqliteProfilerStorage({ file });
      await store.open();
      const profiles = Array.from({ length: 6000 }, (_, i) =>
        record((0x100000 + i).toString(16), {
          time: 1_000_000 + i,
          url: `http://localhost/item/${i % 700}`,
          method: i % 5 === 0 ? 'POST' : 'GET',
          ip: `10.0.${i % 300}.1`,
        }),
      );
      for (let i = 0; i < profiles.length; i += 1000) await store.write(profiles.slice(i, i + 1000));
      let turns = 0;
      let pruned = false;
      const spin = () => {
        turns++;
        if (!pruned) setImmediate(spin);
      };
      setImmediate(spin);
      const pruning = store.prune({ maxProfiles: 1000, maxAgeMs: 0, now: 0 });
      // Written while the prune goes on: newer than the count the prune started from, so kept.
      const late = record('200000', { time: 2_000_000, url: 'http://localhost/late' });
      await store.write([late]);
      const removed = await pruning;
      pruned = true;
      expect(removed).toEqual(profiles.slice(0, 5000).map((p) => p.token));
      // Chunks of at most twice the one before, from 100: the event loop ran between them.
      expect(turns).toBeGreaterThan(4);
      expect(await storedCount(store)).toBe(profiles.length + 1 - removed.length);
      const kept = [...profiles.slice(removed.length), late];
      expect((await store.find({ limit: 1, method: 'POST' })).total).toBe(
        kept.filter((p) => p.method === 'POST').length,
      );
      expect((await store.find({ limit: 1, ip: '10.0.1' })).total).toBe(
        kept.filter((p) => p.ip.startsWith('10.0.1')).length,
      );
      expect((await store.find({ limit: 1, url: 'item/' })).total).toBe(
        kept.filter((p) => p.url.includes('item/')).length,
      );
      expect((await store.find({ limit: 1, url: 'item/69' })).total).toBe(
        kept.filter((p) => p.url.includes('item/69')).length,
      );
      expect(await store.read(profiles[0].token)).toBeNull();
      expect(await store.read(late.token)).toEqual(late);
      await store.close();
      inFile(file, (check) => {
        // The token entries of the pruned profiles swept at the end (5,000 or more left behind).
        expect(check.prepare('SELECT count(*) FROM profile_token').pluck().get()).toBe(kept.length);
      });
    });

    it("keeps the full-text index by kind and day, drops a day's tables once its profiles are gone, and never matches a pruned profile's row", async () => {
      const file = join(dir, 'text-days.sqlite');
      const store = new SqliteProfilerStorage({ file });
      await store.open();
      const DAY = 86_400_000;
      const day = (n: number, ms = 0) => 20_000 * DAY + n * DAY + ms;
      await store.write([
        record('0000a1', { time: day(0, 1000), text: ['cart one'] }),
        record('0000a2', { time: day(0, 2000), kind: 'profiler', text: ['cart two'] }),
        record('0000b1', { time: day(1, 1000), text: ['cart three'] }),
        record('0000b2', { time: day(1, 5000), text: ['cart four'] }),
        record('0000c1', { time: day(2, 1000), text: ['cart five'] }),
      ]);
      const tables = () =>
        inFile(file, (db) =>
          db
            .prepare(
              "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'profile_text_[0-9]_*' AND name NOT GLOB '*_[a-z]*[a-z]' ORDER BY name",
            )
            .pluck()
            .all(),
        );
      expect(tables()).toEqual([
        'profile_text_0_20000',
        'profile_text_0_20001',
        'profile_text_0_20002',
        'profile_text_1_20000',
      ]);
      const cart = async () => (await store.find({ limit: 10, text: 'cart' })).rows.map((r) => r.token);
      // The first day and a part of the second pruned: the first day's tables go, the second's row stays unread.
      await store.prune({ maxProfiles: 2, maxAgeMs: 0, now: 0 });
      expect(await cart()).toEqual(['0000c1', '0000b2']);
      expect((await store.find({ limit: 10, text: 'three' })).total).toBe(0);
      expect(tables()).toEqual(['profile_text_0_20001', 'profile_text_0_20002']);
      // A late profile of the pruned day, and one with the key of the pruned 0000b1 (the same millisecond).
      await store.write([
        record('0000d1', { time: day(0, 500), text: ['cart late'] }),
        record('0000d2', { time: day(1, 1000), text: ['cart reused key'] }),
      ]);
      expect(await cart()).toEqual(['0000c1', '0000b2', '0000d2', '0000d1']);
      expect((await store.find({ limit: 10, text: 'three' })).total).toBe(0);
      expect((await store.find({ limit: 10, text: 'reused' })).total).toBe(1);
      expect((await store.find({ limit: 1, text: 'cart', start: day(0), end: day(1, 1000) })).total).toBe(2);
      await store.clear();
      expect(tables()).toEqual([]);
      expect(await cart()).toEqual([]);
      await store.close();
    });

    it('leaves the token entries of pruned profiles, which match nothing, and sweeps them once a thousand are left', async () => {
      const file = join(dir, 'sweep.sqlite');
      const store = new SqliteProfilerStorage({ file });
      await store.open();
      const profiles = Array.from({ length: 1500 }, (_, i) =>
        record((0x100000 + i).toString(16), { time: 1_000_000 + i }),
      );
      await store.write(profiles);
      const entries = () =>
        inFile(file, (db) => [
          db.prepare('SELECT count(*) FROM profile_token').pluck().get(),
          db.prepare('SELECT n FROM profile_token_stale').pluck().get(),
        ]);
      expect(await store.prune({ maxProfiles: 1400, maxAgeMs: 0, now: 0 })).toHaveLength(100);
      expect(entries()).toEqual([1500, 100]);
      const gone = profiles[0].token;
      expect(await store.read(gone)).toBeNull();
      expect(await store.tokens.taken([gone, profiles[100].token])).toEqual(new Set([profiles[100].token]));
      expect(await store.find({ limit: 10, token: gone })).toEqual({ total: 0, rows: [] });
      expect((await store.neighbours(gone)).next).toBeNull();
      // A pruned profile's token may be given again: the new profile takes the entry over.
      const again = record(gone, { time: 3_000_000, url: 'http://localhost/again' });
      await store.write([again]);
      expect(await store.read(gone)).toEqual(again);
      expect(await store.find({ limit: 10, token: gone })).toEqual({
        total: 1,
        rows: [expect.objectContaining({ token: gone, url: 'http://localhost/again' })],
      });
      expect(await store.prune({ maxProfiles: 300, maxAgeMs: 0, now: 0 })).toHaveLength(1101);
      // 1,201 counted (the entry taken over among them): swept, the count reset.
      expect(entries()).toEqual([300, 0]);
      expect(await store.read(gone)).toEqual(again);
      expect(await store.read(profiles[1200].token)).toBeNull();
      expect(await store.read(profiles[1201].token)).toEqual(profiles[1201]);
      await store.close();
    });

    it('refuses a store written by a newer schema', async () => {
      const file = join(dir, 'future.sqlite');
      rewrite(file, 'PRAGMA user_version = 99');
      await expect(new SqliteProfilerStorage({ file }).open()).rejects.toThrow('schema version 99');
    });
  });
});
