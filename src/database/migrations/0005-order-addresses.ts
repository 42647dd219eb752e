import type { UntypedDb } from './schema-helpers.js';

/** Where an order goes: the delivery address, copied onto the order when it is placed. */
export async function up(db: UntypedDb): Promise<void> {
  for (const column of ['shipping_name', 'shipping_street', 'shipping_postcode', 'shipping_city', 'shipping_country']) {
    await db.schema
      .alterTable('orders')
      .addColumn(column, 'text', (col) => col.notNull().defaultTo(''))
      .execute();
  }
}

export async function down(db: UntypedDb): Promise<void> {
  for (const column of ['shipping_country', 'shipping_city', 'shipping_postcode', 'shipping_street', 'shipping_name']) {
    await db.schema.alterTable('orders').dropColumn(column).execute();
  }
}
