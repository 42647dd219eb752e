import { BadRequestHttpException } from '../../lifecycle/exceptions/bad-request-http.exception.js';
import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';
import { assertPageExists, lastPageOf, parseListingQuery } from './listing-query.js';

describe('parseListingQuery', () => {
  it('defaults to page 1, sorted by name, no search', () => {
    expect(parseListingQuery({})).toEqual({ page: 1, sort: 'name', q: '' });
  });

  it('reads page, sort and a trimmed search text', () => {
    expect(parseListingQuery({ page: '3', sort: 'price_desc', q: '  Oak  ' })).toEqual({ page: 3, sort: 'price_desc', q: 'Oak' });
  });

  it.each(['abc', '0', '-1', '1.5', '', '1e3', '9999999999'])('refuses page %p with a 400', (page) => {
    expect(() => parseListingQuery({ page })).toThrow(BadRequestHttpException);
    expect(() => parseListingQuery({ page })).toThrow(`The "page" query parameter must be a whole number from 1, "${page}" given.`);
  });

  it('refuses an unknown sort, a repeated parameter and an overlong search with a 400', () => {
    expect(() => parseListingQuery({ sort: 'price' })).toThrow('Invalid sort "price": expected one of name, price_asc, price_desc, newest.');
    expect(() => parseListingQuery({ page: ['1', '2'] })).toThrow(BadRequestHttpException);
    expect(() => parseListingQuery({ q: 'x'.repeat(101) })).toThrow(BadRequestHttpException);
  });

  it('knows the last page and answers 404 beyond it', () => {
    expect([lastPageOf(0), lastPageOf(24), lastPageOf(25), lastPageOf(240)]).toEqual([1, 1, 2, 10]);
    expect(() => assertPageExists(10, 10)).not.toThrow();
    expect(() => assertPageExists(11, 10)).toThrow(NotFoundHttpException);
    expect(() => assertPageExists(2, 1)).toThrow('Page 2 does not exist: the list has 1 page.');
  });
});
