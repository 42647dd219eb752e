import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { OrderPlacedEvent } from '../orders/order-placed.event.js';
import { recordCartChange, recordCartState } from './cart-profile.js';

/**
 * The cart's side of a placed order, for the Cart panel: the order emptied the cart, which the checkout does in its
 * own transaction, outside the cart service.
 */
@Injectable()
export class CartOrderListener {
  @OnEvent(OrderPlacedEvent.NAME)
  onOrderPlaced(event: OrderPlacedEvent): void {
    const owner = { owner: 'user' as const, userId: event.userId, cartId: event.cartId };
    recordCartChange({ action: 'emptied', productId: null, name: `order ${event.reference}`, from: event.items, to: 0 }, owner);
    recordCartState({ ...owner, lines: [], itemCount: 0, subtotalCents: 0, shippingCents: null, totalCents: 0 });
  }
}
