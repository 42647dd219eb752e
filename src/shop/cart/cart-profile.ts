import { contextKey } from '../../lifecycle/kernel-context.js';
import type { CartChangeAction } from './cart-changed.event.js';
import type { CartState } from './cart-state.js';

export interface CartProfileChange {
  /** What the cart service did, or `emptied` by a placed order. */
  action: CartChangeAction | 'emptied';
  productId: number | null;
  name: string | null;
  from: number;
  to: number;
}

/** What one request knew of the cart at its end, and what it changed. */
export interface CartProfile extends CartState {
  changes: CartProfileChange[];
}

/**
 * Where CartProfileListener records, on the request's KernelContext, what the Cart panel shows (plain values,
 * formatted when the panel is opened).
 */
export const CART_PROFILE = contextKey<CartProfile>('shopkernel.cart');
