import { BadRequestHttpException } from '../../lifecycle/exceptions/bad-request-http.exception.js';
import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';
import { CATALOGUE_SORTS, DEFAULT_SORT, isCatalogueSort, type CatalogueSort } from './catalogue-sort.js';

/** Products per page of every catalogue list. */
export const PER_PAGE = 24;

/** Longest search text accepted (characters). */
export const MAX_SEARCH_LENGTH = 100;

export interface ListingQuery {
  /** 1-based. */
  page: number;
  sort: CatalogueSort;
  /** Trimmed search text, '' for none. */
  q: string;
}

/**
 * `?page=`, `?sort=` and `?q=` of a product list, validated: anything a client got wrong is a 400 with a message
 * saying what. Kept in one place so that the pagination listener (kernel.request) can take it over.
 */
export function parseListingQuery(query: Record<string, unknown>): ListingQuery {
  return { page: parsePage(query.page), sort: parseSort(query.sort), q: parseSearch(query.q) };
}

/** A page after the last one is a 404 (an empty list has one, empty, page). */
export function assertPageExists(page: number, lastPage: number): void {
  if (page > lastPage) {
    throw new NotFoundHttpException(`Page ${page} does not exist: the list has ${lastPage} page${lastPage === 1 ? '' : 's'}.`);
  }
}

export function lastPageOf(total: number): number {
  return Math.max(1, Math.ceil(total / PER_PAGE));
}

function parsePage(value: unknown): number {
  if (value === undefined) return 1;
  if (typeof value !== 'string') throw new BadRequestHttpException('The "page" query parameter must be given once.');
  const page = /^[0-9]{1,9}$/.test(value) ? Number(value) : NaN;
  if (!(page >= 1)) throw new BadRequestHttpException(`The "page" query parameter must be a whole number from 1, "${value}" given.`);
  return page;
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
  if (q.length > MAX_SEARCH_LENGTH) throw new BadRequestHttpException(`The search text is longer than ${MAX_SEARCH_LENGTH} characters.`);
  return q;
}
