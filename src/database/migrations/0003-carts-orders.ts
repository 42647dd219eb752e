import { sql } from 'kysely';
import { dialectOf, idColumn, timestampColumn, timestampType, type UntypedDb } from './schema-helpers.js';

/** Carts (of a session or a user) and their lines; orders and their lines, which keep a copy of what was sold. */
export async function up(db: UntypedDb): Promise<void> {
  const dialect = dialectOf(db);
  await db.schema
    .createTable('carts')
    .addColumn('id', 'integer', idColumn(dialect))
    .addColumn('session_id', 'text', (col) => col.unique())
    .addColumn('user_id', 'integer', (col) => col.unique().references('users.id').onDelete('cascade'))
    .addColumn('created_at', timestampType(dialect), timestampColumn(dialect))
    .addColumn('updated_at', timestampType(dialect), timestampColumn(dialect))
    .execute();

  await db.schema
    .createTable('cart_lines')
    .addColumn('id', 'integer', idColumn(dialect))
    .addColumn('cart_id', 'integer', (col) => col.notNull().references('carts.id').onDelete('cascade'))
    .addColumn('product_id', 'integer', (col) => col.notNull().references('products.id').onDelete('cascade'))
    .addColumn('quantity', 'integer', (col) => col.notNull())
    .addColumn('added_at', timestampType(dialect), timestampColumn(dialect))
    .addUniqueConstraint('cart_lines_cart_product', ['cart_id', 'product_id'])
    .addCheckConstraint('cart_lines_quantity_positive', sql`quantity > 0`)
    .execute();
  await db.schema.createIndex('cart_lines_product_id').on('cart_lines').column('product_id').execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', 'integer', idColumn(dialect))
    .addColumn('reference', 'text', (col) => col.notNull().unique())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('restrict'))
    .addColumn('status', 'text', (col) => col.notNull().defaultTo('placed'))
    .addColumn('subtotal_cents', 'integer', (col) => col.notNull())
    .addColumn('shipping_cents', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('total_cents', 'integer', (col) => col.notNull())
    .addColumn('created_at', timestampType(dialect), timestampColumn(dialect))
    .addCheckConstraint('orders_status_known', sql`status IN ('placed', 'paid', 'shipped', 'delivered', 'cancelled')`)
    .addCheckConstraint(
      'orders_totals_not_negative',
      sql`subtotal_cents >= 0 AND shipping_cents >= 0 AND total_cents >= 0`,
    )
    .execute();
  // A customer's order history, newest first.
  await db.schema.createIndex('orders_user_created_at').on('orders').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('order_lines')
    .addColumn('id', 'integer', idColumn(dialect))
    .addColumn('order_id', 'integer', (col) => col.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('product_id', 'integer', (col) => col.references('products.id').onDelete('set null'))
    .addColumn('product_slug', 'text', (col) => col.notNull())
    .addColumn('product_name', 'text', (col) => col.notNull())
    .addColumn('unit_price_cents', 'integer', (col) => col.notNull())
    .addColumn('quantity', 'integer', (col) => col.notNull())
    .addColumn('line_total_cents', 'integer', (col) => col.notNull())
    .addCheckConstraint('order_lines_quantity_positive', sql`quantity > 0`)
    .addCheckConstraint('order_lines_amounts_not_negative', sql`unit_price_cents >= 0 AND line_total_cents >= 0`)
    .execute();
  await db.schema.createIndex('order_lines_order_id').on('order_lines').column('order_id').execute();
  await db.schema.createIndex('order_lines_product_id').on('order_lines').column('product_id').execute();
}

export async function down(db: UntypedDb): Promise<void> {
  await db.schema.dropTable('order_lines').execute();
  await db.schema.dropTable('orders').execute();
  await db.schema.dropTable('cart_lines').execute();
  await db.schema.dropTable('carts').execute();
}
