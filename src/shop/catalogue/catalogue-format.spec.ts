import { formatPrice, stockState } from './catalogue-format.js';

describe('catalogue formatting', () => {
  it('formats integer cents as euros', () => {
    expect([0, 5, 1250, 99990, 123456789].map(formatPrice)).toEqual([
      '€0.00',
      '€0.05',
      '€12.50',
      '€999.90',
      '€1,234,567.89',
    ]);
  });

  it('names the stock state', () => {
    expect([0, 1, 3, 5, 6, 120].map((n) => stockState(n).text)).toEqual([
      'Out of stock',
      'Only 1 left',
      'Only 3 left',
      'Only 5 left',
      'In stock',
      'In stock',
    ]);
  });
});
