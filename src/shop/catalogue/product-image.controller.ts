import { Controller, Get, Header } from '@nestjs/common';
import { HttpCache } from '../../lifecycle/http-cache/http-cache.decorator.js';
import { ConvertParam } from '../../lifecycle/param-conversion/convert-param.decorator.js';
import { RequestAttribute } from '../../lifecycle/request-attribute.decorator.js';
import { RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { ProductBySlugConverter } from './product-by-slug.converter.js';
import { productImageSvg } from './product-image.js';
import type { ProductWithCategory } from './product.repository.js';

/**
 * A picture changes only when its product's name does: a day in any cache, then revalidated with the ETag (a 304
 * while the name is the same).
 */
const IMAGE_CACHE = { maxAge: 86_400, public: true };

/**
 * The products' pictures, served by the shop itself (the seed's `image_url` values point here): an SVG drawn from
 * the product's slug and name. An unknown slug is a 404 from kernel.controller's parameter conversion.
 */
@Controller('images/products')
export class ProductImageController {
  @Get(':slug.svg')
  @RouteName('catalogue_product_image')
  @ConvertParam('product', ProductBySlugConverter, { from: 'slug' })
  @HttpCache(IMAGE_CACHE)
  @Header('Content-Type', 'image/svg+xml; charset=utf-8')
  @Header('X-Content-Type-Options', 'nosniff')
  // Opened on its own, the SVG is a document: it may load and run nothing.
  @Header('Content-Security-Policy', "default-src 'none'")
  image(@RequestAttribute('product') product: ProductWithCategory): string {
    return productImageSvg(product);
  }
}
