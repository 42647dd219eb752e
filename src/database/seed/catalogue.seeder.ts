import type { Kysely } from 'kysely';
import type { ShopDatabase } from '../schema.js';
import { buildCatalogue, type SeedCatalogue } from './catalogue.js';

export interface SeedReport {
  categories: number;
  products: number;
  /** Products new to the database. */
  inserted: number;
  /** Products already there (by slug), overwritten with the seed's values. */
  updated: number;
  /** Products and categories no longer in the seed, removed. */
  removedProducts: number;
  removedCategories: number;
}

const BATCH = 100;

/**
 * Loads the demo catalogue, replacing the previous one: categories and products are upserted by slug (ids stay,
 * so carts and order lines keep pointing at the same products), then those no longer in the catalogue are
 * removed. One transaction; users, sessions and orders are not touched.
 */
export async function seedCatalogue(
  db: Kysely<ShopDatabase>,
  catalogue: SeedCatalogue = buildCatalogue(),
): Promise<SeedReport> {
  const now = new Date().toISOString();
  return db.transaction().execute(async (trx) => {
    const existing = new Set((await trx.selectFrom('products').select('slug').execute()).map((p) => p.slug));

    await trx
      .insertInto('categories')
      .values(
        catalogue.categories.map((c) => ({
          slug: c.slug,
          name: c.name,
          description: c.description,
          position: c.position,
          parent_id: null,
        })),
      )
      .onConflict((oc) =>
        oc.column('slug').doUpdateSet((eb) => ({
          name: eb.ref('excluded.name'),
          description: eb.ref('excluded.description'),
          position: eb.ref('excluded.position'),
          parent_id: eb.ref('excluded.parent_id'),
        })),
      )
      .execute();
    const categoryIds = new Map(
      (
        await trx
          .selectFrom('categories')
          .select(['id', 'slug'])
          .where(
            'slug',
            'in',
            catalogue.categories.map((c) => c.slug),
          )
          .execute()
      ).map((c) => [c.slug, c.id]),
    );

    for (let i = 0; i < catalogue.products.length; i += BATCH) {
      const rows = catalogue.products.slice(i, i + BATCH).map(({ category_slug, ...p }) => {
        const category_id = categoryIds.get(category_slug);
        if (category_id === undefined)
          throw new Error(`Product "${p.slug}" names an unknown category "${category_slug}".`);
        return { ...p, category_id, updated_at: now };
      });
      await trx
        .insertInto('products')
        .values(rows)
        .onConflict((oc) =>
          oc.column('slug').doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'),
            description: eb.ref('excluded.description'),
            price_cents: eb.ref('excluded.price_cents'),
            stock: eb.ref('excluded.stock'),
            image_url: eb.ref('excluded.image_url'),
            category_id: eb.ref('excluded.category_id'),
            created_at: eb.ref('excluded.created_at'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
    }

    const productSlugs = catalogue.products.map((p) => p.slug);
    const removedProducts = await trx.deleteFrom('products').where('slug', 'not in', productSlugs).executeTakeFirst();
    const removedCategories = await trx
      .deleteFrom('categories')
      .where(
        'slug',
        'not in',
        catalogue.categories.map((c) => c.slug),
      )
      .executeTakeFirst();
    const inserted = productSlugs.filter((slug) => !existing.has(slug)).length;
    return {
      categories: catalogue.categories.length,
      products: catalogue.products.length,
      inserted,
      updated: catalogue.products.length - inserted,
      removedProducts: Number(removedProducts.numDeletedRows),
      removedCategories: Number(removedCategories.numDeletedRows),
    };
  });
}
