import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { KernelContext, kernelContextStorage } from '../../lifecycle/kernel-context.js';
import { OrderPlacedEvent } from '../orders/order-placed.event.js';
import { CartChangedEvent } from './cart-changed.event.js';
import { CartLoadedEvent } from './cart-loaded.event.js';
import { CART_PROFILE } from './cart-profile.js';
import { CartProfileListener } from './cart-profile.listener.js';
import type { CartRef, CartState } from './cart-state.js';

const SESSION_CART: CartRef = { owner: 'session', userId: null, cartId: 7 };
const MUG = { productId: 3, slug: 'mug', name: 'Mug', unitPriceCents: 1290, quantity: 2, lineTotalCents: 2580 };
const FULL: CartState = {
  ...SESSION_CART,
  lines: [MUG],
  itemCount: 2,
  subtotalCents: 2580,
  shippingCents: 490,
  totalCents: 3070,
};
const SUMMARY: CartState = {
  ...SESSION_CART,
  lines: null,
  itemCount: 2,
  subtotalCents: 2580,
  shippingCents: null,
  totalCents: null,
};

describe('CartProfileListener', () => {
  const listener = new CartProfileListener();
  const inRequest = (work: () => void): KernelContext => {
    const context = new KernelContext({} as never, 'en');
    kernelContextStorage.run(context, work);
    return context;
  };

  it("records the cart's state and the changes the request made, in order", () => {
    const context = inRequest(() => {
      listener.onCartChanged(new CartChangedEvent(SESSION_CART, 'added', 3, 'Mug', 0, 1));
      listener.onCartChanged(new CartChangedEvent(SESSION_CART, 'updated', 3, 'Mug', 1, 2));
      listener.onCartLoaded(new CartLoadedEvent(FULL));
    });
    expect(context.get(CART_PROFILE)).toEqual({
      ...FULL,
      changes: [
        { action: 'added', productId: 3, name: 'Mug', from: 0, to: 1 },
        { action: 'updated', productId: 3, name: 'Mug', from: 1, to: 2 },
      ],
    });
  });

  it('keeps the last state, and the changes recorded before it', () => {
    const emptied: CartState = { ...FULL, lines: [], itemCount: 0, subtotalCents: 0, shippingCents: 0, totalCents: 0 };
    const context = inRequest(() => {
      listener.onCartLoaded(new CartLoadedEvent(FULL));
      listener.onCartChanged(new CartChangedEvent(SESSION_CART, 'removed', 3, 'Mug', 2, 0));
      listener.onCartLoaded(new CartLoadedEvent(emptied));
    });
    expect(context.get(CART_PROFILE)).toEqual({
      ...emptied,
      changes: [{ action: 'removed', productId: 3, name: 'Mug', from: 2, to: 0 }],
    });
  });

  it('never lets a summary hide the lines loaded earlier in the request, but records one when it is all there is', () => {
    const full = inRequest(() => {
      listener.onCartLoaded(new CartLoadedEvent(FULL));
      listener.onCartLoaded(new CartLoadedEvent({ ...SUMMARY, itemCount: 5 }));
    });
    expect(full.get(CART_PROFILE)).toEqual({ ...FULL, changes: [] });
    const summary = inRequest(() => listener.onCartLoaded(new CartLoadedEvent(SUMMARY)));
    expect(summary.get(CART_PROFILE)).toEqual({ ...SUMMARY, changes: [] });
  });

  it('records a change made before any state with the owner it names, and no lines', () => {
    const user: CartRef = { owner: 'user', userId: 4, cartId: 9 };
    const context = inRequest(() => listener.onCartChanged(new CartChangedEvent(user, 'attached', null, null, 0, 3)));
    expect(context.get(CART_PROFILE)).toEqual({
      ...user,
      lines: null,
      itemCount: 0,
      subtotalCents: 0,
      shippingCents: null,
      totalCents: null,
      changes: [{ action: 'attached', productId: null, name: null, from: 0, to: 3 }],
    });
  });

  it("tells that a placed order emptied the user's cart", () => {
    const context = inRequest(() => listener.onOrderPlaced(new OrderPlacedEvent('SK-ABCD1234', 4, 9, 3, 4170)));
    expect(context.get(CART_PROFILE)).toEqual({
      owner: 'user',
      userId: 4,
      cartId: 9,
      lines: [],
      itemCount: 0,
      subtotalCents: 0,
      shippingCents: null,
      totalCents: 0,
      changes: [{ action: 'emptied', productId: null, name: 'order SK-ABCD1234', from: 3, to: 0 }],
    });
  });

  it('does nothing outside a request (a CLI, a seed)', () => {
    expect(() => {
      listener.onCartLoaded(new CartLoadedEvent(FULL));
      listener.onCartChanged(new CartChangedEvent(SESSION_CART, 'added', 3, 'Mug', 0, 1));
      listener.onOrderPlaced(new OrderPlacedEvent('SK-ABCD1234', 4, 9, 3, 4170));
    }).not.toThrow();
  });

  it('hears the events on the application bus, synchronously, while the request runs', async () => {
    const module = await Test.createTestingModule({
      imports: [EventEmitterModule.forRoot()],
      providers: [CartProfileListener],
    }).compile();
    await module.init();
    try {
      const bus = module.get(EventEmitter2);
      const context = inRequest(() => {
        bus.emit(CartChangedEvent.NAME, new CartChangedEvent(SESSION_CART, 'added', 3, 'Mug', 0, 2));
        bus.emit(CartLoadedEvent.NAME, new CartLoadedEvent(FULL));
      });
      expect(context.get(CART_PROFILE)).toEqual({
        ...FULL,
        changes: [{ action: 'added', productId: 3, name: 'Mug', from: 0, to: 2 }],
      });
      expect(() => bus.emit(CartLoadedEvent.NAME, new CartLoadedEvent(FULL))).not.toThrow();
    } finally {
      await module.close();
    }
  });
});
