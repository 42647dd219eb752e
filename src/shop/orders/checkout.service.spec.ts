import { EventEmitter2 } from '@nestjs/event-emitter';
import { AppConfig } from '../../config/app-config.js';
import type { ShopDb } from '../../database/shop-db.js';
import { BadRequestHttpException } from '../../lifecycle/exceptions/bad-request-http.exception.js';
import { ConflictHttpException } from '../../lifecycle/exceptions/conflict-http.exception.js';
import { KernelContext, kernelContextStorage } from '../../lifecycle/kernel-context.js';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import type { AuthenticatedUser } from '../../security/security-context.js';
import type { CheckoutDto } from './checkout.dto.js';
import { CheckoutService } from './checkout.service.js';
import { OrderPlacedEvent } from './order-placed.event.js';
import { memoryShopDb } from '../../database/testing/memory-shop-db.js';

const ADDRESS: CheckoutDto = {
  name: 'Ann Example',
  street: '1 Rue de la Paix',
  postcode: '75002',
  city: 'Paris',
  country: 'FR',
};

describe('CheckoutService on SQLite', () => {
  let db: ShopDb;
  let events: EventEmitter2;
  let placed: OrderPlacedEvent[];
  let checkout: CheckoutService;
  let ann: AuthenticatedUser;
  let bob: AuthenticatedUser;
  let category: number;

  beforeEach(async () => {
    db = await memoryShopDb();
    events = new EventEmitter2();
    placed = [];
    events.on(OrderPlacedEvent.NAME, (event: OrderPlacedEvent) => placed.push(event));
    checkout = new CheckoutService(db, new KernelLogger(AppConfig.fromEnv({ APP_ENV: 'test' })), events);
    const users = await db
      .insertInto('users')
      .values([
        { email: 'ann@example.com', password_hash: 'x' },
        { email: 'bob@example.com', password_hash: 'x' },
      ])
      .returning('id')
      .execute();
    ann = { id: users[0].id, email: 'ann@example.com', roles: ['ROLE_USER'] };
    bob = { id: users[1].id, email: 'bob@example.com', roles: ['ROLE_USER'] };
    ({ id: category } = await db
      .insertInto('categories')
      .values({ slug: 'kitchen', name: 'Kitchen' })
      .returning('id')
      .executeTakeFirstOrThrow());
  });

  afterEach(() => db.destroy());

  const product = async (slug: string, priceCents: number, stock: number): Promise<number> =>
    (
      await db
        .insertInto('products')
        .values({
          slug,
          name: slug[0].toUpperCase() + slug.slice(1),
          price_cents: priceCents,
          stock,
          category_id: category,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  /** The user's cart, with these lines in this order. */
  const cart = async (
    user: AuthenticatedUser,
    lines: Array<[productId: number, quantity: number]>,
  ): Promise<number> => {
    const { id } = await db.insertInto('carts').values({ user_id: user.id }).returning('id').executeTakeFirstOrThrow();
    for (const [productId, quantity] of lines)
      await db.insertInto('cart_lines').values({ cart_id: id, product_id: productId, quantity }).execute();
    return id;
  };
  const stock = async () =>
    Object.fromEntries(
      (await db.selectFrom('products').select(['slug', 'stock']).execute()).map((p) => [p.slug, p.stock]),
    );
  const cartLines = (cartId: number) =>
    db
      .selectFrom('cart_lines')
      .select(['product_id', 'quantity'])
      .where('cart_id', '=', cartId)
      .orderBy('id')
      .execute();
  const placeOrder = (user: AuthenticatedUser) => checkout.placeOrder(user, ADDRESS);

  describe('preview', () => {
    it("shows the cart's lines at today's prices, in the order they were added, with the totals", async () => {
      const mug = await product('mug', 1290, 10);
      const pan = await product('pan', 2450, 1);
      await cart(ann, [
        [pan, 2],
        [mug, 1],
      ]);
      await db.updateTable('products').set({ price_cents: 1300 }).where('id', '=', mug).execute();
      await expect(checkout.preview(ann.id)).resolves.toEqual({
        lines: [
          {
            slug: 'pan',
            name: 'Pan',
            price_cents: 2450,
            quantity: 2,
            stock: 1,
            line_total_cents: 4900,
            available: false,
          },
          {
            slug: 'mug',
            name: 'Mug',
            price_cents: 1300,
            quantity: 1,
            stock: 10,
            line_total_cents: 1300,
            available: true,
          },
        ],
        subtotalCents: 6200,
        shippingCents: 0,
        totalCents: 6200,
      });
    });

    it('is empty, shipping nothing, without a cart', async () => {
      await cart(bob, [[await product('mug', 1290, 10), 1]]);
      await expect(checkout.preview(ann.id)).resolves.toEqual({
        lines: [],
        subtotalCents: 0,
        shippingCents: 0,
        totalCents: 0,
      });
    });
  });

  describe('placeOrder', () => {
    it('turns the cart into an order: lines copied, stock taken, cart emptied, the sale announced', async () => {
      const mug = await product('mug', 1290, 10);
      const pan = await product('pan', 2450, 3);
      const cartId = await cart(ann, [
        [pan, 1],
        [mug, 2],
      ]);
      const context = new KernelContext({} as never, 'en');
      const order = await kernelContextStorage.run(context, () => placeOrder(ann));

      expect(order).toMatchObject({
        user_id: ann.id,
        status: 'placed',
        subtotal_cents: 5030,
        shipping_cents: 0,
        total_cents: 5030,
        shipping_name: 'Ann Example',
        shipping_street: '1 Rue de la Paix',
        shipping_postcode: '75002',
        shipping_city: 'Paris',
        shipping_country: 'FR',
      });
      expect(order.reference).toMatch(/^SK-[0-9A-HJKMNP-TV-Z]{8}$/);
      expect(await db.selectFrom('orders').select('reference').execute()).toEqual([{ reference: order.reference }]);
      // Lines in product order: the order rows were locked in.
      expect(
        await db
          .selectFrom('order_lines')
          .select([
            'order_id',
            'product_id',
            'product_slug',
            'product_name',
            'unit_price_cents',
            'quantity',
            'line_total_cents',
          ])
          .orderBy('id')
          .execute(),
      ).toEqual([
        {
          order_id: order.id,
          product_id: mug,
          product_slug: 'mug',
          product_name: 'Mug',
          unit_price_cents: 1290,
          quantity: 2,
          line_total_cents: 2580,
        },
        {
          order_id: order.id,
          product_id: pan,
          product_slug: 'pan',
          product_name: 'Pan',
          unit_price_cents: 2450,
          quantity: 1,
          line_total_cents: 2450,
        },
      ]);
      expect(await stock()).toEqual({ mug: 8, pan: 2 });
      expect(await cartLines(cartId)).toEqual([]);
      expect(await db.selectFrom('carts').select('id').where('id', '=', cartId).execute()).toEqual([{ id: cartId }]);
      expect(placed).toEqual([new OrderPlacedEvent(order.reference, ann.id, cartId, 3, 5030)]);
      expect(context.logs.map((e) => [e.levelName, e.channel, e.message])).toEqual([
        ['INFO', 'app', `Order ${order.reference} placed: 5030 cents.`],
      ]);
    });

    it.each([
      [4999, 490, 5489],
      [5000, 0, 5000],
      [1, 490, 491],
    ])('charges shipping on a subtotal of %i cents: %i, total %i', async (subtotal, shipping, total) => {
      await cart(ann, [[await product('thing', subtotal, 1), 1]]);
      await expect(placeOrder(ann)).resolves.toMatchObject({
        subtotal_cents: subtotal,
        shipping_cents: shipping,
        total_cents: total,
      });
    });

    it('adds up integer cents exactly (no floating-point drift)', async () => {
      // In euros as floats, 3 × 0.1 + 7 × 0.2 + 3 × 3.33 is 11.690000000000001.
      const a = await product('a', 10, 5);
      const b = await product('b', 20, 10);
      const c = await product('c', 333, 3);
      await cart(ann, [
        [a, 3],
        [b, 7],
        [c, 3],
      ]);
      await expect(placeOrder(ann)).resolves.toMatchObject({
        subtotal_cents: 1169,
        shipping_cents: 490,
        total_cents: 1659,
      });
    });

    it("charges the catalogue's price at the moment of purchase, not the one when added", async () => {
      const mug = await product('mug', 1290, 10);
      await cart(ann, [[mug, 1]]);
      await db.updateTable('products').set({ price_cents: 990 }).where('id', '=', mug).execute();
      await expect(placeOrder(ann)).resolves.toMatchObject({ subtotal_cents: 990, total_cents: 1480 });
      expect(await db.selectFrom('order_lines').select('unit_price_cents').execute()).toEqual([
        { unit_price_cents: 990 },
      ]);
    });

    it('takes the last units in stock', async () => {
      await cart(ann, [[await product('mug', 1290, 2), 2]]);
      await placeOrder(ann);
      expect(await stock()).toEqual({ mug: 0 });
    });

    it.each([
      ['without a cart', false],
      ['with an empty cart', true],
    ])('refuses %s with a 400', async (_, hasCart) => {
      if (hasCart) await cart(ann, []);
      const call = placeOrder(ann);
      await expect(call).rejects.toBeInstanceOf(BadRequestHttpException);
      await expect(call).rejects.toMatchObject({ statusCode: 400, message: 'Your cart is empty.' });
      expect(await db.selectFrom('orders').select('id').execute()).toEqual([]);
      expect(placed).toEqual([]);
    });

    it("does not take another customer's cart", async () => {
      await cart(bob, [[await product('mug', 1290, 10), 1]]);
      await expect(placeOrder(ann)).rejects.toThrow('Your cart is empty.');
      expect(await stock()).toEqual({ mug: 10 });
    });

    it('refuses with a 409 when fewer are left than the cart holds, and rolls everything back', async () => {
      const mug = await product('mug', 1290, 10);
      const pan = await product('pan', 2450, 2);
      const cartId = await cart(ann, [
        [mug, 4],
        [pan, 3],
      ]);
      const call = placeOrder(ann);
      await expect(call).rejects.toBeInstanceOf(ConflictHttpException);
      await expect(call).rejects.toMatchObject({
        statusCode: 409,
        message: 'Sorry, only 2 of "Pan" left in stock: please change the quantity in your cart.',
      });
      // The mug's units, taken before the pan was found short, are back.
      expect(await stock()).toEqual({ mug: 10, pan: 2 });
      expect(await cartLines(cartId)).toEqual([
        { product_id: mug, quantity: 4 },
        { product_id: pan, quantity: 3 },
      ]);
      expect(await db.selectFrom('orders').select('id').execute()).toEqual([]);
      expect(await db.selectFrom('order_lines').select('id').execute()).toEqual([]);
      expect(placed).toEqual([]);
    });

    it('refuses with a 409 a product sold out meanwhile', async () => {
      const mug = await product('mug', 1290, 1);
      await cart(ann, [[mug, 1]]);
      await db.updateTable('products').set({ stock: 0 }).where('id', '=', mug).execute();
      await expect(placeOrder(ann)).rejects.toMatchObject({
        statusCode: 409,
        message: 'Sorry, "Mug" is sold out: please remove it from your cart.',
      });
    });

    it('sells the last unit once when two customers check out together', async () => {
      const mug = await product('mug', 1290, 1);
      await cart(ann, [[mug, 1]]);
      await cart(bob, [[mug, 1]]);
      const outcomes = await Promise.allSettled([placeOrder(ann), placeOrder(bob)]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')!;
      expect(refused.reason).toMatchObject({
        statusCode: 409,
        message: 'Sorry, "Mug" is sold out: please remove it from your cart.',
      });
      expect(await stock()).toEqual({ mug: 0 });
      expect(await db.selectFrom('orders').select('user_id').execute()).toHaveLength(1);
      expect(placed).toHaveLength(1);
    });

    it('gives each order its own reference', async () => {
      const mug = await product('mug', 1290, 10);
      await cart(ann, [[mug, 1]]);
      const first = await placeOrder(ann);
      await db.insertInto('cart_lines').values({ cart_id: placed[0].cartId, product_id: mug, quantity: 1 }).execute();
      const second = await placeOrder(ann);
      expect(second.reference).not.toBe(first.reference);
      expect(second.id).toBeGreaterThan(first.id);
    });
  });
});
