import type { CartRef } from './cart-state.js';

export type CartChangeAction = 'added' | 'updated' | 'removed' | 'merged' | 'attached';

/**
 * Emitted (on the application's event bus, synchronously) by CartService once it changed a cart: a line added,
 * its quantity changed, removed, or at login the anonymous cart attached to the user or merged into theirs.
 */
export class CartChangedEvent {
  static readonly NAME = 'cart.changed';

  constructor(
    readonly cart: CartRef,
    readonly action: CartChangeAction,
    /** Null when the change is the whole cart's (attached). */
    readonly productId: number | null,
    readonly name: string | null,
    /** Quantity before and after (attached: the number of lines moved). */
    readonly from: number,
    readonly to: number,
  ) {}
}
