import { SetMetadata } from '@nestjs/common';

export const PAGINATED_METADATA = 'shopkernel:paginated';

export interface PaginationOptions {
  /** Items per page when the request names no `limit`. */
  perPage: number;
  /** Highest `?limit=` accepted; without it `limit` is not read (the page size is fixed). */
  maxLimit?: number;
}

/**
 * A paginated route: the PaginationListener (kernel.request) reads and validates `?page=` (and `?limit=`) and
 * hands the handler `@RequestAttribute('_pagination')` (a `Pagination`).
 */
export const Paginated = (options: PaginationOptions): MethodDecorator => SetMetadata(PAGINATED_METADATA, options);
