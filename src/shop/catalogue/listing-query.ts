import { BadRequestHttpException } from '../../lifecycle/exceptions/bad-request-http.exception.js';
import { CATALOGUE_SORTS, DEFAULT_SORT, isCatalogueSort, type CatalogueSort } from './catalogue-sort.js';

/** Products per page of every catalogue list. */
export const PER_PAGE = 24;

/** Longest search text accepted (characters). */
export const MAX_SEARCH_LENGTH = 100;

export interface ListingQuery {
  sort: CatalogueSort;
  /** Trimmed search text, '' for none. */
  q: string;
}

/**
 * `?sort=` and `?q=` of a product list, validated: anything a client got wrong is a 400 with a message saying
 * what. (`?page=` is the PaginationListener's, in kernel.request.)
 */
export function parseListingQuery(query: Record<string, unknown>): ListingQuery {
  return { sort: parseSort(query.sort), q: parseSearch(query.q) };
}

function parseSort(value: unknown): CatalogueSort {
  if (value === undefined || value === '') return DEFAULT_SORT;
  if (typeof value !== 'string') throw new BadRequestHttpException('The "sort" query parameter must be given once.');
  if (!isCatalogueSort(value)) {
    throw new BadRequestHttpException(`Invalid sort "${value}": expected one of ${CATALOGUE_SORTS.join(', ')}.`);
  }
  return value;
}

function parseSearch(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new BadRequestHttpException('The "q" query parameter must be given once.');
  const q = value.trim();
  if (q.length > MAX_SEARCH_LENGTH)
    throw new BadRequestHttpException(`The search text is longer than ${MAX_SEARCH_LENGTH} characters.`);
  return q;
}
