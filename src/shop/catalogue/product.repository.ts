import { Injectable } from '@nestjs/common';
import { sql, type SelectQueryBuilder } from 'kysely';
import { dialectOf } from '../../database/migrations/schema-helpers.js';
import type { Product, ShopDatabase } from '../../database/schema.js';
import { ShopDb } from '../../database/shop-db.js';
import type { CatalogueSort } from './catalogue-sort.js';

export interface ProductCriteria {
  categoryId?: number;
  /** Case-insensitive substring of the name or description ('' or undefined: every product). */
  q?: string;
  sort: CatalogueSort;
  offset: number;
  limit: number;
}

export interface ProductWithCategory extends Product {
  category_slug: string;
  category_name: string;
}

/** What a list shows of a product (its card): a page of a list reads only these columns. */
export type ProductSummary = Pick<Product, 'id' | 'slug' | 'name' | 'price_cents' | 'stock' | 'image_url'>;
// Not `products.*`: the description and the stored search text are most of a row's bytes, and a card shows neither.
const SUMMARY_COLUMNS = [
  'products.id',
  'products.slug',
  'products.name',
  'products.price_cents',
  'products.stock',
  'products.image_url',
] as const;

type ProductQuery = SelectQueryBuilder<ShopDatabase, 'products', object>;

/** The catalogue's products (Kysely; the same queries on SQLite and PostgreSQL). */
@Injectable()
export class ProductRepository {
  /** Names sort byte-wise on both dialects (PostgreSQL's default collation would order them differently). */
  private readonly byName;

  constructor(private readonly db: ShopDb) {
    this.byName = dialectOf(db) === 'postgres' ? sql<string>`products.name collate "C"` : sql<string>`products.name`;
  }

  /** One page of products matching the criteria, and how many match in all. */
  async list(criteria: ProductCriteria): Promise<{ total: number; rows: ProductSummary[] }> {
    const [count, rows] = await Promise.all([
      this.filtered(criteria)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
      this.sorted(this.filtered(criteria).select(SUMMARY_COLUMNS), criteria.sort)
        .limit(criteria.limit)
        .offset(criteria.offset)
        .execute(),
    ]);
    return { total: Number(count.n), rows };
  }

  bySlug(slug: string): Promise<ProductWithCategory | undefined> {
    return this.db
      .selectFrom('products')
      .innerJoin('categories', 'categories.id', 'products.category_id')
      .selectAll('products')
      .select(['categories.slug as category_slug', 'categories.name as category_name'])
      .where('products.slug', '=', slug)
      .executeTakeFirst();
  }

  private filtered(criteria: ProductCriteria): ProductQuery {
    let query: ProductQuery = this.db.selectFrom('products');
    if (criteria.categoryId !== undefined) query = query.where('products.category_id', '=', criteria.categoryId);
    if (criteria.q) {
      // search_text is lower(name || ' ' || description); the term is a bound parameter, its wildcards escaped.
      const pattern = `%${criteria.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query = query.where(sql<boolean>`products.search_text like ${pattern} escape '\\'`);
    }
    return query;
  }

  private sorted<O>(
    query: SelectQueryBuilder<ShopDatabase, 'products', O>,
    sort: CatalogueSort,
  ): SelectQueryBuilder<ShopDatabase, 'products', O> {
    switch (sort) {
      case 'price_asc':
        return query.orderBy('products.price_cents', 'asc').orderBy(this.byName).orderBy('products.id');
      case 'price_desc':
        return query.orderBy('products.price_cents', 'desc').orderBy(this.byName).orderBy('products.id');
      case 'newest':
        return query.orderBy('products.created_at', 'desc').orderBy('products.id', 'desc');
      case 'name':
        return query.orderBy(this.byName).orderBy('products.id');
    }
  }
}
