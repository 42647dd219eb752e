import { BadRequestHttpException } from '../exceptions/bad-request-http.exception.js';
import { NotFoundHttpException } from '../exceptions/not-found-http.exception.js';
import { assertPageExists, readPagination } from './pagination.js';

describe('readPagination', () => {
  it('defaults to the first page of the route size', () => {
    expect(readPagination({}, { perPage: 24 })).toEqual({ page: 1, limit: 24, offset: 0 });
    expect(readPagination({ page: '3' }, { perPage: 24 })).toEqual({ page: 3, limit: 24, offset: 48 });
  });

  it.each(['abc', '0', '-1', '1.5', '', '1e3', '9999999999'])('refuses page %p with a 400', (page) => {
    expect(() => readPagination({ page }, { perPage: 24 })).toThrow(BadRequestHttpException);
    expect(() => readPagination({ page }, { perPage: 24 })).toThrow(
      `The "page" query parameter must be a whole number from 1, "${page}" given.`,
    );
  });

  it('refuses a repeated page', () => {
    expect(() => readPagination({ page: ['1', '2'] }, { perPage: 24 })).toThrow(
      'The "page" query parameter must be given once.',
    );
  });

  it('reads a limit within bounds only where the route allows one', () => {
    expect(readPagination({ limit: '50' }, { perPage: 24 })).toEqual({ page: 1, limit: 24, offset: 0 });
    expect(readPagination({ page: '2', limit: '50' }, { perPage: 24, maxLimit: 100 })).toEqual({
      page: 2,
      limit: 50,
      offset: 50,
    });
    expect(() => readPagination({ limit: '101' }, { perPage: 24, maxLimit: 100 })).toThrow(
      'The "limit" query parameter must be at most 100, "101" given.',
    );
    expect(() => readPagination({ limit: '0' }, { perPage: 24, maxLimit: 100 })).toThrow(BadRequestHttpException);
  });
});

describe('assertPageExists', () => {
  it('returns the last page, and answers 404 beyond it (an empty list has one page)', () => {
    const page = (n: number) => ({ page: n, limit: 24, offset: (n - 1) * 24 });
    expect([0, 24, 25, 240].map((total) => assertPageExists(page(1), total))).toEqual([1, 1, 2, 10]);
    expect(() => assertPageExists(page(11), 240)).toThrow(NotFoundHttpException);
    expect(() => assertPageExists(page(2), 0)).toThrow('Page 2 does not exist: the list has 1 page.');
  });
});
