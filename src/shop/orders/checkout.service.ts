import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { ShopDb } from '../../database/shop-db.js';
import type { Order } from '../../database/schema.js';
import { BadRequestHttpException } from '../../lifecycle/exceptions/bad-request-http.exception.js';
import { ConflictHttpException } from '../../lifecycle/exceptions/conflict-http.exception.js';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';
import type { AuthenticatedUser } from '../../security/security-context.js';
import { shippingCents } from '../cart/cart-rules.js';
import type { CheckoutDto } from './checkout.dto.js';
import { newOrderReference } from './order-reference.js';
import { OrderPlacedEvent } from './order-placed.event.js';

export interface CheckoutPreview {
  lines: Array<{
    slug: string;
    name: string;
    price_cents: number;
    quantity: number;
    stock: number;
    line_total_cents: number;
    available: boolean;
  }>;
  subtotalCents: number;
  shippingCents: number;
  totalCents: number;
}

/**
 * Checkout: the customer's cart becomes an order, in one transaction. Each line takes its units from the stock
 * with a conditional update (`stock = stock - n WHERE stock >= n`): when two customers buy the last unit at the
 * same moment, the database lets exactly one update through (PostgreSQL: row lock, the second re-checks after the
 * first commits; SQLite: one writer at a time) and the other checkout rolls back with a 409, the stock never below
 * zero (the CHECK constraint would refuse it anyway). Lines are updated in product order, so that concurrent
 * checkouts lock rows in the same order and cannot deadlock. Prices are the catalogue's at the moment of purchase.
 */
@Injectable()
export class CheckoutService {
  constructor(
    private readonly db: ShopDb,
    private readonly logger: KernelLogger,
    private readonly events: EventEmitter2,
  ) {}

  /** What the checkout page shows: the cart's lines at today's prices, and the totals. */
  async preview(userId: number): Promise<CheckoutPreview> {
    const lines = await this.db
      .selectFrom('carts')
      .innerJoin('cart_lines', 'cart_lines.cart_id', 'carts.id')
      .innerJoin('products', 'products.id', 'cart_lines.product_id')
      .select(['products.slug', 'products.name', 'products.price_cents', 'products.stock', 'cart_lines.quantity'])
      .where('carts.user_id', '=', userId)
      .orderBy('cart_lines.id')
      .execute();
    const subtotal = lines.reduce((sum, line) => sum + line.price_cents * line.quantity, 0);
    const shipping = shippingCents(subtotal);
    return {
      lines: lines.map((line) => ({
        ...line,
        line_total_cents: line.price_cents * line.quantity,
        available: line.stock >= line.quantity,
      })),
      subtotalCents: subtotal,
      shippingCents: shipping,
      totalCents: subtotal + shipping,
    };
  }

  async placeOrder(user: AuthenticatedUser, address: CheckoutDto): Promise<Order> {
    const { order, cartId, items } = await this.db.transaction().execute(async (trx) => {
      const cart = await trx.selectFrom('carts').select('id').where('user_id', '=', user.id).executeTakeFirst();
      const lines = cart
        ? await trx
            .selectFrom('cart_lines')
            .innerJoin('products', 'products.id', 'cart_lines.product_id')
            .select([
              'cart_lines.product_id',
              'cart_lines.quantity',
              'products.slug',
              'products.name',
              'products.price_cents',
            ])
            .where('cart_lines.cart_id', '=', cart.id)
            .orderBy('cart_lines.product_id')
            .execute()
        : [];
      if (!cart || lines.length === 0) throw new BadRequestHttpException('Your cart is empty.');

      const now = new Date().toISOString();
      for (const line of lines) {
        const taken = await trx
          .updateTable('products')
          .set((eb) => ({ stock: eb('stock', '-', line.quantity), updated_at: now }))
          .where('id', '=', line.product_id)
          .where('stock', '>=', line.quantity)
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) !== 1) {
          const left = await trx
            .selectFrom('products')
            .select('stock')
            .where('id', '=', line.product_id)
            .executeTakeFirst();
          throw new ConflictHttpException(
            left && left.stock > 0
              ? `Sorry, only ${left.stock} of "${line.name}" left in stock: please change the quantity in your cart.`
              : `Sorry, "${line.name}" is sold out: please remove it from your cart.`,
          );
        }
      }

      const subtotal = lines.reduce((sum, line) => sum + line.price_cents * line.quantity, 0);
      const shipping = shippingCents(subtotal);
      const placed = await trx
        .insertInto('orders')
        .values({
          reference: newOrderReference(),
          user_id: user.id,
          subtotal_cents: subtotal,
          shipping_cents: shipping,
          total_cents: subtotal + shipping,
          created_at: now,
          shipping_name: address.name,
          shipping_street: address.street,
          shipping_postcode: address.postcode,
          shipping_city: address.city,
          shipping_country: address.country,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('order_lines')
        .values(
          lines.map((line) => ({
            order_id: placed.id,
            product_id: line.product_id,
            product_slug: line.slug,
            product_name: line.name,
            unit_price_cents: line.price_cents,
            quantity: line.quantity,
            line_total_cents: line.price_cents * line.quantity,
          })),
        )
        .execute();
      await trx.deleteFrom('cart_lines').where('cart_id', '=', cart.id).execute();
      return { order: placed, cartId: cart.id, items: lines.reduce((sum, line) => sum + line.quantity, 0) };
    });
    this.logger.record(LogLevel.INFO, 'app', 'Order {reference} placed: {total} cents.', {
      reference: order.reference,
      total: order.total_cents,
    });
    this.events.emit(
      OrderPlacedEvent.NAME,
      new OrderPlacedEvent(order.reference, user.id, cartId, items, order.total_cents),
    );
    return order;
  }
}
