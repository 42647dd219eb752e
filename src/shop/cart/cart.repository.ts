import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { ShopDatabase } from '../../database/schema.js';
import { ShopDb } from '../../database/shop-db.js';

/** Which cart: a logged-in user's, or the anonymous cart whose id the visitor's session holds. */
export type CartKey = { userId: number } | { cartId: number };

export interface CartProductRow {
  id: number;
  slug: string;
  name: string;
  price_cents: number;
  stock: number;
}

export interface CartLineRow {
  productId: number;
  slug: string;
  name: string;
  unitPriceCents: number;
  stock: number;
  quantity: number;
}

/** A cart with its lines, in the order they were added. */
export interface CartRow {
  id: number;
  lines: CartLineRow[];
}

type Db = Kysely<ShopDatabase>;

/** The carts and their lines (Kysely; the same queries on SQLite and PostgreSQL). */
@Injectable()
export class CartRepository {
  constructor(private readonly db: ShopDb) {}

  /** The cart and its lines in one query (left joins: an empty cart is one row of nulls); undefined: no cart. */
  async find(key: CartKey, db: Db = this.db): Promise<CartRow | undefined> {
    let query = db
      .selectFrom('carts')
      .leftJoin('cart_lines', 'cart_lines.cart_id', 'carts.id')
      .leftJoin('products', 'products.id', 'cart_lines.product_id')
      .select([
        'carts.id as cart_id',
        'products.id as product_id',
        'products.slug',
        'products.name',
        'products.price_cents',
        'products.stock',
        'cart_lines.quantity',
      ]);
    query =
      'userId' in key
        ? query.where('carts.user_id', '=', key.userId)
        : query.where('carts.id', '=', key.cartId).where('carts.user_id', 'is', null);
    const rows = await query.orderBy('cart_lines.id').execute();
    if (rows.length === 0) return undefined;
    const lines: CartLineRow[] = [];
    for (const row of rows) {
      if (row.product_id === null || row.quantity === null) continue;
      lines.push({
        productId: row.product_id,
        slug: row.slug!,
        name: row.name!,
        unitPriceCents: row.price_cents!,
        stock: row.stock!,
        quantity: row.quantity,
      });
    }
    return { id: rows[0].cart_id, lines };
  }

  /** The header's numbers: units and their value (before shipping), with the cart's id; undefined: no cart. */
  async summary(key: CartKey): Promise<{ cartId: number; count: number; totalCents: number } | undefined> {
    let query = this.db
      .selectFrom('carts')
      .leftJoin('cart_lines', 'cart_lines.cart_id', 'carts.id')
      .leftJoin('products', 'products.id', 'cart_lines.product_id')
      .select((eb) => [
        'carts.id as cart_id',
        eb.fn.coalesce(eb.fn.sum<number>('cart_lines.quantity'), sql<number>`0`).as('count'),
        eb.fn
          .coalesce(eb.fn.sum<number>(sql<number>`cart_lines.quantity * products.price_cents`), sql<number>`0`)
          .as('total_cents'),
      ]);
    query =
      'userId' in key
        ? query.where('carts.user_id', '=', key.userId)
        : query.where('carts.id', '=', key.cartId).where('carts.user_id', 'is', null);
    const row = await query.groupBy('carts.id').executeTakeFirst();
    return row ? { cartId: row.cart_id, count: Number(row.count), totalCents: Number(row.total_cents) } : undefined;
  }

  product(id: number): Promise<CartProductRow | undefined> {
    return this.db
      .selectFrom('products')
      .select(['id', 'slug', 'name', 'price_cents', 'stock'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The session's cart, created (or found again, the session id being unique) when the first product is added. */
  async createForSession(sessionId: string): Promise<number> {
    const row = await this.db
      .insertInto('carts')
      .values({ session_id: sessionId })
      .onConflict((oc) => oc.column('session_id').doUpdateSet({ updated_at: new Date().toISOString() }))
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** The user's cart (one per user), created when missing. */
  async createForUser(userId: number, db: Db = this.db): Promise<number> {
    const row = await db
      .insertInto('carts')
      .values({ user_id: userId })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ updated_at: new Date().toISOString() }))
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** Sets a line's quantity (> 0), adding the line when the cart has none for the product. */
  async setLine(cartId: number, productId: number, quantity: number, db: Db = this.db): Promise<void> {
    await db
      .insertInto('cart_lines')
      .values({ cart_id: cartId, product_id: productId, quantity })
      .onConflict((oc) => oc.columns(['cart_id', 'product_id']).doUpdateSet({ quantity }))
      .execute();
  }

  /** Removes a line; false when the cart had none for the product. */
  async removeLine(cartId: number, productId: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('cart_lines')
      .where('cart_id', '=', cartId)
      .where('product_id', '=', productId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  touch(cartId: number, db: Db = this.db): Promise<unknown> {
    return db.updateTable('carts').set({ updated_at: new Date().toISOString() }).where('id', '=', cartId).execute();
  }

  /** Gives an anonymous cart to a user who has none: it is theirs now, and no session's any more. */
  async giveToUser(cartId: number, userId: number, db: Db = this.db): Promise<void> {
    await db
      .updateTable('carts')
      .set({ user_id: userId, session_id: null, updated_at: new Date().toISOString() })
      .where('id', '=', cartId)
      .execute();
  }

  async delete(cartId: number, db: Db = this.db): Promise<void> {
    await db.deleteFrom('carts').where('id', '=', cartId).execute();
  }

  /** Runs `work` in one transaction. */
  transaction<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }
}
