import { Injectable } from '@nestjs/common';
import type { Category } from '../../database/schema.js';
import { ParamConverter } from '../../lifecycle/param-conversion/param-converter.js';
import { CategoryRepository } from './category.repository.js';

/** `:slug` → the category, for `@ConvertParam`. */
@Injectable()
export class CategoryBySlugConverter extends ParamConverter<Category> {
  constructor(private readonly categories: CategoryRepository) {
    super();
  }

  convert(slug: string): Promise<Category | undefined> {
    return this.categories.bySlug(slug);
  }

  notFoundMessage(slug: string): string {
    return `Category "${slug}" not found.`;
  }
}
