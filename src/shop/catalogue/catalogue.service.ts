import { Injectable } from '@nestjs/common';
import { formatPrice, stockState, type StockLevel } from './catalogue-format.js';
import { CATALOGUE_SORTS, SORT_LABELS, type CatalogueSort } from './catalogue-sort.js';
import { assertPageExists, type Pagination } from '../../lifecycle/pagination/pagination.js';
import type { ListingQuery } from './listing-query.js';
import { ProductRepository, type ProductSummary } from './product.repository.js';

export interface ProductCard {
  name: string;
  href: string;
  price: string;
  stock: { level: StockLevel; text: string };
  imageUrl: string | null;
}

export interface PageLink {
  number: number;
  href: string;
  current: boolean;
}

export interface ProductListing {
  q: string;
  sort: CatalogueSort;
  sorts: Array<{ value: CatalogueSort; label: string; selected: boolean }>;
  total: number;
  /** "240 products", "1 product", "0 products". */
  resultText: string;
  products: ProductCard[];
  /** Where the search and sort form goes (the list's own path). */
  action: string;
  pagination: { page: number; lastPage: number; previous?: string; next?: string; pages: PageLink[] } | undefined;
}

/** The catalogue's lists and product cards, as the templates show them (formatted here, escaped by Handlebars). */
@Injectable()
export class CatalogueService {
  constructor(private readonly products: ProductRepository) {}

  /** One page of a list (`basePath`: `/products` or a category's path); a page after the last is a 404. */
  async listing(
    query: ListingQuery,
    pagination: Pagination,
    basePath: string,
    categoryId?: number,
  ): Promise<ProductListing> {
    const { total, rows } = await this.products.list({
      categoryId,
      q: query.q,
      sort: query.sort,
      offset: pagination.offset,
      limit: pagination.limit,
    });
    const lastPage = assertPageExists(pagination, total);
    const href = (page: number): string => {
      const params = new URLSearchParams();
      if (query.q) params.set('q', query.q);
      params.set('sort', query.sort);
      params.set('page', String(page));
      return `${basePath}?${params.toString()}`;
    };
    return {
      q: query.q,
      sort: query.sort,
      sorts: CATALOGUE_SORTS.map((value) => ({ value, label: SORT_LABELS[value], selected: value === query.sort })),
      total,
      resultText: `${total} product${total === 1 ? '' : 's'}`,
      products: rows.map((p) => this.card(p)),
      action: basePath,
      pagination:
        lastPage > 1
          ? {
              page: pagination.page,
              lastPage,
              previous: pagination.page > 1 ? href(pagination.page - 1) : undefined,
              next: pagination.page < lastPage ? href(pagination.page + 1) : undefined,
              pages: pageNumbers(pagination.page, lastPage).map((number) => ({
                number,
                href: href(number),
                current: number === pagination.page,
              })),
            }
          : undefined,
    };
  }

  card(product: ProductSummary): ProductCard {
    return {
      name: product.name,
      href: `/products/${encodeURIComponent(product.slug)}`,
      price: formatPrice(product.price_cents),
      stock: stockState(product.stock),
      imageUrl: product.image_url,
    };
  }
}

/** Every page up to 11; beyond, the first, the last and two either side of the current one. */
function pageNumbers(page: number, lastPage: number): number[] {
  if (lastPage <= 11) return Array.from({ length: lastPage }, (_, i) => i + 1);
  const numbers = new Set([1, lastPage]);
  for (let n = Math.max(1, page - 2); n <= Math.min(lastPage, page + 2); n++) numbers.add(n);
  return [...numbers].sort((a, b) => a - b);
}
