import { currentKernelContext, type KernelContext } from '../../lifecycle/kernel-context.js';

/** Where the cart records, on the request's KernelContext, what the Cart panel shows. */
export const CART_PROFILE = Symbol('shopkernel.cart');

export type CartOwnerKind = 'session' | 'user';

/** A line as the panel shows it (plain values; formatted when the panel is opened). */
export interface CartProfileLine {
  productId: number;
  slug: string;
  name: string;
  unitPriceCents: number;
  quantity: number;
  lineTotalCents: number;
}

export interface CartProfileChange {
  action: 'added' | 'updated' | 'removed' | 'merged' | 'attached' | 'emptied';
  productId: number | null;
  name: string | null;
  from: number;
  to: number;
}

/** What one request knew of the cart at its end, and what it changed. */
export interface CartProfile {
  owner: CartOwnerKind;
  userId: number | null;
  cartId: number | null;
  /** The lines as last loaded (null when the request only read the header's summary). */
  lines: CartProfileLine[] | null;
  itemCount: number;
  subtotalCents: number;
  shippingCents: number | null;
  totalCents: number | null;
  changes: CartProfileChange[];
}

function profileOf(context: KernelContext | undefined): CartProfile | undefined {
  return context?.get<CartProfile>(CART_PROFILE);
}

/**
 * Records the cart's latest state on the current request (a reference kept, nothing formatted): the last call
 * wins, so the panel shows the cart as the request left it. No-op outside a request.
 */
export function recordCartState(state: Omit<CartProfile, 'changes'>): void {
  const context = currentKernelContext();
  if (!context) return;
  const previous = profileOf(context);
  // A summary (no lines) never hides a full state recorded earlier in the same request.
  if (previous && state.lines === null && previous.lines !== null) return;
  context.set<CartProfile>(CART_PROFILE, { ...state, changes: previous?.changes ?? [] });
}

/** Records a change this request made to the cart. No-op outside a request. */
export function recordCartChange(change: CartProfileChange, owner: { owner: CartOwnerKind; userId: number | null; cartId: number | null }): void {
  const context = currentKernelContext();
  if (!context) return;
  let profile = profileOf(context);
  if (!profile) {
    profile = { ...owner, lines: null, itemCount: 0, subtotalCents: 0, shippingCents: null, totalCents: null, changes: [] };
    context.set(CART_PROFILE, profile);
  }
  profile.changes.push(change);
}
