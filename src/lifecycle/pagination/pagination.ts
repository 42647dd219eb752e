import { BadRequestHttpException } from '../exceptions/bad-request-http.exception.js';
import { NotFoundHttpException } from '../exceptions/not-found-http.exception.js';
import type { PaginationOptions } from './paginated.decorator.js';

/** The page a paginated request asks for: `request.attributes._pagination`. */
export interface Pagination {
  /** 1-based. */
  page: number;
  limit: number;
  offset: number;
}

/** `?page=` and `?limit=` of a paginated route, validated: anything a client got wrong is a 400 saying what. */
export function readPagination(query: Record<string, unknown>, options: PaginationOptions): Pagination {
  const page = wholeNumber('page', query.page, 1);
  let limit = options.perPage;
  if (options.maxLimit !== undefined && query.limit !== undefined) {
    limit = wholeNumber('limit', query.limit, options.perPage);
    if (limit > options.maxLimit)
      throw new BadRequestHttpException(
        `The "limit" query parameter must be at most ${options.maxLimit}, "${limit}" given.`,
      );
  }
  return { page, limit, offset: (page - 1) * limit };
}

/** A page after the last one is a 404 (an empty list has one, empty, page). */
export function assertPageExists(pagination: Pagination, total: number): number {
  const lastPage = Math.max(1, Math.ceil(total / pagination.limit));
  if (pagination.page > lastPage) {
    throw new NotFoundHttpException(
      `Page ${pagination.page} does not exist: the list has ${lastPage} page${lastPage === 1 ? '' : 's'}.`,
    );
  }
  return lastPage;
}

function wholeNumber(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') throw new BadRequestHttpException(`The "${name}" query parameter must be given once.`);
  const n = /^[0-9]{1,9}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1))
    throw new BadRequestHttpException(`The "${name}" query parameter must be a whole number from 1, "${value}" given.`);
  return n;
}
