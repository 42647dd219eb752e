import type { Response } from 'express';
import { sql } from 'kysely';
import { fileURLToPath } from 'node:url';
import { AppConfig } from '../config/app-config.js';
import { KernelContext, kernelContextStorage } from '../lifecycle/kernel-context.js';
import { KernelLogger } from '../lifecycle/logging/kernel-logger.js';
import { LogLevel } from '../lifecycle/logging/log-level.js';
import { Profile, PROFILE } from '../profiler/profile.js';
import { createShopDb } from './database.factory.js';
import { DatabaseMigrator } from './database-migrator.js';
import { queryEntries } from './query-entries.js';
import { MAX_RECORDED_QUERIES, queryTimings, recordedQueries } from './query-recorder.js';
import type { ShopDb } from './shop-db.js';
import { here } from '../../test/support/here.js';

const THIS_FILE = fileURLToPath(import.meta.url);

function requestContext(profiled: boolean): KernelContext {
  const context = new KernelContext({} as Response, 'en');
  if (profiled) context.set(PROFILE, new Profile('abc123', null, '127.0.0.1', 'GET', 'http://shop.test/', Date.now()));
  return context;
}

describe('QueryRecorder', () => {
  let db: ShopDb;

  beforeAll(async () => {
    const logger = new KernelLogger(AppConfig.fromEnv({ APP_ENV: 'test' }));
    db = createShopDb('sqlite::memory:', { baseDir: '/tmp', logger });
    await new DatabaseMigrator(db, 'sqlite::memory:').migrateToLatest();
    await db.insertInto('categories').values({ slug: 'tea', name: 'Tea' }).execute();
  });

  afterAll(async () => {
    await db.destroy();
  });

  it('records a query of a profiled request with its SQL, parameters, duration, start and caller', async () => {
    const context = requestContext(true);
    const [line, rows] = await kernelContextStorage.run(
      context,
      async () =>
        [here(), await db.selectFrom('categories').select(['id', 'name']).where('slug', '=', 'tea').execute()] as const,
    );
    expect(rows).toEqual([{ id: 1, name: 'Tea' }]);
    const [query, ...others] = recordedQueries(context)!.queries;
    expect(others).toEqual([]);
    expect(query.sql).toBe('select "id", "name" from "categories" where "slug" = ?');
    expect(query.params).toEqual(['tea']);
    expect(query.error).toBeNull();
    expect(typeof query.duration).toBe('number');
    expect(query.duration).toBeGreaterThanOrEqual(0);
    expect(query.start).toBeGreaterThanOrEqual(0);
    expect(query.caller).toEqual({ file: THIS_FILE, line, column: expect.any(Number) });
  });

  it('logs each query on the database channel at DEBUG, on the request', async () => {
    const context = requestContext(false);
    await kernelContextStorage.run(context, () => sql`select ${42} as answer`.execute(db));
    const entry = context.logs.find((e) => e.channel === 'database')!;
    expect(entry.level).toBe(LogLevel.DEBUG);
    expect(entry.template).toBe('Query ({duration} ms): {sql}');
    expect(entry.context).toMatchObject({ sql: 'select ? as answer', params: [42] });
    expect(typeof entry.context.duration).toBe('number');
  });

  it('records raw SQL, transactions and failures; a failure keeps its error message', async () => {
    const context = requestContext(true);
    const lines: number[] = [];
    await kernelContextStorage.run(context, async () => {
      const coffee = (trx: typeof db) => trx.insertInto('categories').values({ slug: 'coffee', name: 'Coffee' });
      const teaAgain = db.insertInto('categories').values({ slug: 'tea', name: 'Tea again' });
      const outcome = (run: Promise<unknown>) =>
        run.then(
          () => 0,
          () => -1,
        );
      await db.transaction().execute(async (trx) => {
        lines.push(here(), (await coffee(trx).execute()).length);
      });
      lines.push(here(), await outcome(teaAgain.execute()));
    });
    const queries = recordedQueries(context)!.queries;
    // Kysely runs BEGIN and COMMIT as queries too: they are part of the request's database work.
    expect(queries.map((q) => [q.sql, q.error])).toEqual([
      ['begin', null],
      ['insert into "categories" ("slug", "name") values (?, ?)', null],
      ['commit', null],
      ['insert into "categories" ("slug", "name") values (?, ?)', 'UNIQUE constraint failed: categories.slug'],
    ]);
    expect(lines[3]).toBe(-1);
    expect(queries.map((q) => q.caller?.line ?? null)).toEqual([null, lines[0], null, lines[2]]);
    const failure = context.logs.filter((e) => e.channel === 'database')[3];
    expect(failure.template).toBe('Query failed ({duration} ms): {sql}');
    expect(failure.context.error).toBe('UNIQUE constraint failed: categories.slug');
  });

  it('names the caller of every kind of query: execute, executeTakeFirst(OrThrow), update, delete, raw SQL', async () => {
    const context = requestContext(true);
    const lines: number[] = [];
    await kernelContextStorage.run(context, async () => {
      lines.push(
        here(),
        (await db.selectFrom('categories').select('id').where('slug', '=', 'tea').executeTakeFirst())!.id,
      );
      lines.push(
        here(),
        (await db.selectFrom('categories').select('id').where('slug', '=', 'tea').executeTakeFirstOrThrow()).id,
      );
      lines.push(
        here(),
        Number(
          (await db.updateTable('categories').set({ name: 'Tea' }).where('slug', '=', 'tea').executeTakeFirst())
            .numUpdatedRows,
        ),
      );
      lines.push(
        here(),
        Number((await db.deleteFrom('categories').where('slug', '=', 'none').executeTakeFirst()).numDeletedRows),
      );
      lines.push(here(), (await sql<{ n: number }>`select ${7} as n`.execute(db)).rows[0].n);
    });
    expect(lines.filter((_, i) => i % 2 === 1)).toEqual([1, 1, 1, 0, 7]);
    const queries = recordedQueries(context)!.queries;
    expect(queries.map((q) => q.caller)).toEqual(
      lines.filter((_, i) => i % 2 === 0).map((line) => ({ file: THIS_FILE, line, column: expect.any(Number) })),
    );
  });

  it('knows the execute method of every kind of query, so that callers are captured below it', () => {
    const entries = queryEntries(db);
    expect([...entries.keys()].sort()).toEqual([
      'DeleteQueryNode',
      'InsertQueryNode',
      'MergeQueryNode',
      'RawNode',
      'SelectQueryNode',
      'UpdateQueryNode',
    ]);
    expect(entries.get('SelectQueryNode')).toBe(Object.getPrototypeOf(db.selectFrom('products')).execute);
    expect(entries.get('RawNode')).toBe(Object.getPrototypeOf(sql`select 1`).execute);
    for (const execute of entries.values()) expect(execute.name).toBe('execute');
  });

  it('captures no caller when the request is not profiled', async () => {
    const context = requestContext(false);
    await kernelContextStorage.run(context, () => db.selectFrom('categories').selectAll().execute());
    expect(recordedQueries(context)!.queries.map((q) => q.caller)).toEqual([null]);
  });

  it('outside any request, queries run and nothing is recorded', async () => {
    const rows = await db.selectFrom('categories').select('slug').orderBy('slug').execute();
    expect(rows.map((r) => r.slug)).toEqual(['coffee', 'tea']);
    expect(recordedQueries()).toBeUndefined();
  });

  it('keeps at most MAX_RECORDED_QUERIES per request and counts the others', async () => {
    const context = requestContext(false);
    await kernelContextStorage.run(context, async () => {
      for (let i = 0; i < MAX_RECORDED_QUERIES + 3; i++) await sql`select 1`.execute(db);
    });
    const recorded = recordedQueries(context)!;
    expect([recorded.queries.length, recorded.dropped]).toEqual([MAX_RECORDED_QUERIES, 3]);
  });

  it('gives the Performance timeline a bar per query, labelled with its SQL', async () => {
    const context = requestContext(false);
    await kernelContextStorage.run(context, async () => {
      await db.selectFrom('categories').select(['id', 'slug', 'name', 'description', 'position']).execute();
      await sql`select 1`.execute(db);
    });
    const timings = queryTimings(context);
    expect(timings.map((t) => t.name)).toEqual(['#1 select "id", "slug", "name", "description",…', '#2 select 1']);
    expect(timings[1].start).toBeGreaterThanOrEqual(timings[0].start);
  });
});
