import type { NestExpressApplication } from '@nestjs/platform-express';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { parse, type HTMLElement } from 'node-html-parser';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import request from 'supertest';
import { createShopDb } from '../src/database/database.factory.js';
import { DatabaseMigrator } from '../src/database/database-migrator.js';
import * as localProductImages from '../src/database/migrations/0006-local-product-images.js';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../src/database/shop-db.js';
import { DatabaseFixturesModule } from './fixtures/database-fixtures.module.js';
import { buildCatalogue } from '../src/database/seed/catalogue.js';
import { createTestApp } from './support/create-test-app.js';
import { describePostgres as describePostgresIfAvailable, POSTGRES_URL } from './support/postgres.js';
import { describeOnEachDatabase, type TestDatabase as ShopTestDatabase } from './support/shop-databases.js';
import { storedProfile } from './support/profiler.js';
import { MIGRATIONS } from '../src/database/migrations/index.js';

const HOST = 'shop.test';
const TABLES = [
  'cart_lines',
  'carts',
  'categories',
  'order_lines',
  'orders',
  'products',
  'rate_limits',
  'remember_me_tokens',
  'sessions',
  'users',
];
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();

const describePostgres = describePostgresIfAvailable('PostgreSQL tests');

/**
 * The message a query failed with. (Not `rejects.toThrow`: better-sqlite3's native module makes its errors with the
 * Error of the first Jest test file that loaded it, which later files do not recognise as errors.)
 */
async function failureOf(query: Promise<unknown>): Promise<string> {
  try {
    await query;
  } catch (error) {
    return String((error as { message?: unknown }).message);
  }
  throw new Error('The query succeeded');
}

/** The same URL, every session of it working in `schema`. */
function inSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

interface TestDatabase {
  url: string;
  /** The tables of this database (its schema only). */
  tables(db: ShopDb): Promise<string[]>;
}

/** What the data layer guarantees on either dialect. */
function dataLayerContract(database: () => TestDatabase): void {
  let db: ShopDb;

  beforeEach(async () => {
    db = createShopDb(database().url, { baseDir: tmpdir() });
  });

  afterEach(async () => {
    await db.destroy();
  });

  it('migrates an empty database to every table, once', async () => {
    const migrator = new DatabaseMigrator(db, 'test database');
    // What the core owns: its migrations, in order, and its tables; a feature module's come after (its own tests).
    const core = Object.keys(MIGRATIONS);
    const applied = await migrator.migrateToLatest();
    expect(applied.filter((name) => core.includes(name))).toEqual(core);
    expect(core).toEqual([
      '0001-catalogue',
      '0002-accounts',
      '0003-carts-orders',
      '0004-remember-me',
      '0005-order-addresses',
      '0006-local-product-images',
      '0007-remember-me-grace',
      '0008-rate-limits',
    ]);
    expect((await database().tables(db)).filter((t) => !t.startsWith('kysely_'))).toEqual(
      expect.arrayContaining(TABLES),
    );
    expect(await migrator.migrateToLatest()).toEqual([]);
    const status = (await migrator.status()).filter((m) => core.includes(m.name));
    expect(status.map((m) => [m.name, m.executedAt instanceof Date])).toEqual(core.map((name) => [name, true]));
  });

  it("points the pictures of a catalogue seeded with external images at the shop's own (0006), leaving others alone", async () => {
    await new DatabaseMigrator(db, 'test database').migrateToLatest();
    const category = await db
      .insertInto('categories')
      .values({ slug: 'tea', name: 'Tea' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const product = (slug: string, image_url: string | null) => ({
      slug,
      name: slug,
      price_cents: 990,
      stock: 1,
      category_id: category.id,
      image_url,
    });
    await db
      .insertInto('products')
      .values([
        product('green-tea', 'https://picsum.photos/seed/green-tea/800/600'),
        product('black-tea', 'https://cdn.example.com/black-tea.jpg'),
        product('white-tea', null),
      ])
      .execute();
    const images = async () => db.selectFrom('products').select(['slug', 'image_url']).orderBy('slug').execute();
    await localProductImages.up(db);
    expect(await images()).toEqual([
      { slug: 'black-tea', image_url: 'https://cdn.example.com/black-tea.jpg' },
      { slug: 'green-tea', image_url: '/images/products/green-tea.svg' },
      { slug: 'white-tea', image_url: null },
    ]);
    await localProductImages.down(db);
    expect((await images()).map((p) => p.image_url)).toEqual([
      'https://cdn.example.com/black-tea.jpg',
      'https://picsum.photos/seed/green-tea/800/600',
      null,
    ]);
  });

  it('refuses negative stock (CHECK), on insert and on update', async () => {
    await new DatabaseMigrator(db, 'test database').migrateToLatest();
    const category = await db
      .insertInto('categories')
      .values({ slug: 'tea', name: 'Tea' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const product = { slug: 'green-tea', name: 'Green Tea', price_cents: 990, category_id: category.id };
    expect(
      await failureOf(
        db
          .insertInto('products')
          .values({ ...product, stock: -1 })
          .execute(),
      ),
    ).toMatch(/products_stock_not_negative/);
    const { id } = await db
      .insertInto('products')
      .values({ ...product, stock: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(
      await failureOf(
        db
          .updateTable('products')
          .set((eb) => ({ stock: eb('stock', '-', 2) }))
          .where('id', '=', id)
          .execute(),
      ),
    ).toMatch(/products_stock_not_negative/);
    await db
      .updateTable('products')
      .set((eb) => ({ stock: eb('stock', '-', 1) }))
      .where('id', '=', id)
      .execute();
    expect(
      await db.selectFrom('products').select(['stock', 'search_text']).where('id', '=', id).executeTakeFirstOrThrow(),
    ).toEqual({ stock: 0, search_text: 'green tea ' });
  });

  it('seeds the catalogue, and seeds it again in place without touching users and orders', async () => {
    await new DatabaseMigrator(db, 'test database').migrateToLatest();
    const first = await seedCatalogue(db);
    expect(first).toEqual({
      categories: 10,
      products: 240,
      inserted: 240,
      updated: 0,
      removedProducts: 0,
      removedCategories: 0,
    });
    const counts = () =>
      db
        .selectFrom('products')
        .select((eb) => [
          eb.fn.countAll<number>().as('products'),
          eb.fn.count<number>('slug').distinct().as('slugs'),
          eb.fn.count<number>('category_id').distinct().as('categories'),
        ])
        .executeTakeFirstOrThrow();
    expect(await counts()).toEqual({ products: 240, slugs: 240, categories: 10 });
    expect(
      await db
        .selectFrom('categories')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ).toEqual({ n: 10 });
    const espresso = await db
      .selectFrom('products')
      .selectAll()
      .where('slug', '=', 'ethiopian-espresso-roast-1-kg')
      .executeTakeFirstOrThrow();
    expect(espresso).toMatchObject({
      name: 'Ethiopian Espresso Roast, 1 kg',
      price_cents: 2890,
      stock: 43,
      created_at: '2025-06-30T09:00:00.000Z',
    });

    // A customer with an order and a cart, and a product sold out since.
    const user = await db
      .insertInto('users')
      .values({ email: 'ada@example.com', password_hash: 'x' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const order = await db
      .insertInto('orders')
      .values({ reference: 'SK-000001', user_id: user.id, subtotal_cents: 2890, total_cents: 2890 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('order_lines')
      .values({
        order_id: order.id,
        product_id: espresso.id,
        product_slug: espresso.slug,
        product_name: espresso.name,
        unit_price_cents: 2890,
        quantity: 1,
        line_total_cents: 2890,
      })
      .execute();
    const cart = await db
      .insertInto('carts')
      .values({ session_id: 'session-1' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db.insertInto('cart_lines').values({ cart_id: cart.id, product_id: espresso.id, quantity: 2 }).execute();
    await db.updateTable('products').set({ stock: 0, name: 'Renamed' }).where('id', '=', espresso.id).execute();

    const second = await seedCatalogue(db);
    expect(second).toEqual({
      categories: 10,
      products: 240,
      inserted: 0,
      updated: 240,
      removedProducts: 0,
      removedCategories: 0,
    });
    expect(await counts()).toEqual({ products: 240, slugs: 240, categories: 10 });
    expect(
      await db
        .selectFrom('products')
        .select(['id', 'name', 'stock'])
        .where('slug', '=', espresso.slug)
        .executeTakeFirstOrThrow(),
    ).toEqual({
      id: espresso.id,
      name: 'Ethiopian Espresso Roast, 1 kg',
      stock: 43,
    });
    expect(await db.selectFrom('users').select('email').execute()).toEqual([{ email: 'ada@example.com' }]);
    expect(await db.selectFrom('order_lines').select(['product_id', 'product_name']).execute()).toEqual([
      { product_id: espresso.id, product_name: espresso.name },
    ]);
    expect(await db.selectFrom('cart_lines').select(['product_id', 'quantity']).execute()).toEqual([
      { product_id: espresso.id, quantity: 2 },
    ]);
  });
}

describe('Data layer on SQLite (e2e)', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'shopkernel-db-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  dataLayerContract(() => ({
    url: `sqlite:${join(dir, 'var', 'shop.sqlite')}`,
    tables: async (db) => (await db.introspection.getTables()).map((t) => t.name).sort(),
  }));

  it('opens the file with WAL and foreign keys on', async () => {
    const db = createShopDb(`sqlite:${join(dir, 'shop.sqlite')}`, { baseDir: dir });
    const pragmas = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
    const keys = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
    const timeout = await sql<{ timeout: number }>`pragma busy_timeout`.execute(db);
    expect([pragmas.rows[0].journal_mode, keys.rows[0].foreign_keys, timeout.rows[0].timeout]).toEqual([
      'wal',
      1,
      5000,
    ]);
    await db.destroy();
  });

  it('migrates on application start, and a failing migration stops the start with a clear message', async () => {
    const file = join(dir, 'var', 'shop.sqlite');
    const app = await createTestApp({ env: { DATABASE_URL: `sqlite:${file}` } });
    const tables = (await app.get(ShopDb).introspection.getTables()).map((t) => t.name);
    expect(TABLES.every((t) => tables.includes(t))).toBe(true);
    await app.close();
    // Closed on shutdown: nothing holds the file any more (the WAL is checkpointed away).
    expect(existsSync(`${file}-wal`)).toBe(false);

    const broken = join(dir, 'broken.sqlite');
    const raw = new Database(broken);
    raw.exec('CREATE TABLE products (id INTEGER PRIMARY KEY)');
    raw.close();
    await expect(createTestApp({ env: { DATABASE_URL: `sqlite:${broken}` } })).rejects.toThrow(
      `Database migration "0001-catalogue" failed on sqlite:${broken}: table "products" already exists`,
    );
    // The failed migration left nothing behind (each migration runs in a transaction).
    const after = new Database(broken);
    expect(after.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()).toEqual([
      'kysely_migration',
      'kysely_migration_lock',
      'products',
    ]);
    after.close();
  });

  it('loads the demo catalogue into an empty development database at start, and only into an empty one', async () => {
    const count = async (app: { get: (token: typeof ShopDb) => ShopDb }) =>
      Number(
        (
          await app
            .get(ShopDb)
            .selectFrom('products')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const testApp = await createTestApp({ env: { DATABASE_URL: 'sqlite::memory:' } });
    expect(await count(testApp)).toBe(0);
    await testApp.close();
    const file = join(dir, 'dev-shop.sqlite');
    const dev = await createTestApp({ env: { APP_ENV: 'dev', LOG_LEVEL: 'none', DATABASE_URL: `sqlite:${file}` } });
    expect(await count(dev)).toBe(buildCatalogue().products.length);
    await dev.get(ShopDb).deleteFrom('products').where('slug', '=', buildCatalogue().products[0].slug).execute();
    await dev.close();
    const again = await createTestApp({ env: { APP_ENV: 'dev', LOG_LEVEL: 'none', DATABASE_URL: `sqlite:${file}` } });
    expect(await count(again)).toBe(buildCatalogue().products.length - 1);
    await again.close();
  });

  it('refuses to start on a PostgreSQL server that does not answer', async () => {
    await expect(createTestApp({ env: { DATABASE_URL: 'postgres://shop:secret@127.0.0.1:1/shop' } })).rejects.toThrow(
      /^DATABASE_URL: cannot open the shop database postgres:\/\/shop:\*{6}@127\.0\.0\.1:1\/shop: .*ECONNREFUSED/,
    );
  });
});

describePostgres('Data layer on PostgreSQL (e2e)', () => {
  const schema = `shopkernel_test_${process.pid}_${Date.now().toString(36)}`;
  let admin: pg.Client;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  beforeEach(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.query(`CREATE SCHEMA ${schema}`);
  });

  dataLayerContract(() => ({
    url: inSchema(POSTGRES_URL, schema),
    tables: async (db) =>
      (await db.introspection.getTables())
        .filter((t) => t.schema === schema)
        .map((t) => t.name)
        .sort(),
  }));

  it('reads counts as numbers and times as ISO text, as on SQLite', async () => {
    const db = createShopDb(inSchema(POSTGRES_URL, schema), { baseDir: tmpdir() });
    await new DatabaseMigrator(db, 'test database').migrateToLatest();
    const user = await db
      .insertInto('users')
      .values({ email: 'ada@example.com', password_hash: 'x', created_at: '2025-01-31T12:00:00.000Z' })
      .returning(['id', 'created_at'])
      .executeTakeFirstOrThrow();
    expect(user.created_at).toBe('2025-01-31T12:00:00.000Z');
    expect(
      await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ).toEqual({ n: 1 });
    const { rows } = await sql<{ now: string }>`select now() as now`.execute(db);
    expect(rows[0].now).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await db.destroy();
  });

  it('serves the application, migrated on start', async () => {
    const app = await createTestApp({
      env: { DATABASE_URL: inSchema(POSTGRES_URL, schema) },
      imports: [DatabaseFixturesModule],
    });
    try {
      await seedCatalogue(app.get(ShopDb));
      const res = await request(app.getHttpServer()).get('/dbfx/n-plus-one').set('Host', HOST).expect(200);
      expect(res.body).toMatchObject({ categories: 10, products: 240 });
    } finally {
      await app.close();
    }
  });
});

describeOnEachDatabase('Database profiler panel', 'dbpanel', databasePanelContract);

/** The panel shows the same on both dialects, but for their placeholders (`?`, `$1`) and their error messages. */
function databasePanelContract(database: () => Promise<ShopTestDatabase>): void {
  let app: NestExpressApplication;
  let target: ShopTestDatabase;
  const get = (path: string) => request(app.getHttpServer()).get(path).set('Host', HOST);
  const postgres = () => target.url !== undefined;
  /** The n-th bound parameter as the dialect writes it. */
  const param = (n: number) => (postgres() ? `$${n}` : '?');
  const FIXTURE = 'test/fixtures/database-fixtures.controller.ts';
  const CATEGORIES = 'select "id", "slug" from "categories" order by "position"';
  const products = () => `select "id", "name" from "products" where "category_id" = ${param(1)}`;
  const COUNT = 'select count(*) as "n" from "products"';

  beforeAll(async () => {
    target = await database();
    app = await createTestApp({
      imports: [DatabaseFixturesModule],
      ...(target.url ? { env: { DATABASE_URL: target.url } } : {}),
    });
    await seedCatalogue(app.get(ShopDb));
  });

  afterAll(async () => {
    await app?.close();
    await target?.teardown?.();
  });

  async function panel(path: string): Promise<{ token: string; body: Record<string, unknown>; html: HTMLElement }> {
    const res = await get(path).expect(200);
    const token = res.headers['x-debug-token'];
    await storedProfile(app, token);
    const page = await get(`/_profiler/${token}?panel=database`).expect(200);
    return { token, body: res.body, html: parse(page.text) };
  }

  it('shows every query of an N+1 request with its parameters, time and caller, grouped', async () => {
    const { body, html } = await panel('/dbfx/n-plus-one');
    expect(body).toMatchObject({ categories: 10, products: 240 });
    const { list, loop, count } = body.lines as { list: number; loop: number; count: number };

    const badge = html.querySelector('nav.menu a[data-panel="database"] .badge')!;
    expect([text(badge), badge.classList.contains('warning')]).toEqual(['14', true]);
    expect(text(html.querySelector('.panel h1'))).toBe('Database');
    expect(
      html
        .querySelectorAll('.metric')
        .map((m) => `${text(m.querySelector('.value'))} ${text(m.querySelector('.label'))}`),
    ).toEqual(expect.arrayContaining(['14 Database queries', '3 Different statements', '2 Identical repeats']));
    expect(text(html.querySelector('.panel p.muted'))).toBe(
      postgres() ? `Database: ${target.url} (postgres)` : 'Database: sqlite::memory: (sqlite)',
    );

    // The N+1 pattern stands out: a warning, and the similar queries first.
    const warnings = html.querySelectorAll('.db-warning');
    expect(warnings.map(text)).toEqual([
      `10× The same statement ran 10 times (10 different parameter sets, ${text(html.querySelector('table.db-similar tbody tr td:nth-child(3)'))} ms): probably a query in a loop (N+1). Called from ${FIXTURE}:${loop}.`,
    ]);
    const groups = (table: string) =>
      html.querySelectorAll(`table.${table} tbody tr`).map((tr) => ({
        count: text(tr.querySelector('td')),
        sets: table === 'db-similar' ? text(tr.querySelectorAll('td')[1]) : undefined,
        sql: text(tr.querySelector('pre.sql')),
        params: text(tr.querySelector('code.params')),
        numbers: text(tr.querySelector('.db-numbers')),
        callers: text(tr.querySelector('td.callers')),
      }));
    expect(groups('db-similar')).toEqual([
      {
        count: '10',
        sets: '10',
        sql: products(),
        params: '',
        numbers: 'Queries #2, 3, 4, 5, 6, 7, 8, 9, 10, 11',
        callers: `${FIXTURE}:${loop}`,
      },
      { count: '3', sets: '1', sql: COUNT, params: '', numbers: 'Queries #12, 13, 14', callers: `${FIXTURE}:${count}` },
    ]);
    expect(groups('db-identical')).toEqual([
      {
        count: '3',
        sets: undefined,
        sql: COUNT,
        params: '[]',
        numbers: 'Queries #12, 13, 14',
        callers: `${FIXTURE}:${count}`,
      },
    ]);

    // Every query, in order, with its parameters and caller.
    const rows = html.querySelectorAll('table.db-queries tbody tr');
    expect(rows.length).toBe(14);
    const cells = rows.map((tr) => ({
      sql: text(tr.querySelector('pre.sql')),
      params: text(tr.querySelector('code.params')),
      caller: text(tr.querySelector('td.caller')),
      time: text(tr.querySelectorAll('td')[2]),
    }));
    const categoryIds = (await app.get(ShopDb).selectFrom('categories').select('id').orderBy('position').execute()).map(
      (c) => c.id,
    );
    expect(cells.map(({ sql: s, params, caller }) => [s, params, caller])).toEqual([
      [CATEGORIES, '', `${FIXTURE}:${list}`],
      ...categoryIds.map((id) => [products(), `[${id}]`, `${FIXTURE}:${loop}`]),
      [COUNT, '', `${FIXTURE}:${count}`],
      [COUNT, '', `${FIXTURE}:${count}`],
      [COUNT, '', `${FIXTURE}:${count}`],
    ]);
    expect(cells.every((c) => /^\d+\.\d\d$/.test(c.time))).toBe(true);
    expect(readFileSync(FIXTURE, 'utf8')).toContain("where('category_id', '=', id)");
  });

  it('puts the queries on the Performance timeline and logs them on the database channel', async () => {
    const res = await get('/dbfx/n-plus-one').expect(200);
    const token = res.headers['x-debug-token'];
    const profile = await storedProfile(app, token);
    const logs = (
      profile.data.logs as {
        entries: { channel: string; level: number; message: string; context: Record<string, unknown> }[];
      }
    ).entries;
    const database = logs.filter((e) => e.channel === 'database');
    expect(database.length).toBe(14);
    expect(database[1]).toMatchObject({
      level: 100,
      message: 'Query ({duration} ms): {sql}',
      context: { sql: products(), params: [expect.any(Number)] },
    });
    const performance = (await get(`/_profiler/${token}?panel=performance&threshold=0`).expect(200)).text;
    const bars = parse(performance).querySelectorAll('svg.timeline g.tl-query');
    expect(bars.length).toBe(14);
    expect(text(bars[0].querySelector('text'))).toBe('#1 select "id", "slug" from "categories" order…');
  });

  it('shows a failed query with its error, in the error colour', async () => {
    const { body, html } = await panel('/dbfx/oversell');
    const message = postgres()
      ? 'new row for relation "products" violates check constraint "products_stock_not_negative"'
      : 'CHECK constraint failed: products_stock_not_negative';
    expect(body.error).toBe(message);
    const badge = html.querySelector('nav.menu a[data-panel="database"] .badge')!;
    expect([text(badge), badge.classList.contains('error')]).toEqual(['1', true]);
    const row = html.querySelector('table.db-queries tbody tr.db-error')!;
    expect(text(row.querySelector('pre.sql'))).toBe(
      `update "products" set "stock" = "stock" - ${param(1)} where "slug" = ${param(2)}`,
    );
    expect(text(row.querySelector('code.params'))).toBe('[1000,"ethiopian-espresso-roast-1-kg"]');
    expect(text(row.querySelector('.db-error-message'))).toBe(`failed ${message}`);
  });

  it('never keeps a password hash in the profile', async () => {
    const res = await get('/dbfx/register').expect(200);
    const profile = await storedProfile(app, res.headers['x-debug-token']);
    const queries = (profile.data.database as { queries: { sql: string; params: unknown[] }[] }).queries;
    expect(queries.map((q) => [q.sql, q.params])).toEqual([
      [
        `insert into "users" ("email", "password_hash") values (${param(1)}, ${param(2)}) returning "id"`,
        ['ada@example.com', '******'],
      ],
    ]);
    expect(JSON.stringify(profile.data)).not.toContain('secret-hash');
  });

  it('shows an empty panel for a request without queries', async () => {
    const res = await get('/').expect(200);
    const token = res.headers['x-debug-token'];
    await storedProfile(app, token);
    const html = parse((await get(`/_profiler/${token}?panel=database`).expect(200)).text);
    expect(text(html.querySelector('nav.menu a[data-panel="database"] .badge'))).toBe('0');
    expect(text(html.querySelector('.panel .empty'))).toBe('No database query was run for this request.');
  });
}
