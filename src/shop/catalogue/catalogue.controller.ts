import { Controller, Get, Query, Render } from '@nestjs/common';
import type { Category } from '../../database/schema.js';
import { HttpCache } from '../../lifecycle/http-cache/http-cache.decorator.js';
import { Paginated } from '../../lifecycle/pagination/paginated.decorator.js';
import type { Pagination } from '../../lifecycle/pagination/pagination.js';
import { ConvertParam } from '../../lifecycle/param-conversion/convert-param.decorator.js';
import { RequestAttribute } from '../../lifecycle/request-attribute.decorator.js';
import { RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { formatPrice, stockState } from './catalogue-format.js';
import { CatalogueService, type ProductListing } from './catalogue.service.js';
import { CategoryBySlugConverter } from './category-by-slug.converter.js';
import { CategoryRepository } from './category.repository.js';
import { parseListingQuery, PER_PAGE } from './listing-query.js';
import { ProductBySlugConverter } from './product-by-slug.converter.js';
import type { ProductWithCategory } from './product.repository.js';

/** Catalogue pages change when the catalogue does: a minute in any cache, per language. */
const CATALOGUE_CACHE = { maxAge: 60, public: true, vary: ['Accept-Language'] };

interface Page {
  title: string;
  locale: string;
}

/** Browsing the catalogue: every product, a category's products, one product. */
@Controller()
export class CatalogueController {
  constructor(
    private readonly catalogue: CatalogueService,
    private readonly categories: CategoryRepository,
  ) {}

  @Get('products')
  @RouteName('catalogue_products')
  @Paginated({ perPage: PER_PAGE })
  @HttpCache(CATALOGUE_CACHE)
  @Render('shop/catalogue/list')
  async products(
    @Query() query: Record<string, unknown>,
    @RequestAttribute('_pagination') pagination: Pagination,
    @RequestAttribute('_locale') locale: string,
  ): Promise<Page & { listing: ProductListing; categories: Array<{ name: string; href: string }> }> {
    const listing = await this.catalogue.listing(parseListingQuery(query), pagination, '/products');
    const categories = (await this.categories.all()).map((c) => ({ name: c.name, href: categoryPath(c.slug) }));
    return {
      title: listing.q ? `Search: ${listing.q} – Shopkernel` : 'Products – Shopkernel',
      locale,
      listing,
      categories,
    };
  }

  @Get('categories/:slug')
  @RouteName('catalogue_category')
  @ConvertParam('category', CategoryBySlugConverter, { from: 'slug' })
  @Paginated({ perPage: PER_PAGE })
  @HttpCache(CATALOGUE_CACHE)
  @Render('shop/catalogue/list')
  async category(
    @RequestAttribute('category') category: Category,
    @Query() query: Record<string, unknown>,
    @RequestAttribute('_pagination') pagination: Pagination,
    @RequestAttribute('_locale') locale: string,
  ): Promise<Page & { category: { name: string; description: string }; listing: ProductListing }> {
    const listing = await this.catalogue.listing(
      parseListingQuery(query),
      pagination,
      categoryPath(category.slug),
      category.id,
    );
    return {
      title: `${category.name} – Shopkernel`,
      locale,
      category: { name: category.name, description: category.description },
      listing,
    };
  }

  @Get('products/:slug')
  @RouteName('catalogue_product')
  @ConvertParam('product', ProductBySlugConverter, { from: 'slug' })
  @HttpCache(CATALOGUE_CACHE)
  @Render('shop/catalogue/product')
  product(
    @RequestAttribute('product') product: ProductWithCategory,
    @RequestAttribute('_locale') locale: string,
  ): Page & Record<string, unknown> {
    return {
      title: `${product.name} – Shopkernel`,
      locale,
      // id and slug are for what other modules add to the page (the `product-actions` slot).
      product: {
        id: product.id,
        slug: product.slug,
        name: product.name,
        description: product.description,
        price: formatPrice(product.price_cents),
        stock: stockState(product.stock),
        imageUrl: product.image_url,
        category: { name: product.category_name, href: categoryPath(product.category_slug) },
      },
    };
  }
}

function categoryPath(slug: string): string {
  return `/categories/${encodeURIComponent(slug)}`;
}
