/** Whose cart it is: an anonymous visitor's (named by the session) or a logged-in user's. */
export type CartOwnerKind = 'session' | 'user';

/** Which cart: its owner, and its id (null while the visitor has none). */
export interface CartRef {
  owner: CartOwnerKind;
  userId: number | null;
  cartId: number | null;
}

/** A line as plain values: what the cart's events carry and the Cart panel shows. */
export interface CartStateLine {
  productId: number;
  slug: string;
  name: string;
  unitPriceCents: number;
  quantity: number;
  lineTotalCents: number;
}

/** The cart as the service computed it: lines and totals, or only the header's summary (no lines, no shipping). */
export interface CartState extends CartRef {
  /** Null when only the summary was read. */
  lines: CartStateLine[] | null;
  itemCount: number;
  subtotalCents: number;
  shippingCents: number | null;
  totalCents: number | null;
}
