import type { UntypedDb } from './schema-helpers.js';
import { sql } from 'kysely';

/**
 * The shop serves its products' pictures itself (`/images/products/<slug>.svg`): a database seeded before pointed
 * them at an external image host (picsum.photos). Those URLs become the local ones; any other image URL (set by
 * hand) stays. `||` concatenates on both dialects.
 */
export async function up(db: UntypedDb): Promise<void> {
  await db
    .updateTable('products')
    .set({ image_url: sql<string>`'/images/products/' || slug || '.svg'` })
    .where('image_url', 'like', 'https://picsum.photos/seed/%')
    .execute();
}

export async function down(db: UntypedDb): Promise<void> {
  await db
    .updateTable('products')
    .set({ image_url: sql<string>`'https://picsum.photos/seed/' || slug || '/800/600'` })
    .where('image_url', '=', sql<string>`'/images/products/' || slug || '.svg'`)
    .execute();
}
