import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse } from 'node-html-parser';
import request from 'supertest';
import { ShopDb } from '../src/database/shop-db.js';
import { PasswordHasher } from '../src/security/password-hasher.js';
import { UserRepository } from '../src/users/user.repository.js';
import { createTestApp } from './support/create-test-app.js';
import { describeOnEachDatabase, type TestDatabase } from './support/shop-databases.js';

const PASSWORD = 'correct horse battery';
const ADDRESS = {
  name: 'Ada Lovelace',
  street: "12 St James's Square",
  postcode: '75001',
  city: 'Paris',
  country: 'FR',
};
const text = (html: string, selector: string): string =>
  (parse(html).querySelector(selector)?.text ?? '').replace(/\s+/g, ' ').trim();
const csrf = (html: string, action = '/checkout'): string =>
  parse(html).querySelector(`form[action="${action}"] input[name="_csrf_token"]`)!.getAttribute('value')!;
type Agent = ReturnType<typeof request.agent>;

describeOnEachDatabase('Checkout and orders', 'orders', (database) => {
  let app: NestExpressApplication;
  let db: TestDatabase;
  let shop: ShopDb;
  let categoryId: number;

  beforeAll(async () => {
    db = await database();
    app = await createTestApp(db.url ? { env: { DATABASE_URL: db.url } } : {});
    shop = app.get(ShopDb);
    categoryId = (
      await shop
        .insertInto('categories')
        .values({ slug: 'orders-test', name: 'Orders test' })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  });

  afterAll(async () => {
    await app?.close();
    await db?.teardown?.();
  });

  let n = 0;
  const server = () => app.getHttpServer();

  async function product(price: number, stock: number, name = `Product ${n + 1}`): Promise<number> {
    const row = await shop
      .insertInto('products')
      .values({
        slug: `product-${++n}`,
        name,
        price_cents: price,
        stock,
        category_id: categoryId,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** A logged-in customer (JSON login: a session cookie in the agent). */
  async function customer(): Promise<{ agent: Agent; userId: number }> {
    const email = `buyer${++n}@example.com`;
    const user = await app.get(UserRepository).create(email, await app.get(PasswordHasher).hash(PASSWORD));
    const agent = request.agent(server());
    await agent.post('/api/login').send({ email, password: PASSWORD }).expect(200);
    return { agent, userId: user!.id };
  }

  /** Puts products in a user's cart, as the cart pages would. */
  async function fillCart(userId: number, lines: Array<[productId: number, quantity: number]>): Promise<void> {
    let cart = await shop.selectFrom('carts').select('id').where('user_id', '=', userId).executeTakeFirst();
    cart ??= await shop
      .insertInto('carts')
      .values({ user_id: userId, created_at: new Date().toISOString(), updated_at: new Date().toISOString() })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const [productId, quantity] of lines) {
      await shop
        .insertInto('cart_lines')
        .values({ cart_id: cart.id, product_id: productId, quantity, added_at: new Date().toISOString() })
        .execute();
    }
  }

  const stockOf = async (id: number) =>
    (await shop.selectFrom('products').select('stock').where('id', '=', id).executeTakeFirstOrThrow()).stock;
  const ordersOf = (userId: number) => shop.selectFrom('orders').selectAll().where('user_id', '=', userId).execute();

  async function checkoutForm(agent: Agent): Promise<string> {
    return csrf((await agent.get('/checkout').expect(200)).text);
  }

  it('sends an anonymous visitor to log in, and answers 401 to a JSON client', async () => {
    await request(server()).get('/checkout').expect(302).expect('Location', '/login');
    await request(server()).post('/api/checkout').set('Accept', 'application/json').send(ADDRESS).expect(401);
    await request(server()).get('/account/orders').expect(302);
  });

  it('shows the cart with its totals, shipping free from €50.00', async () => {
    const { agent, userId } = await customer();
    const cheap = await product(1250, 10, 'Green tea');
    await fillCart(userId, [[cheap, 2]]);
    const page = (await agent.get('/checkout').expect(200)).text;
    expect(text(page, '#checkout-subtotal')).toBe('€25.00');
    expect(text(page, '#checkout-shipping')).toBe('€4.90');
    expect(text(page, '#checkout-total')).toBe('€29.90');
    await fillCart(userId, [[await product(2500, 10), 1]]);
    const free = (await agent.get('/checkout').expect(200)).text;
    expect(text(free, '#checkout-subtotal')).toBe('€50.00');
    expect(text(free, '#checkout-shipping')).toBe('Free');
    expect(text(free, '#checkout-total')).toBe('€50.00');
  });

  it('turns the cart into an order in one transaction: lines copied, stock taken, cart emptied', async () => {
    const { agent, userId } = await customer();
    const tea = await product(1250, 10, 'Green <tea>');
    const pot = await product(3990, 3, 'Teapot');
    await fillCart(userId, [
      [tea, 2],
      [pot, 1],
    ]);
    const res = await agent
      .post('/checkout')
      .type('form')
      .send({ _csrf_token: await checkoutForm(agent), ...ADDRESS })
      .expect(303);
    const [order] = await ordersOf(userId);
    expect(res.headers.location).toBe(`/account/orders/${order.reference}`);
    expect(order).toMatchObject({
      subtotal_cents: 6490,
      shipping_cents: 0,
      total_cents: 6490,
      status: 'placed',
      shipping_name: 'Ada Lovelace',
      shipping_city: 'Paris',
      shipping_country: 'FR',
    });
    expect(order.reference).toMatch(/^SK-[0-9A-HJKMNP-TV-Z]{8}$/);
    const lines = await shop
      .selectFrom('order_lines')
      .select(['product_id', 'product_name', 'unit_price_cents', 'quantity', 'line_total_cents'])
      .where('order_id', '=', order.id)
      .orderBy('product_id')
      .execute();
    expect(lines).toEqual([
      { product_id: tea, product_name: 'Green <tea>', unit_price_cents: 1250, quantity: 2, line_total_cents: 2500 },
      { product_id: pot, product_name: 'Teapot', unit_price_cents: 3990, quantity: 1, line_total_cents: 3990 },
    ]);
    expect(await stockOf(tea)).toBe(8);
    expect(await stockOf(pot)).toBe(2);
    expect(
      await shop
        .selectFrom('cart_lines')
        .innerJoin('carts', 'carts.id', 'cart_lines.cart_id')
        .select('cart_lines.id')
        .where('carts.user_id', '=', userId)
        .execute(),
    ).toEqual([]);

    const page = await agent.get(res.headers.location).expect(200);
    expect(text(page.text, '.flash.success')).toBe(`Thank you! Your order ${order.reference} has been placed.`);
    expect(text(page.text, '#order-reference')).toBe(order.reference);
    expect(text(page.text, '#order-total')).toBe('€64.90');
    expect(page.text).toContain('Green &lt;tea&gt;');
    expect(parse(page.text).querySelector('#order-address')?.innerHTML).toBe(
      'Ada Lovelace<br>12 St James&#x27;s Square<br>75001 Paris<br>France<br>',
    );
    const history = await agent.get('/account/orders').expect(200);
    expect(text(history.text, '#order-count')).toBe('1 order');
    expect(
      parse(history.text)
        .querySelectorAll('table.orders tbody tr')
        .map((tr) => tr.querySelectorAll('td').map((td) => td.text)),
    ).toEqual([[order.reference, order.created_at.slice(0, 10), '3', 'placed', '€64.90']]);
  });

  it('answers an invalid address with the form again (400, violations listed), an empty cart with 400, and changes nothing', async () => {
    const { agent, userId } = await customer();
    const tea = await product(1000, 5);
    await fillCart(userId, [[tea, 1]]);
    const token = await checkoutForm(agent);
    const bad = await agent
      .post('/checkout')
      .type('form')
      .send({ _csrf_token: token, name: '', street: 'x', postcode: '!', city: 'Paris', country: 'US' })
      .expect(400);
    expect(
      parse(bad.text)
        .querySelectorAll('ul.violations li')
        .map((li) => [li.getAttribute('data-field'), li.text]),
    ).toEqual([
      ['name', 'The name must be 1 to 100 characters long.'],
      ['postcode', 'Enter a valid postcode.'],
      ['country', 'We do not deliver to this country.'],
    ]);
    expect(await stockOf(tea)).toBe(5);
    expect(await ordersOf(userId)).toEqual([]);
    await agent
      .post('/checkout')
      .type('form')
      .send({ ...ADDRESS })
      .expect(403);

    const { agent: other } = await customer();
    const emptyPage = await other.get('/checkout').expect(200);
    expect(text(emptyPage.text, '#empty-cart')).toBe('Your cart is empty. Continue shopping.');
    const token2 = (await other.get('/api/csrf-token/checkout').expect(200)).body.token;
    const empty = await other
      .post('/checkout')
      .type('form')
      .send({ _csrf_token: token2, ...ADDRESS })
      .expect(400);
    expect(text(empty.text, 'ul.violations')).toBe('Your cart is empty.');
  });

  it('refuses with 409 when the stock no longer covers the cart, keeping the cart and the stock', async () => {
    const { agent, userId } = await customer();
    const rare = await product(1000, 5, 'Rare tea');
    await fillCart(userId, [[rare, 3]]);
    const token = await checkoutForm(agent);
    await shop.updateTable('products').set({ stock: 2 }).where('id', '=', rare).execute();
    const res = await agent
      .post('/checkout')
      .type('form')
      .send({ _csrf_token: token, ...ADDRESS })
      .expect(409);
    expect(text(res.text, 'ul.violations')).toBe(
      'Sorry, only 2 of "Rare tea" left in stock: please change the quantity in your cart.',
    );
    expect(await stockOf(rare)).toBe(2);
    expect(await ordersOf(userId)).toEqual([]);
    await shop.updateTable('products').set({ stock: 0 }).where('id', '=', rare).execute();
    const sold = await agent
      .post('/api/checkout')
      .set('X-CSRF-Token', token)
      .set('Accept', 'application/json')
      .send(ADDRESS)
      .expect(409);
    expect(sold.body).toMatchObject({
      status: 409,
      detail: 'Sorry, "Rare tea" is sold out: please remove it from your cart.',
    });
  });

  it('takes a visitor from an anonymous cart through the login to an order (the cart follows the login)', async () => {
    const email = `visitor${++n}@example.com`;
    await app.get(UserRepository).create(email, await app.get(PasswordHasher).hash(PASSWORD));
    const tea = await product(1200, 4, 'Visitor tea');
    const agent = request.agent(server());
    const cart = await agent.get('/api/cart').expect(200);
    await agent
      .post('/api/cart/lines')
      .set('X-CSRF-Token', cart.body.csrfToken)
      .send({ productId: tea, quantity: 2 })
      .expect(201);
    await agent.post('/api/login').send({ email, password: PASSWORD }).expect(200);
    const page = await agent.get('/checkout').expect(200);
    expect(text(page.text, '#checkout-subtotal')).toBe('€24.00');
    expect(text(page.text, 'header .cart-link')).toBe('Cart (2)');
    expect(text(page.text, 'header .account a')).toBe(email);
    const placed = await agent
      .post('/checkout')
      .type('form')
      .send({ _csrf_token: csrf(page.text), ...ADDRESS })
      .expect(303);
    expect(placed.headers.location).toMatch(/^\/account\/orders\/SK-/);
    expect((await agent.get('/api/cart').expect(200)).body.lines).toEqual([]);
    expect(await stockOf(tea)).toBe(2);
  });

  it('sells the last unit to exactly one of two customers checking out at the same moment', async () => {
    const last = await product(4200, 1, 'Last teapot');
    const buyers = await Promise.all([customer(), customer()]);
    for (const buyer of buyers) await fillCart(buyer.userId, [[last, 1]]);
    const tokens = await Promise.all(buyers.map((b) => checkoutForm(b.agent)));
    const results = await Promise.all(
      buyers.map((b, i) =>
        b.agent
          .post('/checkout')
          .type('form')
          .send({ _csrf_token: tokens[i], ...ADDRESS }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([303, 409]);
    expect(await stockOf(last)).toBe(0);
    const orders = await shop.selectFrom('order_lines').select('order_id').where('product_id', '=', last).execute();
    expect(orders).toHaveLength(1);
  });

  it('never oversells under a crowd: 8 customers, 3 units, exactly 3 orders (JSON API)', async () => {
    const scarce = await product(1500, 3, 'Scarce tea');
    const buyers = await Promise.all(Array.from({ length: 8 }, () => customer()));
    for (const buyer of buyers) await fillCart(buyer.userId, [[scarce, 1]]);
    const tokens = await Promise.all(
      buyers.map(async (b) => (await b.agent.get('/api/csrf-token/checkout').expect(200)).body.token as string),
    );
    const results = await Promise.all(
      buyers.map((b, i) =>
        b.agent.post('/api/checkout').set('X-CSRF-Token', tokens[i]).set('Accept', 'application/json').send(ADDRESS),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 409)).toHaveLength(5);
    expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    expect(await stockOf(scarce)).toBe(0);
    expect(await shop.selectFrom('order_lines').select('id').where('product_id', '=', scarce).execute()).toHaveLength(
      3,
    );
  });

  it('shows an order to its owner only: 404 for anyone else, on the page and in the API', async () => {
    const owner = await customer();
    await fillCart(owner.userId, [[await product(990, 5), 1]]);
    const placed = await owner.agent
      .post('/checkout')
      .type('form')
      .send({ _csrf_token: await checkoutForm(owner.agent), ...ADDRESS })
      .expect(303);
    const reference = placed.headers.location.split('/').pop()!;
    await owner.agent.get(`/account/orders/${reference}`).expect(200);
    const own = await owner.agent.get(`/api/orders/${reference}`).expect(200);
    expect(own.body.order).toMatchObject({
      reference,
      totalCents: 1480,
      shippingCents: 490,
      lines: [{ quantity: 1, unitPriceCents: 990 }],
    });

    const stranger = await customer();
    const page = await stranger.agent.get(`/account/orders/${reference}`).set('Accept', 'application/json').expect(404);
    expect(page.body.detail).toBe(`Order "${reference}" not found.`);
    await stranger.agent.get(`/api/orders/${reference}`).set('Accept', 'application/json').expect(404);
    await stranger.agent.get('/account/orders/not-a-reference').expect(404);
    const history = await stranger.agent.get('/account/orders').expect(200);
    expect(text(history.text, '#no-orders')).toContain('You have not ordered anything yet.');
    expect((await stranger.agent.get('/api/orders').expect(200)).body).toEqual({
      total: 0,
      page: 1,
      limit: 10,
      orders: [],
    });
  });

  it('pages the order history: 10 a page, newest first; a page past the end is a 404, a bad page a 400', async () => {
    const { agent, userId } = await customer();
    const stock = await product(100, 100);
    const references: string[] = [];
    for (let i = 0; i < 12; i++) {
      await fillCart(userId, [[stock, 1]]);
      const res = await agent
        .post('/api/checkout')
        .set('X-CSRF-Token', (await agent.get('/api/csrf-token/checkout')).body.token)
        .send(ADDRESS)
        .expect(201);
      references.push(res.body.order.reference);
    }
    const first = await agent.get('/account/orders').expect(200);
    expect(text(first.text, '#order-count')).toBe('12 orders');
    const listed = (html: string) =>
      parse(html)
        .querySelectorAll('table.orders tbody tr td:first-child')
        .map((td) => td.text);
    expect(listed(first.text)).toEqual(references.slice().reverse().slice(0, 10));
    const second = await agent.get('/account/orders?page=2').expect(200);
    expect(listed(second.text)).toEqual(references.slice(0, 2).reverse());
    await agent.get('/account/orders?page=3').expect(404);
    await agent.get('/account/orders?page=abc').expect(400);
    const api = await agent.get('/api/orders?page=2&limit=5').expect(200);
    expect(api.body.orders.map((o: { reference: string }) => o.reference)).toEqual(
      references.slice().reverse().slice(5, 10),
    );
  });

  it('validates the JSON checkout: 400 problem with violations, 403 without the token', async () => {
    const { agent, userId } = await customer();
    await fillCart(userId, [[await product(100, 5), 1]]);
    const token = (await agent.get('/api/csrf-token/checkout')).body.token;
    await agent.post('/api/checkout').set('Accept', 'application/json').send(ADDRESS).expect(403);
    const bad = await agent
      .post('/api/checkout')
      .set('X-CSRF-Token', token)
      .set('Accept', 'application/json')
      .send({ ...ADDRESS, country: 'ZZ', extra: 1 })
      .expect(400);
    expect(bad.body.violations).toEqual(
      expect.arrayContaining([
        { property: 'country', messages: ['We do not deliver to this country.'] },
        { property: 'extra', messages: ['property extra should not exist'] },
      ]),
    );
    const broken = await agent
      .post('/api/checkout')
      .set('X-CSRF-Token', token)
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json')
      .send('{"name":')
      .expect(400);
    expect(broken.body.status).toBe(400);
  });
});
