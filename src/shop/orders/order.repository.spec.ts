import type { Request, Response } from 'express';
import type { ShopDb } from '../../database/shop-db.js';
import { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { KernelContext } from '../../lifecycle/kernel-context.js';
import { AuthenticationRequiredException } from '../../security/firewall/authentication-required.exception.js';
import { securityOf } from '../../security/security-context.js';
import { OrderByReferenceConverter } from './order-by-reference.converter.js';
import { OrderRepository } from './order.repository.js';
import { memoryShopDb } from '../../database/testing/memory-shop-db.js';

describe('OrderRepository and OrderByReferenceConverter on SQLite', () => {
  let db: ShopDb;
  let orders: OrderRepository;
  let ann: number;
  let bob: number;

  beforeEach(async () => {
    db = await memoryShopDb();
    orders = new OrderRepository(db);
    const users = await db
      .insertInto('users')
      .values([
        { email: 'ann@example.com', password_hash: 'x' },
        { email: 'bob@example.com', password_hash: 'x' },
      ])
      .returning('id')
      .execute();
    [ann, bob] = users.map((u) => u.id);
  });

  afterEach(() => db.destroy());

  /** An order with lines of these quantities (10 cents a unit). */
  const order = async (userId: number, reference: string, createdAt: string, quantities: number[]): Promise<number> => {
    const subtotal = quantities.reduce((sum, q) => sum + q * 10, 0);
    const { id } = await db
      .insertInto('orders')
      .values({ reference, user_id: userId, subtotal_cents: subtotal, total_cents: subtotal, created_at: createdAt })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const [i, quantity] of quantities.entries()) {
      await db
        .insertInto('order_lines')
        .values({
          order_id: id,
          product_id: null,
          product_slug: `p${i}`,
          product_name: `P${i}`,
          unit_price_cents: 10,
          quantity,
          line_total_cents: quantity * 10,
        })
        .execute();
    }
    return id;
  };

  it("lists a customer's orders only, newest first, with their item counts, a page at a time", async () => {
    await order(ann, 'SK-AAAAAAA1', '2030-01-01T10:00:00.000Z', [1, 2]);
    await order(ann, 'SK-AAAAAAA2', '2030-01-03T10:00:00.000Z', []);
    await order(ann, 'SK-AAAAAAA3', '2030-01-02T10:00:00.000Z', [5]);
    // Placed at the same moment: the later id first.
    await order(ann, 'SK-AAAAAAA4', '2030-01-02T10:00:00.000Z', [1]);
    await order(bob, 'SK-BBBBBBB1', '2030-01-05T10:00:00.000Z', [9]);
    expect(await orders.countForUser(ann)).toBe(4);
    expect(await orders.countForUser(bob)).toBe(1);
    const page = (limit: number, offset: number) =>
      orders.listForUser(ann, { page: offset / limit + 1, limit, offset });
    expect((await page(3, 0)).map((o) => [o.reference, Number(o.item_count)])).toEqual([
      ['SK-AAAAAAA2', 0],
      ['SK-AAAAAAA4', 1],
      ['SK-AAAAAAA3', 5],
    ]);
    expect((await page(3, 3)).map((o) => [o.reference, Number(o.item_count)])).toEqual([['SK-AAAAAAA1', 3]]);
    expect(await page(3, 6)).toEqual([]);
  });

  it('finds an order by reference with its lines for its owner, and for nobody else', async () => {
    const id = await order(ann, 'SK-AAAAAAA1', '2030-01-01T10:00:00.000Z', [1, 2]);
    const found = await orders.byReferenceForUser('SK-AAAAAAA1', ann);
    expect(found).toMatchObject({ id, reference: 'SK-AAAAAAA1', user_id: ann, subtotal_cents: 30 });
    expect(found!.lines.map((l) => [l.product_slug, l.quantity, l.line_total_cents])).toEqual([
      ['p0', 1, 10],
      ['p1', 2, 20],
    ]);
    await expect(orders.byReferenceForUser('SK-AAAAAAA1', bob)).resolves.toBeUndefined();
    await expect(orders.byReferenceForUser('SK-ZZZZZZZZ', ann)).resolves.toBeUndefined();
  });

  describe('OrderByReferenceConverter', () => {
    const converter = () => new OrderByReferenceConverter(orders);
    const requestOf = (userId: number | null): KernelRequest => {
      const context = new KernelContext({} as Response, 'en');
      context.request = new KernelRequest(
        { method: 'GET', url: '/', headers: {}, socket: {} } as unknown as Request,
        context,
        'en',
        false,
      );
      if (userId !== null) securityOf(context).user = { id: userId, email: 'x@example.com', roles: ['ROLE_USER'] };
      return context.request;
    };

    it("gives the logged-in customer's order, and nothing for another's (a 404, not a 403)", async () => {
      await order(ann, 'SK-AAAAAAA1', '2030-01-01T10:00:00.000Z', [1]);
      await expect(converter().convert('SK-AAAAAAA1', requestOf(ann))).resolves.toMatchObject({
        reference: 'SK-AAAAAAA1',
        lines: [{ quantity: 1 }],
      });
      await expect(converter().convert('SK-AAAAAAA1', requestOf(bob))).resolves.toBeUndefined();
      expect(converter().notFoundMessage('SK-AAAAAAA1')).toBe('Order "SK-AAAAAAA1" not found.');
    });

    it.each(['sk-aaaaaaa1', 'SK-AAAAAAA', 'SK-AAAAAAAI', 'SK-AAAAAAAO', 'SK-AAAAAAA1 ', "SK-' OR 1=1"])(
      'does not look up %j, which is no reference',
      async (reference) => {
        const lookedUp: string[] = [];
        const counting = new (class extends OrderRepository {
          override byReferenceForUser(ref: string, userId: number) {
            lookedUp.push(ref);
            return super.byReferenceForUser(ref, userId);
          }
        })(db);
        await expect(
          new OrderByReferenceConverter(counting).convert(reference, requestOf(ann)),
        ).resolves.toBeUndefined();
        expect(lookedUp).toEqual([]);
        await expect(
          new OrderByReferenceConverter(counting).convert('SK-AAAAAAA1', requestOf(ann)),
        ).resolves.toBeUndefined();
        expect(lookedUp).toEqual(['SK-AAAAAAA1']);
      },
    );

    it('asks an anonymous visitor to log in', async () => {
      await expect(converter().convert('SK-AAAAAAA1', requestOf(null))).rejects.toBeInstanceOf(
        AuthenticationRequiredException,
      );
    });
  });
});
