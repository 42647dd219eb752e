import { Injectable } from '@nestjs/common';
import type { Category } from '../../database/schema.js';
import { ShopDb } from '../../database/shop-db.js';

/** The catalogue's categories. */
@Injectable()
export class CategoryRepository {
  constructor(private readonly db: ShopDb) {}

  /** Every category, in menu order. */
  all(): Promise<Category[]> {
    return this.db.selectFrom('categories').selectAll().orderBy('position').orderBy('name').execute();
  }

  bySlug(slug: string): Promise<Category | undefined> {
    return this.db.selectFrom('categories').selectAll().where('slug', '=', slug).executeTakeFirst();
  }
}
