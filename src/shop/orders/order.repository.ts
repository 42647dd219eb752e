import { Injectable } from '@nestjs/common';
import { ShopDb } from '../../database/shop-db.js';
import type { Order, OrderLine } from '../../database/schema.js';
import type { Pagination } from '../../lifecycle/pagination/pagination.js';

export type OrderWithLines = Order & { lines: OrderLine[] };

/** A customer's orders: never another customer's (every query is by owner). */
@Injectable()
export class OrderRepository {
  constructor(private readonly db: ShopDb) {}

  async countForUser(userId: number): Promise<number> {
    const row = await this.db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** Newest first, with their item counts. */
  listForUser(userId: number, pagination: Pagination): Promise<Array<Order & { item_count: number }>> {
    return this.db
      .selectFrom('orders')
      .selectAll('orders')
      .select((eb) =>
        eb
          .selectFrom('order_lines')
          .select((sub) => sub.fn.coalesce(sub.fn.sum<number>('quantity'), sub.lit(0)).as('n'))
          .whereRef('order_lines.order_id', '=', 'orders.id')
          .as('item_count'),
      )
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(pagination.limit)
      .offset(pagination.offset)
      .execute() as Promise<Array<Order & { item_count: number }>>;
  }

  async byReferenceForUser(reference: string, userId: number): Promise<OrderWithLines | undefined> {
    const order = await this.db
      .selectFrom('orders')
      .selectAll()
      .where('reference', '=', reference)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!order) return undefined;
    const lines = await this.db
      .selectFrom('order_lines')
      .selectAll()
      .where('order_id', '=', order.id)
      .orderBy('id')
      .execute();
    return { ...order, lines };
  }
}
