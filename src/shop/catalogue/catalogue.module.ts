import { Module } from '@nestjs/common';
import { ParamConversionModule } from '../../lifecycle/param-conversion/param-conversion.module.js';
import { CatalogueController } from './catalogue.controller.js';
import { CatalogueService } from './catalogue.service.js';
import { CategoryBySlugConverter } from './category-by-slug.converter.js';
import { CategoryRepository } from './category.repository.js';
import { ProductBySlugConverter } from './product-by-slug.converter.js';
import { ProductImageController } from './product-image.controller.js';
import { ProductRepository } from './product.repository.js';

/** The catalogue: product list with search, sorting and pages; category pages; product pages by slug; the products' pictures. */
@Module({
  imports: [ParamConversionModule],
  controllers: [CatalogueController, ProductImageController],
  providers: [ProductRepository, CategoryRepository, CatalogueService, ProductBySlugConverter, CategoryBySlugConverter],
  exports: [ProductRepository, CategoryRepository],
})
export class CatalogueModule {}
