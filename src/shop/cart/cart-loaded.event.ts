import type { CartState } from './cart-state.js';

/**
 * Emitted (on the application's event bus, synchronously) by CartService each time it loaded a cart: its lines and
 * totals, or only the header's summary (`lines: null`). Not emitted while the visitor has no cart.
 */
export class CartLoadedEvent {
  static readonly NAME = 'cart.loaded';

  constructor(readonly state: Readonly<CartState>) {}
}
