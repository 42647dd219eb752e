import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { ShopDb } from '../src/database/shop-db.js';
import { PasswordHasher } from '../src/security/password-hasher.js';
import { UserRepository } from '../src/users/user.repository.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';

const HOST = 'shop.test';
const PASSWORD = 'correct horse battery';
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();
const table = (el: HTMLElement | null | undefined) =>
  (el?.querySelectorAll('tbody tr') ?? []).map((tr) => tr.querySelectorAll('th, td').map(text));

/** Panels that say what happened, and nothing that misleads (issue 31, point 7). */
describe('Honest panels (e2e)', () => {
  let app: NestExpressApplication;
  const server = () => app.getHttpServer();
  const panel = async (token: string, name: string) => {
    await storedProfile(app, token);
    return parse((await request(server()).get(`/_profiler/${token}?panel=${name}`).set('Host', HOST).expect(200)).text);
  };

  beforeAll(async () => {
    app = await createTestApp();
  });

  afterAll(async () => {
    await app.close();
  });

  it("tells that the order emptied the cart: the Cart panel of the checkout POST, its change and the cart's totals after it", async () => {
    const shop = app.get(ShopDb);
    const now = new Date().toISOString();
    const category = await shop
      .insertInto('categories')
      .values({ slug: 'honest', name: 'Honest' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const product = await shop
      .insertInto('products')
      .values({
        slug: 'honest-tea',
        name: 'Honest tea',
        price_cents: 1250,
        stock: 10,
        category_id: category.id,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const user = (await app
      .get(UserRepository)
      .create('honest.buyer.with.a.long.name@example.com', await app.get(PasswordHasher).hash(PASSWORD)))!;
    const cart = await shop
      .insertInto('carts')
      .values({ user_id: user.id, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await shop
      .insertInto('cart_lines')
      .values({ cart_id: cart.id, product_id: product.id, quantity: 3, added_at: now })
      .execute();
    const agent = request.agent(server());
    await agent
      .post('/api/login')
      .set('Host', HOST)
      .send({ email: 'honest.buyer.with.a.long.name@example.com', password: PASSWORD })
      .expect(200);
    const form = parse((await agent.get('/checkout').set('Host', HOST).expect(200)).text);
    const token = form.querySelector('form[action="/checkout"] input[name="_csrf_token"]')!.getAttribute('value')!;
    const placed = await agent
      .post('/checkout')
      .set('Host', HOST)
      .type('form')
      .send({
        _csrf_token: token,
        name: 'Ada Lovelace',
        street: '1 Square',
        postcode: '75001',
        city: 'Paris',
        country: 'FR',
      })
      .expect(303);
    const html = await panel(placed.headers['x-debug-token'], 'cart');
    const reference = /SK-[0-9A-Z]{8}/.exec(placed.headers.location)![0];
    expect(table(html.querySelector('table.cart-changes'))).toEqual([
      ['emptied by the order', `order ${reference}`, '3 items', '0 items'],
    ]);
    expect(table(html.querySelector('table.kv'))).toEqual(
      expect.arrayContaining([
        ['Items', '0'],
        ['Total', '€0.00'],
      ]),
    );
    expect(html.text).not.toContain('This request did not change the cart.');

    // The Security badge keeps to the menu: the address's name, cut, the whole address in the panel.
    const security = await panel(placed.headers['x-debug-token'], 'security');
    expect(text(security.querySelector('nav.menu a[data-panel="security"] .badge'))).toBe('honest.buye…');
    expect(security.text).toContain('honest.buyer.with.a.long.name@example.com');
  });

  it('says "not logged in" in one line for an anonymous visitor, no empty rows', async () => {
    const res = await request(server()).get('/products').set('Host', HOST).expect(200);
    const html = await panel(res.headers['x-debug-token'], 'security');
    expect(text(html.querySelector('#panel-security p.lead'))).toBe(
      'Not logged in. Firewall: public path: no rule applies.',
    );
    expect(html.querySelector('#panel-security table.kv')).toBeNull();
    expect(text(html.querySelector('nav.menu a[data-panel="security"] .badge'))).toBe('anon.');
  });

  it('reads clearly when a panel has nothing: its name and why', async () => {
    const res = await request(server()).get('/products').set('Host', HOST).expect(200);
    const html = await panel(res.headers['x-debug-token'], 'exception');
    expect(html.querySelectorAll('.empty-panel p').map(text)).toEqual([
      'Nothing to show in Exception for this request.',
      'No exception was thrown while handling this request.',
    ]);
  });

  it('shows the percent-encoded debug headers decoded, and says so', async () => {
    const res = await request(server()).get('/no/such/page').set('Host', HOST).expect(404);
    expect(res.headers['x-debug-exception']).toBe(
      'No%20route%20found%20for%20%22GET%20http%3A%2F%2Fshop.test%2Fno%2Fsuch%2Fpage%22',
    );
    const html = await panel(res.headers['x-debug-token'], 'response');
    const rows = Object.fromEntries(table(html.querySelector('table.kv')).map(([key, value]) => [key, value]));
    expect(rows['x-debug-exception']).toBe(
      'No route found for "GET http://shop.test/no/such/page" (decoded: sent percent-encoded)',
    );
    expect(rows['x-debug-exception-file']).toMatch(
      /^src\/lifecycle\/listeners\/router\.listener\.ts:\d+ \(decoded: sent percent-encoded\)$/,
    );
  });

  it("keeps the kernel's request attributes apart from the application's", async () => {
    const res = await request(server()).get('/products?page=1').set('Host', HOST).expect(200);
    const html = await panel(res.headers['x-debug-token'], 'request');
    const kernel = html.querySelectorAll('h3').find((h) => text(h) === 'Kernel attributes')!;
    const keys = table(kernel.nextElementSibling).map(([key]) => key);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key.startsWith('_')).toBe(true);
    const application = html.querySelectorAll('h2').find((h) => text(h) === 'Request Attributes')!;
    expect(text(application.nextElementSibling)).toBe('The application set no request attribute.');
  });
});
