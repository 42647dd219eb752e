/**
 * The cart's rules in one place: how many of a product a line may hold, what shipping costs, and how the totals
 * are computed. Money is integer cents (formatted with the catalogue's `formatPrice` only when shown).
 */

/** A line holds 1 to 99 units (a form or API call asks for 1–99 at a time, a line never grows beyond 99). */
export const MIN_QUANTITY = 1;
export const MAX_QUANTITY = 99;

/** Shipping is free from €50.00 of goods; below that it costs €4.90. An empty cart ships nothing. */
export const FREE_SHIPPING_FROM_CENTS = 5000;
export const SHIPPING_CENTS = 490;

export interface PricedLine {
  unitPriceCents: number;
  quantity: number;
}

export interface CartTotals {
  /** Units in the cart (the sum of the quantities): what the header shows. */
  itemCount: number;
  subtotalCents: number;
  shippingCents: number;
  totalCents: number;
}

export function lineTotalCents(line: PricedLine): number {
  return line.unitPriceCents * line.quantity;
}

export function shippingCents(subtotalCents: number): number {
  if (subtotalCents <= 0) return 0;
  return subtotalCents >= FREE_SHIPPING_FROM_CENTS ? 0 : SHIPPING_CENTS;
}

export function cartTotals(lines: readonly PricedLine[]): CartTotals {
  let itemCount = 0;
  let subtotalCents = 0;
  for (const line of lines) {
    itemCount += line.quantity;
    subtotalCents += lineTotalCents(line);
  }
  const shipping = shippingCents(subtotalCents);
  return { itemCount, subtotalCents, shippingCents: shipping, totalCents: subtotalCents + shipping };
}

/**
 * Why a line cannot hold `quantity` units of a product with `stock` left, or null when it can. `inCart` is what
 * the cart already holds when the quantity is the sum of an addition (to say so in the message).
 */
export function quantityProblem(quantity: number, stock: number, inCart = 0): string | null {
  if (stock <= 0) return 'This product is out of stock.';
  if (quantity > MAX_QUANTITY) {
    return `At most ${MAX_QUANTITY} of a product per order${inCart > 0 ? ` (your cart already has ${inCart})` : ''}.`;
  }
  if (quantity > stock) return `Only ${stock} left in stock.${inCart > 0 ? ` Your cart already has ${inCart}.` : ''}`;
  return null;
}
