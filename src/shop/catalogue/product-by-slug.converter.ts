import { Injectable } from '@nestjs/common';
import { ParamConverter } from '../../lifecycle/param-conversion/param-converter.js';
import { ProductRepository, type ProductWithCategory } from './product.repository.js';

/** `:slug` → the product (with its category's slug and name), for `@ConvertParam`. */
@Injectable()
export class ProductBySlugConverter extends ParamConverter<ProductWithCategory> {
  constructor(private readonly products: ProductRepository) {
    super();
  }

  convert(slug: string): Promise<ProductWithCategory | undefined> {
    return this.products.bySlug(slug);
  }

  notFoundMessage(slug: string): string {
    return `Product "${slug}" not found.`;
  }
}
