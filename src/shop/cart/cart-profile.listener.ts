import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { currentKernelContext } from '../../lifecycle/kernel-context.js';
import { OrderPlacedEvent } from '../orders/order-placed.event.js';
import { CartChangedEvent } from './cart-changed.event.js';
import { CartLoadedEvent } from './cart-loaded.event.js';
import { CART_PROFILE, type CartProfileChange } from './cart-profile.js';
import type { CartRef, CartState } from './cart-state.js';

/**
 * The Cart panel's side of the cart: learns from the cart's events (and from a placed order, which empties the cart
 * in the checkout's own transaction) what the request did, and records it on the request's KernelContext as plain
 * values (references kept, nothing formatted). The last state wins; a summary (no lines) never hides a full state
 * recorded earlier in the request; changes accumulate. Outside a request (a CLI, a seed, a test) it does nothing.
 */
@Injectable()
export class CartProfileListener {
  @OnEvent(CartLoadedEvent.NAME)
  onCartLoaded(event: CartLoadedEvent): void {
    this.recordState(event.state);
  }

  @OnEvent(CartChangedEvent.NAME)
  onCartChanged(event: CartChangedEvent): void {
    this.recordChange(event.cart, {
      action: event.action,
      productId: event.productId,
      name: event.name,
      from: event.from,
      to: event.to,
    });
  }

  @OnEvent(OrderPlacedEvent.NAME)
  onOrderPlaced(event: OrderPlacedEvent): void {
    const cart: CartRef = { owner: 'user', userId: event.userId, cartId: event.cartId };
    this.recordChange(cart, {
      action: 'emptied',
      productId: null,
      name: `order ${event.reference}`,
      from: event.items,
      to: 0,
    });
    this.recordState({ ...cart, lines: [], itemCount: 0, subtotalCents: 0, shippingCents: null, totalCents: 0 });
  }

  private recordState(state: Readonly<CartState>): void {
    const context = currentKernelContext();
    if (!context) return;
    const previous = context.get(CART_PROFILE);
    if (previous && state.lines === null && previous.lines !== null) return;
    context.set(CART_PROFILE, { ...state, changes: previous?.changes ?? [] });
  }

  private recordChange(cart: CartRef, change: CartProfileChange): void {
    const context = currentKernelContext();
    if (!context) return;
    let profile = context.get(CART_PROFILE);
    if (!profile) {
      profile = {
        ...cart,
        lines: null,
        itemCount: 0,
        subtotalCents: 0,
        shippingCents: null,
        totalCents: null,
        changes: [],
      };
      context.set(CART_PROFILE, profile);
    }
    profile.changes.push(change);
  }
}
