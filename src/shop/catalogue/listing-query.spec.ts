import { BadRequestHttpException } from '../../lifecycle/exceptions/bad-request-http.exception.js';
import { parseListingQuery } from './listing-query.js';

describe('parseListingQuery', () => {
  it('defaults to sorted by name, no search', () => {
    expect(parseListingQuery({})).toEqual({ sort: 'name', q: '' });
  });

  it('reads sort and a trimmed search text', () => {
    expect(parseListingQuery({ sort: 'price_desc', q: '  Oak  ' })).toEqual({ sort: 'price_desc', q: 'Oak' });
  });

  it('refuses an unknown sort, a repeated parameter and an overlong search with a 400', () => {
    expect(() => parseListingQuery({ sort: 'price' })).toThrow(
      'Invalid sort "price": expected one of name, price_asc, price_desc, newest.',
    );
    expect(() => parseListingQuery({ sort: ['name', 'newest'] })).toThrow(BadRequestHttpException);
    expect(() => parseListingQuery({ q: 'x'.repeat(101) })).toThrow(BadRequestHttpException);
  });
});
