import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../src/database/shop-db.js';
import { Session } from '../src/session/session.js';
import { CART_ID_ATTRIBUTE, CartService } from '../src/shop/cart/cart.service.js';
import { createTestApp } from './support/create-test-app.js';
import { describeOnEachDatabase, type TestDatabase } from './support/shop-databases.js';
import { storedProfile } from './support/profiler.js';
import { profileData } from './support/profile-data.js';

const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();

/** Products of the tests' own, beside the demo catalogue: known prices (cents) and stock. */
const FIXTURES = {
  mug: { slug: 'cart-test-mug', name: 'Cart Test Mug', price_cents: 1290, stock: 50 },
  lamp: { slug: 'cart-test-lamp', name: 'Cart Test Lamp <b>"&', price_cents: 2500, stock: 10 },
  scarce: { slug: 'cart-test-scarce', name: 'Cart Test Scarce', price_cents: 990, stock: 3 },
  soldOut: { slug: 'cart-test-sold-out', name: 'Cart Test Sold Out', price_cents: 500, stock: 0 },
} as const;
type Fixture = keyof typeof FIXTURES;

describeOnEachDatabase('Cart', 'cart', cartContract);

function cartContract(database: () => Promise<TestDatabase>): void {
  let app: NestExpressApplication;
  let db: TestDatabase;
  let shop: ShopDb;
  const ids = {} as Record<Fixture, number>;

  beforeAll(async () => {
    db = await database();
    app = await createTestApp(db.url ? { env: { DATABASE_URL: db.url } } : {});
    shop = app.get(ShopDb);
    await seedCatalogue(shop);
    const category = await shop.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
    for (const [key, product] of Object.entries(FIXTURES) as Array<[Fixture, (typeof FIXTURES)[Fixture]]>) {
      const row = await shop
        .insertInto('products')
        .values({
          ...product,
          description: `${product.name}, for the cart tests.`,
          image_url: null,
          category_id: category.id,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids[key] = row.id;
    }
  });

  afterAll(async () => {
    await app?.close();
    await db?.teardown?.();
  });

  beforeEach(async () => {
    await shop.deleteFrom('carts').execute();
    await shop.deleteFrom('sessions').execute();
    for (const key of Object.keys(FIXTURES) as Fixture[]) {
      await shop
        .updateTable('products')
        .set({ stock: FIXTURES[key].stock, price_cents: FIXTURES[key].price_cents })
        .where('id', '=', ids[key])
        .execute();
    }
  });

  const server = () => app.getHttpServer();
  const countRows = async (table: 'carts' | 'sessions' | 'cart_lines'): Promise<number> =>
    Number(
      (
        await shop
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** A visitor: a cookie jar, and the `cart` CSRF token read from a product page's add-to-cart form. */
  async function visitor(): Promise<{ agent: ReturnType<typeof request.agent>; token: string }> {
    const agent = request.agent(server());
    const res = await agent.get(`/products/${FIXTURES.mug.slug}`).expect(200);
    const token = parse(res.text).querySelector('form.add-to-cart input[name=_csrf_token]')?.getAttribute('value');
    if (!token) throw new Error('No CSRF token on the product page');
    return { agent, token };
  }

  const addForm = (agent: ReturnType<typeof request.agent>, fields: Record<string, string | number>) =>
    agent.post('/cart/lines').type('form').send(fields);
  const add = (
    v: { agent: ReturnType<typeof request.agent>; token: string },
    product: Fixture,
    quantity: number | string,
  ) => addForm(v.agent, { _csrf_token: v.token, productId: ids[product], quantity });

  async function cartPage(agent: ReturnType<typeof request.agent>): Promise<HTMLElement> {
    const res = await agent
      .get('/cart')
      .expect(200)
      .expect('Content-Type', /text\/html/);
    return parse(res.text);
  }
  const lineRows = (html: HTMLElement) =>
    html.querySelectorAll('tr.cart-line').map((tr) => ({
      name: text(tr.querySelector('a.product-name')),
      href: tr.querySelector('a.product-name')?.getAttribute('href'),
      unitPrice: text(tr.querySelector('.unit-price')),
      quantity: tr.querySelector('input[name=quantity]')?.getAttribute('value'),
      lineTotal: text(tr.querySelector('.line-total')),
    }));
  const violations = (html: HTMLElement) =>
    html.querySelectorAll('ul.violations li').map((li) => [li.getAttribute('data-field'), text(li)]);
  const headerCount = (html: HTMLElement) => text(html.querySelector('a.cart-link'));

  describe('the product page', () => {
    it('has an add-to-cart form for a product in stock, none for one sold out', async () => {
      const res = await request(server()).get(`/products/${FIXTURES.scarce.slug}`).expect(200);
      const form = parse(res.text).querySelector('form.add-to-cart')!;
      expect(form.getAttribute('method')).toBe('post');
      expect(form.getAttribute('action')).toBe('/cart/lines');
      expect(form.querySelector('input[name=productId]')?.getAttribute('value')).toBe(String(ids.scarce));
      expect(form.querySelector('input[name=quantity]')?.getAttribute('max')).toBe('3');
      expect(form.querySelector('input[name=_csrf_token]')?.getAttribute('value')).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const soldOut = await request(server()).get(`/products/${FIXTURES.soldOut.slug}`).expect(200);
      expect(parse(soldOut.text).querySelector('form.add-to-cart')).toBeNull();
      // No form, no token: the page stays public and starts no session.
      expect(soldOut.headers['set-cookie']).toBeUndefined();
      expect(soldOut.headers['cache-control']).toBe('public, max-age=60');
    });
  });

  describe('HTML pages and forms', () => {
    it('adds a product through the form: 303 to /cart, a flash, the line with its link, prices and quantity', async () => {
      const v = await visitor();
      const res = await add(v, 'lamp', 2).expect(303);
      expect(res.headers.location).toBe('/cart');
      const html = await cartPage(v.agent);
      expect(text(html.querySelector('.flash.success'))).toBe(`Added 2 × ${FIXTURES.lamp.name} to your cart.`);
      expect(lineRows(html)).toEqual([
        {
          name: FIXTURES.lamp.name,
          href: `/products/${FIXTURES.lamp.slug}`,
          unitPrice: '€25.00',
          quantity: '2',
          lineTotal: '€50.00',
        },
      ]);
      expect(html.querySelector('a.checkout')?.getAttribute('href')).toBe('/checkout');
      expect(headerCount(html)).toBe('Cart (2)');
      // The flash is shown once.
      expect((await cartPage(v.agent)).querySelector('.flash')).toBeNull();
      // The name is escaped, never markup.
      expect((await v.agent.get('/cart')).text).not.toContain('<b>"&');
    });

    it('sums the quantities when the same product is added twice', async () => {
      const v = await visitor();
      await add(v, 'mug', 2).expect(303);
      await add(v, 'mug', 3).expect(303);
      expect(lineRows(await cartPage(v.agent))).toMatchObject([
        { name: FIXTURES.mug.name, quantity: '5', lineTotal: '€64.50' },
      ]);
      expect(await countRows('cart_lines')).toBe(1);
    });

    it('changes a quantity, removes a line with quantity 0, and with the remove button', async () => {
      const v = await visitor();
      await add(v, 'mug', 1).expect(303);
      await add(v, 'lamp', 1).expect(303);
      const changed = await v.agent
        .post(`/cart/lines/${ids.mug}`)
        .type('form')
        .send({ _csrf_token: v.token, quantity: '4' })
        .expect(303);
      expect(changed.headers.location).toBe('/cart');
      let html = await cartPage(v.agent);
      // Every flash since the last page, in order, each once.
      expect(html.querySelectorAll('.flash').map(text)).toEqual([
        `Added 1 × ${FIXTURES.mug.name} to your cart.`,
        `Added 1 × ${FIXTURES.lamp.name} to your cart.`,
        `${FIXTURES.mug.name}: quantity changed to 4.`,
      ]);
      expect(lineRows(html).map((l) => [l.name, l.quantity])).toEqual([
        [FIXTURES.mug.name, '4'],
        [FIXTURES.lamp.name, '1'],
      ]);
      // Each line's forms carry the token and post to the line's own URL.
      const line = html.querySelector(`tr.cart-line[data-product-id="${ids.mug}"]`)!;
      expect(line.querySelector('form.update-line')?.getAttribute('action')).toBe(`/cart/lines/${ids.mug}`);
      expect(line.querySelector('form.remove-line')?.getAttribute('action')).toBe(`/cart/lines/${ids.mug}/delete`);
      expect(line.querySelector('form.remove-line input[name=_csrf_token]')?.getAttribute('value')).toBe(v.token);

      await v.agent
        .post(`/cart/lines/${ids.mug}`)
        .type('form')
        .send({ _csrf_token: v.token, quantity: '0' })
        .expect(303);
      html = await cartPage(v.agent);
      expect(text(html.querySelector('.flash'))).toBe(`Removed ${FIXTURES.mug.name} from your cart.`);
      expect(lineRows(html).map((l) => l.name)).toEqual([FIXTURES.lamp.name]);

      await v.agent.post(`/cart/lines/${ids.lamp}/delete`).type('form').send({ _csrf_token: v.token }).expect(303);
      html = await cartPage(v.agent);
      expect(text(html.querySelector('.flash'))).toBe(`Removed ${FIXTURES.lamp.name} from your cart.`);
      expect(text(html.querySelector('p.empty'))).toBe('Your cart is empty.');
      expect(html.querySelector('a.checkout')).toBeNull();
    });

    it('answers 404 for a line the cart does not have, and for an unknown product', async () => {
      const v = await visitor();
      await v.agent.post(`/cart/lines/${ids.mug}/delete`).type('form').send({ _csrf_token: v.token }).expect(404);
      await add(v, 'mug', 1).expect(303);
      await v.agent
        .post(`/cart/lines/${ids.lamp}`)
        .type('form')
        .send({ _csrf_token: v.token, quantity: '2' })
        .expect(404);
      await v.agent.post(`/cart/lines/${ids.lamp}/delete`).type('form').send({ _csrf_token: v.token }).expect(404);
      await v.agent.post('/cart/lines/abc/delete').type('form').send({ _csrf_token: v.token }).expect(404);
      const unknown = await addForm(v.agent, { _csrf_token: v.token, productId: 99_999_999, quantity: 1 }).expect(404);
      expect(unknown.text).toContain('Product 99999999 not found.');
    });

    it('computes the totals in cents: €4.90 shipping below €50.00, free from €50.00', async () => {
      const v = await visitor();
      await add(v, 'mug', 1).expect(303);
      let html = await cartPage(v.agent);
      expect([
        text(html.querySelector('#cart-subtotal')),
        text(html.querySelector('#cart-shipping')),
        text(html.querySelector('#cart-total')),
      ]).toEqual(['€12.90', '€4.90', '€17.80']);
      expect(text(html.querySelector('.free-shipping'))).toBe('Add €37.10 more for free shipping (from €50.00).');
      // 12.90 + 2 × 25.00 = 62.90: free shipping.
      await add(v, 'lamp', 2).expect(303);
      html = await cartPage(v.agent);
      expect([
        text(html.querySelector('#cart-subtotal')),
        text(html.querySelector('#cart-shipping')),
        text(html.querySelector('#cart-total')),
      ]).toEqual(['€62.90', 'Free', '€62.90']);
      expect(html.querySelector('.free-shipping')).toBeNull();
      // Exactly €50.00 ships free.
      await v.agent.post(`/cart/lines/${ids.mug}/delete`).type('form').send({ _csrf_token: v.token }).expect(303);
      const json = (await v.agent.get('/api/cart').set('Accept', 'application/json').expect(200)).body;
      expect(json).toMatchObject({ subtotalCents: 5000, shippingCents: 0, totalCents: 5000, itemCount: 2 });
    });

    it('refuses more than the stock (400, "Only N left in stock."), and a product out of stock', async () => {
      const v = await visitor();
      let res = await add(v, 'scarce', 4)
        .expect(400)
        .expect('Content-Type', /text\/html/);
      expect(violations(parse(res.text))).toEqual([['quantity', 'Only 3 left in stock.']]);
      expect(text(parse(res.text).querySelector('p.empty'))).toBe('Your cart is empty.');
      await add(v, 'scarce', 2).expect(303);
      res = await add(v, 'scarce', 2).expect(400);
      expect(violations(parse(res.text))).toEqual([['quantity', 'Only 3 left in stock. Your cart already has 2.']]);
      // The page shows the cart as it is (2 in it), never a 500.
      expect(lineRows(parse(res.text))).toMatchObject([{ name: FIXTURES.scarce.name, quantity: '2' }]);
      res = await v.agent
        .post(`/cart/lines/${ids.scarce}`)
        .type('form')
        .send({ _csrf_token: v.token, quantity: '5' })
        .expect(400);
      const line = parse(res.text).querySelector(`tr.cart-line[data-product-id="${ids.scarce}"]`)!;
      expect(line.querySelectorAll('ul.violations li').map(text)).toEqual(['Only 3 left in stock.']);
      res = await add(v, 'soldOut', 1).expect(400);
      expect(violations(parse(res.text))).toEqual([['quantity', 'This product is out of stock.']]);
      expect(lineRows(await cartPage(v.agent))).toMatchObject([{ quantity: '2' }]);
    });

    it.each([
      ['0', 'quantity', 'quantity must be a whole number from 1 to 99.'],
      ['100', 'quantity', 'quantity must be a whole number from 1 to 99.'],
      ['abc', 'quantity', 'quantity must be a whole number from 1 to 99.'],
      ['1.5', 'quantity', 'quantity must be a whole number from 1 to 99.'],
    ])(
      'answers an add with quantity %p with the cart page, 400 and the violation',
      async (quantity, field, message) => {
        const v = await visitor();
        const res = await add(v, 'mug', quantity)
          .expect(400)
          .expect('Content-Type', /text\/html/);
        const html = parse(res.text);
        expect(violations(html)).toEqual([[field, message]]);
        expect(text(html.querySelector('h1'))).toBe('Your cart');
        expect(await countRows('carts')).toBe(0);
      },
    );

    it('lists every violation of a form: a missing quantity, a missing product, an unknown field', async () => {
      const v = await visitor();
      let res = await addForm(v.agent, { _csrf_token: v.token, productId: ids.mug }).expect(400);
      expect(violations(parse(res.text))).toEqual([['quantity', 'quantity must be a whole number from 1 to 99.']]);
      res = await addForm(v.agent, { _csrf_token: v.token, quantity: 1, admin: 'yes' }).expect(400);
      expect(violations(parse(res.text))).toEqual([
        ['admin', 'property admin should not exist'],
        ['productId', 'productId must be a product id (a whole number from 1).'],
      ]);
      await add(v, 'mug', 1).expect(303);
      for (const quantity of ['-1', '100', 'x', '']) {
        res = await v.agent
          .post(`/cart/lines/${ids.mug}`)
          .type('form')
          .send({ _csrf_token: v.token, quantity })
          .expect(400);
        const line = parse(res.text).querySelector(`tr.cart-line[data-product-id="${ids.mug}"]`)!;
        expect(line.querySelectorAll('ul.violations li').map(text)).toEqual([
          'quantity must be a whole number from 0 to 99.',
        ]);
      }
      expect(lineRows(await cartPage(v.agent))).toMatchObject([{ quantity: '1' }]);
    });

    it('escapes what the visitor typed when it shows it back', async () => {
      const v = await visitor();
      const res = await addForm(v.agent, {
        _csrf_token: v.token,
        productId: ids.mug,
        quantity: 1,
        '<img src=x>': '1',
      }).expect(400);
      expect(res.text).not.toContain('<img src=x>');
      expect(violations(parse(res.text))).toContainEqual(['<img src=x>', 'property <img src=x> should not exist']);
    });

    it("refuses a form without the CSRF token, or with a wrong one or another visitor's (403)", async () => {
      const v = await visitor();
      const other = await visitor();
      await addForm(v.agent, { productId: ids.mug, quantity: 1 }).expect(403);
      const wrong = await addForm(v.agent, { _csrf_token: 'x'.repeat(43), productId: ids.mug, quantity: 1 }).expect(
        403,
      );
      expect(wrong.text).toContain('Invalid CSRF token.');
      await addForm(v.agent, { _csrf_token: other.token, productId: ids.mug, quantity: 1 }).expect(403);
      await add(v, 'mug', 1).expect(303);
      await v.agent.post(`/cart/lines/${ids.mug}`).type('form').send({ quantity: '2' }).expect(403);
      await v.agent.post(`/cart/lines/${ids.mug}/delete`).type('form').send({ _csrf_token: 'nope' }).expect(403);
      expect(lineRows(await cartPage(v.agent))).toMatchObject([{ quantity: '1' }]);
    });
  });

  describe('JSON API', () => {
    const json = (agent: ReturnType<typeof request.agent>) => ({
      get: () => agent.get('/api/cart').set('Accept', 'application/json'),
      post: (body: unknown, token?: string) =>
        withToken(agent.post('/api/cart/lines').set('Accept', 'application/json'), token).send(body as object),
      patch: (productId: number | string, body: unknown, token?: string) =>
        withToken(agent.patch(`/api/cart/lines/${productId}`).set('Accept', 'application/json'), token).send(
          body as object,
        ),
      delete: (productId: number | string, token?: string) =>
        withToken(agent.delete(`/api/cart/lines/${productId}`).set('Accept', 'application/json'), token),
    });
    const withToken = (req: request.Test, token?: string) =>
      token === undefined ? req : req.set('X-CSRF-Token', token);

    it('round trip: show (with a token), add (201), change (200), remove (200)', async () => {
      const agent = request.agent(server());
      const api = json(agent);
      const empty = await api
        .get()
        .expect(200)
        .expect('Content-Type', /application\/json/);
      expect(empty.body).toEqual({
        lines: [],
        subtotalCents: 0,
        shippingCents: 0,
        totalCents: 0,
        itemCount: 0,
        csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      });
      const token: string = empty.body.csrfToken;
      expect(await countRows('carts')).toBe(0);

      const added = await api.post({ productId: ids.mug, quantity: 2 }, token).expect(201);
      expect(added.body).toEqual({
        lines: [
          {
            productId: ids.mug,
            slug: FIXTURES.mug.slug,
            name: FIXTURES.mug.name,
            unitPriceCents: 1290,
            quantity: 2,
            lineTotalCents: 2580,
          },
        ],
        subtotalCents: 2580,
        shippingCents: 490,
        totalCents: 3070,
        itemCount: 2,
        csrfToken: token,
      });
      await api.post({ productId: ids.lamp, quantity: 1 }, token).expect(201);

      const changed = await api.patch(ids.mug, { quantity: 3 }, token).expect(200);
      expect(changed.body.lines.map((l: { quantity: number }) => l.quantity)).toEqual([3, 1]);
      expect(changed.body).toMatchObject({
        subtotalCents: 3 * 1290 + 2500,
        shippingCents: 0,
        totalCents: 3 * 1290 + 2500,
        itemCount: 4,
      });

      const removed = await api.delete(ids.mug, token).expect(200);
      expect(removed.body.lines.map((l: { productId: number }) => l.productId)).toEqual([ids.lamp]);
      const zero = await api.patch(ids.lamp, { quantity: 0 }, token).expect(200);
      expect(zero.body).toMatchObject({ lines: [], itemCount: 0, totalCents: 0 });
      // What the pages show is the same cart.
      await api.post({ productId: ids.scarce, quantity: 1 }, token).expect(201);
      expect(lineRows(await cartPage(agent)).map((l) => l.name)).toEqual([FIXTURES.scarce.name]);
    });

    it('answers 404 for an unknown product or a line the cart does not have', async () => {
      const api = json(request.agent(server()));
      const token: string = (await api.get().expect(200)).body.csrfToken;
      const unknown = await api
        .post({ productId: 99_999_999, quantity: 1 }, token)
        .expect(404)
        .expect('Content-Type', /application\/problem\+json/);
      expect(unknown.body).toMatchObject({ status: 404, detail: 'Product 99999999 not found.' });
      await api.patch(ids.mug, { quantity: 1 }, token).expect(404);
      await api.delete(ids.mug, token).expect(404);
      await api.delete('not-a-number', token).expect(404);
    });

    it.each([
      [
        { productId: 0, quantity: 1 },
        [{ property: 'productId', messages: ['productId must be a product id (a whole number from 1).'] }],
      ],
      [
        { productId: 1, quantity: 0 },
        [{ property: 'quantity', messages: ['quantity must be a whole number from 1 to 99.'] }],
      ],
      [
        { productId: 1, quantity: 100 },
        [{ property: 'quantity', messages: ['quantity must be a whole number from 1 to 99.'] }],
      ],
      [
        { productId: 1, quantity: 'abc' },
        [{ property: 'quantity', messages: ['quantity must be a whole number from 1 to 99.'] }],
      ],
      [
        { productId: 1, quantity: true },
        [{ property: 'quantity', messages: ['quantity must be a whole number from 1 to 99.'] }],
      ],
      [{ productId: 1 }, [{ property: 'quantity', messages: ['quantity must be a whole number from 1 to 99.'] }]],
      [{ productId: 1, quantity: 1, price: 0 }, [{ property: 'price', messages: ['property price should not exist'] }]],
    ])('answers %j with 400 problem+json listing the violations', async (body, expected) => {
      const api = json(request.agent(server()));
      const token: string = (await api.get().expect(200)).body.csrfToken;
      const res = await api
        .post(body, token)
        .expect(400)
        .expect('Content-Type', /application\/problem\+json/);
      expect(res.body.status).toBe(400);
      expect(res.body.violations).toEqual(expected);
      expect(await countRows('carts')).toBe(0);
    });

    it('answers stock problems, bad PATCH bodies and malformed JSON with 400, never a 500', async () => {
      const agent = request.agent(server());
      const api = json(agent);
      const token: string = (await api.get().expect(200)).body.csrfToken;
      const stock = await api.post({ productId: ids.scarce, quantity: 4 }, token).expect(400);
      expect(stock.body.violations).toEqual([{ property: 'quantity', messages: ['Only 3 left in stock.'] }]);
      const soldOut = await api.post({ productId: ids.soldOut, quantity: 1 }, token).expect(400);
      expect(soldOut.body.violations).toEqual([{ property: 'quantity', messages: ['This product is out of stock.'] }]);
      await api.post({ productId: ids.scarce, quantity: 3 }, token).expect(201);
      const patch = await api.patch(ids.scarce, { quantity: -1 }, token).expect(400);
      expect(patch.body.violations).toEqual([
        { property: 'quantity', messages: ['quantity must be a whole number from 0 to 99.'] },
      ]);
      const over = await api.patch(ids.scarce, { quantity: 4 }, token).expect(400);
      expect(over.body.violations).toEqual([{ property: 'quantity', messages: ['Only 3 left in stock.'] }]);
      const malformed = await agent
        .post('/api/cart/lines')
        .set('Accept', 'application/json')
        .set('X-CSRF-Token', token)
        .set('Content-Type', 'application/json')
        .send('{"productId": 1,')
        .expect(400);
      expect(malformed.headers['content-type']).toMatch(/application\/problem\+json/);
      const array = await api.post([{ productId: ids.mug, quantity: 1 }], token);
      expect(array.status).toBe(400);
      const nothing = await agent
        .post('/api/cart/lines')
        .set('Accept', 'application/json')
        .set('X-CSRF-Token', token)
        .expect(400);
      expect(nothing.body.violations.map((v: { property: string }) => v.property)).toEqual(['productId', 'quantity']);
      expect((await api.get().expect(200)).body.lines.map((l: { quantity: number }) => l.quantity)).toEqual([3]);
    });

    it('refuses unsafe requests without the X-CSRF-Token header, or with a wrong one (403)', async () => {
      const api = json(request.agent(server()));
      const token: string = (await api.get().expect(200)).body.csrfToken;
      const missing = await api.post({ productId: ids.mug, quantity: 1 }).expect(403);
      expect(missing.body).toMatchObject({ status: 403, detail: 'Invalid CSRF token.' });
      await api
        .post({ productId: ids.mug, quantity: 1 }, `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`)
        .expect(403);
      await api.post({ productId: ids.mug, quantity: 1 }, token).expect(201);
      await api.patch(ids.mug, { quantity: 2 }).expect(403);
      await api.delete(ids.mug, 'wrong').expect(403);
      expect((await api.get().expect(200)).body.itemCount).toBe(1);
    });
  });

  describe('whose cart', () => {
    it('keeps the cart across requests through the session cookie alone', async () => {
      const v = await visitor();
      const res = await add(v, 'mug', 2).expect(303);
      const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('SHOPSESSID='));
      // The session existed since the product page (its token): the add changed it, so it was saved again.
      expect(cookie).toBeDefined();
      const sessionCookie = cookie!.split(';')[0];
      const again = await request(server())
        .get('/api/cart')
        .set('Accept', 'application/json')
        .set('Cookie', sessionCookie)
        .expect(200);
      expect(again.body.lines).toMatchObject([{ productId: ids.mug, quantity: 2 }]);
      // The session holds the cart's id, and the cart row the session's id.
      const cart = await shop.selectFrom('carts').selectAll().executeTakeFirstOrThrow();
      const stored = await shop.selectFrom('sessions').select(['id', 'data']).executeTakeFirstOrThrow();
      expect(JSON.parse(stored.data)[CART_ID_ATTRIBUTE]).toBe(cart.id);
      expect([cart.session_id, cart.user_id]).toEqual([stored.id, null]);
      // Without the cookie: another visitor, no cart.
      const stranger = await request(server()).get('/api/cart').set('Accept', 'application/json').expect(200);
      expect(stranger.body.lines).toEqual([]);
    });

    it("keeps two visitors' carts apart", async () => {
      const alice = await visitor();
      const bob = await visitor();
      await add(alice, 'mug', 1).expect(303);
      await add(bob, 'lamp', 3).expect(303);
      await add(alice, 'lamp', 1).expect(303);
      expect(lineRows(await cartPage(alice.agent)).map((l) => [l.name, l.quantity])).toEqual([
        [FIXTURES.mug.name, '1'],
        [FIXTURES.lamp.name, '1'],
      ]);
      expect(lineRows(await cartPage(bob.agent)).map((l) => [l.name, l.quantity])).toEqual([[FIXTURES.lamp.name, '3']]);
      // Bob cannot touch Alice's line: his cart has no mug.
      await bob.agent.post(`/cart/lines/${ids.mug}/delete`).type('form').send({ _csrf_token: bob.token }).expect(404);
      expect(await countRows('carts')).toBe(2);
    });

    it('creates no cart and no session for a visitor who only browses', async () => {
      for (const path of ['/', '/products', `/products/${FIXTURES.soldOut.slug}`, '/cart']) {
        const res = await request(server()).get(path).expect(200);
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      const empty = parse((await request(server()).get('/cart').expect(200)).text);
      expect(text(empty.querySelector('p.empty'))).toBe('Your cart is empty.');
      expect(headerCount(empty)).toBe('Cart');
      expect(await countRows('sessions')).toBe(0);
      // A product page with its form starts a session (the CSRF token), still no cart.
      await visitor();
      expect(await countRows('sessions')).toBe(1);
      expect(await countRows('carts')).toBe(0);
    });

    it('shows the count in the header of every page once the visitor has a cart, without a query before', async () => {
      const v = await visitor();
      const before = parse((await v.agent.get('/products').expect(200)).text);
      expect(headerCount(before)).toBe('Cart');
      await add(v, 'mug', 2).expect(303);
      await add(v, 'lamp', 3).expect(303);
      const res = await v.agent.get('/products').expect(200);
      expect(headerCount(parse(res.text))).toBe('Cart (5)');
      // A page with the visitor's count is theirs: never in a shared cache.
      expect(res.headers['cache-control']).toBe('max-age=0, must-revalidate, private');
      expect(headerCount(parse((await v.agent.get(`/products/${FIXTURES.lamp.slug}`).expect(200)).text))).toBe(
        'Cart (5)',
      );

      // The Cart panel of a page that only read the summary.
      const profile = await storedProfile(app, res.headers['x-debug-token']);
      expect(profileData(profile).cart).toMatchObject({
        owner: 'session',
        itemCount: 5,
        subtotalCents: 2 * 1290 + 3 * 2500,
        lines: null,
        changes: [],
      });
      // A visitor without a cart costs the header no query.
      const stranger = await request(server()).get('/products').expect(200);
      const queries: Array<{ sql: string }> = profileData(await storedProfile(app, stranger.headers['x-debug-token']))
        .database.queries;
      expect(queries.map((q) => q.sql).filter((sql) => sql.includes('"carts"'))).toEqual([]);
    });
  });

  describe('attachToUser (called by the login)', () => {
    const user = async (email: string): Promise<number> =>
      (
        await shop
          .insertInto('users')
          .values({ email, password_hash: 'not-a-hash' })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const linesOf = async (userId: number) =>
      (
        await shop
          .selectFrom('carts')
          .innerJoin('cart_lines', 'cart_lines.cart_id', 'carts.id')
          .select(['cart_lines.product_id', 'cart_lines.quantity'])
          .where('carts.user_id', '=', userId)
          .orderBy('cart_lines.product_id')
          .execute()
      ).map((l) => [l.product_id, l.quantity]);

    it('moves the anonymous cart to a user who has none, and takes cart_id out of the session', async () => {
      const cart = app.get(CartService);
      const session = new Session(null);
      await cart.add({ kind: 'session', session }, ids.mug, 2);
      const anonymousId = session.get<number>(CART_ID_ATTRIBUTE)!;
      const userId = await user(`cart-move-${Date.now()}@example.test`);
      await cart.attachToUser(session, userId);
      expect(session.has(CART_ID_ATTRIBUTE)).toBe(false);
      const row = await shop.selectFrom('carts').selectAll().where('id', '=', anonymousId).executeTakeFirstOrThrow();
      expect([row.user_id, row.session_id]).toEqual([userId, null]);
      expect(await linesOf(userId)).toEqual([[ids.mug, 2]]);
      expect((await cart.view({ kind: 'user', userId })).itemCount).toBe(2);
      // Nothing left to attach: a second call changes nothing.
      await cart.attachToUser(session, userId);
      expect(await linesOf(userId)).toEqual([[ids.mug, 2]]);
    });

    it("merges into the user's cart: quantities summed, capped by the stock, the anonymous cart deleted", async () => {
      const cart = app.get(CartService);
      const userId = await user(`cart-merge-${Date.now()}@example.test`);
      await cart.add({ kind: 'user', userId }, ids.mug, 3);
      await cart.add({ kind: 'user', userId }, ids.scarce, 2);
      const session = new Session(null);
      const anonymous = { kind: 'session' as const, session };
      await cart.add(anonymous, ids.mug, 4);
      await cart.add(anonymous, ids.scarce, 2);
      await cart.add(anonymous, ids.lamp, 1);
      const anonymousId = session.get<number>(CART_ID_ATTRIBUTE)!;
      await cart.attachToUser(session, userId);
      // mug 3 + 4 = 7; scarce 2 + 2 = 4, only 3 in stock; lamp new.
      expect(await linesOf(userId)).toEqual(
        [
          [ids.mug, 7],
          [ids.lamp, 1],
          [ids.scarce, 3],
        ].sort((a, b) => a[0] - b[0]),
      );
      expect(
        await shop.selectFrom('carts').select('id').where('id', '=', anonymousId).executeTakeFirst(),
      ).toBeUndefined();
      expect(session.has(CART_ID_ATTRIBUTE)).toBe(false);
      expect(await countRows('carts')).toBe(1);
    });

    it("shows the user their cart, not the session's, once logged in", async () => {
      const cart = app.get(CartService);
      const userId = await user(`cart-owner-${Date.now()}@example.test`);
      const session = new Session(null);
      await cart.add({ kind: 'session', session }, ids.lamp, 1);
      expect((await cart.view({ kind: 'user', userId })).lines).toEqual([]);
      expect(await cart.summary({ kind: 'user', userId })).toBeUndefined();
      expect((await cart.view({ kind: 'session', session })).lines.map((l) => l.productId)).toEqual([ids.lamp]);
    });
  });

  describe('the Cart panel', () => {
    it("shows the request's changes and the cart's lines at its end", async () => {
      const v = await visitor();
      await add(v, 'mug', 1).expect(303);
      const res = await add(v, 'mug', 2).expect(303);
      const token = res.headers['x-debug-token'];
      await storedProfile(app, token);
      const page = await request(server()).get(`/_profiler/${token}?panel=cart`).expect(200);
      const html = parse(page.text);
      const changes = html
        .querySelectorAll('table.cart-changes tbody tr')
        .map((tr) => tr.querySelectorAll('td').map(text));
      expect(changes).toEqual([['quantity changed', `#${ids.mug} ${FIXTURES.mug.name}`, '1', '3']]);
      const lines = html.querySelectorAll('table.cart-lines tbody tr').map((tr) => tr.querySelectorAll('td').map(text));
      expect(lines).toEqual([[String(ids.mug), `${FIXTURES.mug.slug} ${FIXTURES.mug.name}`, '€12.90', '3', '€38.70']]);
      expect(page.text).toContain('anonymous visitor (session attribute cart_id)');
      expect(page.text).toContain('€43.60');

      // The cart page's own profile: its lines, no change.
      const show = await v.agent.get('/cart').expect(200);
      await storedProfile(app, show.headers['x-debug-token']);
      const panel = parse(
        (await request(server()).get(`/_profiler/${show.headers['x-debug-token']}?panel=cart`).expect(200)).text,
      );
      expect(panel.querySelectorAll('table.cart-lines tbody tr')).toHaveLength(1);
      expect(panel.querySelector('table.cart-changes')).toBeNull();
    });

    it('is left out of the profile of a request that never looked at a cart', async () => {
      const res = await request(server()).get('/products').expect(200);
      const profile = await storedProfile(app, res.headers['x-debug-token']);
      expect((profile.data as Record<string, unknown>).cart).toBeUndefined();
    });
  });
}
