import {
  cartTotals,
  FREE_SHIPPING_FROM_CENTS,
  lineTotalCents,
  quantityProblem,
  SHIPPING_CENTS,
  shippingCents,
} from './cart-rules.js';

describe('cart rules', () => {
  describe('totals', () => {
    it('are all zero for an empty cart (nothing to ship)', () => {
      expect(cartTotals([])).toEqual({ itemCount: 0, subtotalCents: 0, shippingCents: 0, totalCents: 0 });
    });

    it('sum the lines in integer cents and count the units', () => {
      const lines = [
        { unitPriceCents: 1290, quantity: 2 },
        { unitPriceCents: 990, quantity: 1 },
      ];
      expect(lineTotalCents(lines[0])).toBe(2580);
      expect(cartTotals(lines)).toEqual({ itemCount: 3, subtotalCents: 3570, shippingCents: 490, totalCents: 4060 });
    });

    it('never lose a cent to floating point', () => {
      // 0.1 + 0.2 style sums: 3 × €0.10 + 1 × €0.20 is exactly 50 cents.
      expect(
        cartTotals([
          { unitPriceCents: 10, quantity: 3 },
          { unitPriceCents: 20, quantity: 1 },
        ]).subtotalCents,
      ).toBe(50);
    });
  });

  describe('shipping', () => {
    it('costs €4.90 below €50.00 and is free from €50.00 exactly', () => {
      expect(SHIPPING_CENTS).toBe(490);
      expect(FREE_SHIPPING_FROM_CENTS).toBe(5000);
      expect(shippingCents(1)).toBe(490);
      expect(shippingCents(4999)).toBe(490);
      expect(shippingCents(5000)).toBe(0);
      expect(shippingCents(123_456)).toBe(0);
      expect(shippingCents(0)).toBe(0);
    });

    it('is part of the total', () => {
      expect(cartTotals([{ unitPriceCents: 4999, quantity: 1 }])).toMatchObject({
        shippingCents: 490,
        totalCents: 5489,
      });
      expect(cartTotals([{ unitPriceCents: 2500, quantity: 2 }])).toMatchObject({ shippingCents: 0, totalCents: 5000 });
    });
  });

  describe('quantity limits', () => {
    it('accept up to the stock and up to 99', () => {
      expect(quantityProblem(1, 1)).toBeNull();
      expect(quantityProblem(99, 500)).toBeNull();
    });

    it('refuse more than in stock, out of stock, and more than 99', () => {
      expect(quantityProblem(4, 3)).toBe('Only 3 left in stock.');
      expect(quantityProblem(4, 3, 2)).toBe('Only 3 left in stock. Your cart already has 2.');
      expect(quantityProblem(1, 0)).toBe('This product is out of stock.');
      expect(quantityProblem(100, 500)).toBe('At most 99 of a product per order.');
      expect(quantityProblem(100, 500, 60)).toBe('At most 99 of a product per order (your cart already has 60).');
    });
  });
});
