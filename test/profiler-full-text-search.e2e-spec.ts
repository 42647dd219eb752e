import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse, type HTMLElement } from 'node-html-parser';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../src/database/shop-db.js';
import { ProfilerFixturesModule } from './fixtures/profiler-fixtures.module.js';
import { createTestApp } from './support/create-test-app.js';
import { loggedInCustomer } from './support/customers.js';
import { describePostgres, dropSchema, POSTGRES_URL } from './support/postgres.js';
import { storedProfile } from './support/profiler.js';

const HOST = 'shop.test';
const SECRET = 'SECRET-FTS-4410';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();

/** The profile store of each run: the default embedded one, and a schema of the test PostgreSQL server. */
const STORES: [string, () => string, typeof describe][] = [
  ['SQLite', () => 'sqlite::memory:', describe],
  [
    'PostgreSQL',
    () => {
      const url = new URL(POSTGRES_URL);
      url.searchParams.set('schema', `profiler_fts_${process.pid}_${randomBytes(3).toString('hex')}`);
      return url.toString();
    },
    describePostgres('Full-text search on PostgreSQL (e2e)'),
  ],
];

describe.each(STORES)('Full-text search of the profiles, %s store (e2e)', (_name, dsn, describeStore) => {
  describeStore('', () => {
    let app: NestExpressApplication;
    const profilerDsn = dsn();
    let productId = 0;
    const tokens = { added: '', refused: '', removed: '', notFound: '', logs: '', secret: '', traced: '' };

    /** The search page for `query`: its heading and the tokens listed, newest first. */
    const search = async (query: Record<string, string>) => {
      const res = await request(app.getHttpServer())
        .get(`/_profiler/search?${new URLSearchParams({ limit: '50', ...query })}`)
        .set('Host', HOST)
        .expect(200);
      const html = parse(res.text);
      return {
        heading: text(html.querySelector('#results')),
        tokens: html.querySelectorAll('table.results tbody tr td.token-cell a').map(text),
        html,
      };
    };

    beforeAll(async () => {
      app = await createTestApp({ env: { PROFILER_DSN: profilerDsn }, imports: [ProfilerFixturesModule] });
      await seedCatalogue(app.get(ShopDb));
      // Two of a product in the cart, then as many more as its stock: refused with a CartQuantityException.
      const product = await app
        .get(ShopDb)
        .selectFrom('products')
        .select(['id', 'stock'])
        .where('stock', '>', 2)
        .where('stock', '<', 99)
        .executeTakeFirstOrThrow();
      productId = product.id;
      const server = app.getHttpServer();
      const customer = await loggedInCustomer(app);
      const csrf = (await customer.get('/api/cart').set('Host', HOST).expect(200)).body.csrfToken as string;
      const cart = (method: 'post' | 'delete', path: string) =>
        customer[method](path).set('Host', HOST).set('X-CSRF-Token', csrf).set('Accept', 'application/json');
      tokens.added = (
        await cart('post', '/api/cart/lines').send({ productId: product.id, quantity: 2 }).expect(201)
      ).headers['x-debug-token'];
      tokens.refused = (
        await cart('post', '/api/cart/lines')
          .send({ productId: product.id, quantity: product.stock - 1 })
          .expect(400)
      ).headers['x-debug-token'];
      tokens.removed = (await cart('delete', `/api/cart/lines/${product.id}`).expect(200)).headers['x-debug-token'];
      tokens.notFound = (await request(server).get('/no/such/page').set('Host', HOST).expect(404)).headers[
        'x-debug-token'
      ];
      tokens.logs = (await request(server).get('/pfx/logs').set('Host', HOST).expect(200)).headers['x-debug-token'];
      tokens.secret = (
        await request(server)
          .get(`/pfx/secret-boom?token=${SECRET}`)
          .set('Host', HOST)
          .set('X-Test-Password', SECRET)
          .set('X-Test-Key', SECRET)
          .expect(500)
      ).headers['x-debug-token'];
      tokens.traced = (
        await request(server)
          .get('/products?limit=12')
          .set('Host', HOST)
          .set('traceparent', `00-${TRACE_ID}-${PARENT_SPAN}-01`)
          .expect(200)
      ).headers['x-debug-token'];
      for (const token of Object.values(tokens)) await storedProfile(app, token);
    }, 60_000);

    afterAll(async () => {
      await app?.close();
      if (profilerDsn.startsWith('postgres')) await dropSchema(new URL(profilerDsn).searchParams.get('schema')!);
    });

    it('finds a request by the exception it threw, whole or by the parts of its class name', async () => {
      for (const q of ['CartQuantityException', 'quantity exception', 'cartquantity*', 'only left in stock']) {
        const found = await search({ q });
        expect([q, found.heading, found.tokens]).toEqual([q, '1 results found', [tokens.refused]]);
      }
      expect((await search({ q: 'NotFoundHttpException no route' })).tokens).toEqual([tokens.notFound]);
    });

    it('finds a request by its SQL, its route and controller, and its log messages', async () => {
      expect((await search({ q: 'delete from cart_lines' })).tokens).toEqual([tokens.removed]);
      expect((await search({ q: 'api_cart_add' })).tokens).toEqual([tokens.refused, tokens.added]);
      expect((await search({ q: 'api_cart_remove CartApiController' })).tokens).toEqual([tokens.removed]);
      expect((await search({ q: 'stock low TEA' })).tokens).toEqual([tokens.logs]);
      expect((await search({ q: 'payment failed p' })).tokens).toEqual([tokens.logs]);
    });

    it('finds every request of a trace by its trace id, and a request by its parent span', async () => {
      expect((await search({ q: TRACE_ID })).tokens).toEqual([tokens.traced]);
      expect((await search({ q: PARENT_SPAN })).tokens).toEqual([tokens.traced]);
    });

    it('combines with the other filters, counted exactly', async () => {
      expect(await search({ q: 'api_cart_add', status_code: '4' })).toMatchObject({
        heading: '1 results found',
        tokens: [tokens.refused],
      });
      expect(await search({ q: 'api_cart_add', status_code: '201', method: 'POST' })).toMatchObject({
        heading: '1 results found',
        tokens: [tokens.added],
      });
      expect((await search({ q: 'api_cart_add', method: 'GET' })).heading).toBe('0 results found');
      expect((await search({ q: 'cart', url: `/api/cart/lines/${productId}` })).tokens).toEqual([tokens.removed]);
      expect((await search({ q: 'stock low', ip: '10.' })).heading).toBe('0 results found');
      const limited = await search({ q: 'api_cart_add', limit: '10' });
      expect(limited.heading).toBe('2 results found');
    });

    it('shows under each row where it matched, the words marked, linked to the panel', async () => {
      const thrown = (await search({ q: 'CartQuantityException stock' })).html.querySelector('tr.matched');
      expect(thrown?.querySelector('a')?.getAttribute('href')).toBe(`/_profiler/${tokens.refused}?panel=exception`);
      expect(text(thrown?.querySelector('a'))).toBe('Exception');
      expect(thrown?.querySelectorAll('mark').map(text)).toEqual(['CartQuantityException', 'stock']);
      expect(text(thrown?.querySelector('.excerpt'))).toMatch(/^CartQuantityException: Only \d+ left in stock\./);
      const sql = (await search({ q: 'delete cart_lines' })).html.querySelector('tr.matched');
      expect(sql?.querySelector('a')?.getAttribute('href')).toMatch(
        new RegExp(`^/_profiler/${tokens.removed}\\?panel=(logs|database)$`),
      );
      expect(sql?.querySelectorAll('mark').map(text)).toEqual(['delete', 'cart_lines']);
      expect((await search({ q: '' })).html.querySelector('tr.matched')).toBeNull();
    });

    it('searches the redacted text only: a secret the request carried finds nothing', async () => {
      expect((await search({ q: 'login failed ada' })).tokens).toEqual([tokens.secret]);
      expect((await search({ q: SECRET })).heading).toBe('0 results found');
      expect((await search({ q: 'hunter2' })).heading).toBe('0 results found');
      expect((await search({ q: '4111111111111111' })).heading).toBe('0 results found');
    });

    it('keeps the words in the form, escaped, and says what the box searches', async () => {
      const found = await search({ q: '<low> "stock"' });
      const input = found.html.querySelector('input[name="q"]');
      expect(input?.getAttribute('value')).toBe('<low> "stock"');
      expect(found.html.toString()).not.toContain('<low>');
      expect(found.tokens).toEqual([tokens.logs]);
      expect(text(found.html.querySelector('#text-search-help'))).toMatch(/^Log messages, exceptions, SQL, route/);
      expect((await search({ q: '%%%' })).heading).toBe('0 results found');
    });

    it('answers a query longer than 200 characters with a 400 that says so', async () => {
      const res = await request(app.getHttpServer())
        .get(`/_profiler/search?q=${'a'.repeat(201)}`)
        .set('Host', HOST)
        .expect(400);
      expect(res.text).toContain('q must be shorter than or equal to 200 characters');
    });
  });
});
