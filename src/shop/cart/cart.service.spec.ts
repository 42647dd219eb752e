import { EventEmitter2 } from '@nestjs/event-emitter';
import { Session } from '../../session/session.js';
import { CartChangedEvent } from './cart-changed.event.js';
import { CartLoadedEvent } from './cart-loaded.event.js';
import { CartQuantityException } from './cart-quantity.exception.js';
import type { CartKey, CartProductRow, CartRepository, CartRow } from './cart.repository.js';
import { CART_ID_ATTRIBUTE, CartService, type CartOwner } from './cart.service.js';

const MUG: CartProductRow = { id: 3, slug: 'mug', name: 'Mug', price_cents: 1290, stock: 10 };
const LAMP: CartProductRow = { id: 5, slug: 'lamp', name: 'Lamp', price_cents: 4500, stock: 2 };

/** The carts in memory: what CartService asks of the repository, nothing more. */
class FakeCarts {
  private readonly carts = new Map<number, { userId: number | null; lines: Map<number, number> }>();
  private nextId = 1;
  failTransactions = false;

  async find(key: CartKey): Promise<CartRow | undefined> {
    const id = 'cartId' in key ? key.cartId : [...this.carts].find(([, c]) => c.userId === key.userId)?.[0];
    const cart = id === undefined ? undefined : this.carts.get(id);
    if (id === undefined || !cart) return undefined;
    const lines = [...cart.lines].map(([productId, quantity]) => {
      const p = [MUG, LAMP].find((x) => x.id === productId)!;
      return { productId, slug: p.slug, name: p.name, unitPriceCents: p.price_cents, stock: p.stock, quantity };
    });
    return { id, lines } as CartRow;
  }
  async summary(key: CartKey): Promise<{ cartId: number; count: number; totalCents: number } | undefined> {
    const row = await this.find(key);
    return (
      row && {
        cartId: row.id,
        count: row.lines.reduce((n, l) => n + l.quantity, 0),
        totalCents: row.lines.reduce((n, l) => n + l.quantity * l.unitPriceCents, 0),
      }
    );
  }
  async product(id: number): Promise<CartProductRow | undefined> {
    return [MUG, LAMP].find((p) => p.id === id);
  }
  async createForSession(): Promise<number> {
    return this.create(null);
  }
  async createForUser(userId: number): Promise<number> {
    return this.create(userId);
  }
  async setLine(cartId: number, productId: number, quantity: number): Promise<void> {
    this.carts.get(cartId)!.lines.set(productId, quantity);
  }
  async removeLine(cartId: number, productId: number): Promise<boolean> {
    return this.carts.get(cartId)!.lines.delete(productId);
  }
  async touch(): Promise<void> {}
  async giveToUser(cartId: number, userId: number): Promise<void> {
    this.carts.get(cartId)!.userId = userId;
  }
  async delete(cartId: number): Promise<void> {
    this.carts.delete(cartId);
  }
  async transaction<T>(work: (db: never) => Promise<T>): Promise<T> {
    const result = await work(undefined as never);
    if (this.failTransactions) throw new Error('rolled back');
    return result;
  }
  private create(userId: number | null): number {
    this.carts.set(this.nextId, { userId, lines: new Map() });
    return this.nextId++;
  }
}

describe('CartService events', () => {
  let carts: FakeCarts;
  let service: CartService;
  let events: Array<CartChangedEvent | CartLoadedEvent>;

  beforeEach(() => {
    carts = new FakeCarts();
    const bus = new EventEmitter2();
    events = [];
    bus.on(CartChangedEvent.NAME, (event: CartChangedEvent) => events.push(event));
    bus.on(CartLoadedEvent.NAME, (event: CartLoadedEvent) => events.push(event));
    service = new CartService(carts as unknown as CartRepository, bus);
  });

  const visitor = (): CartOwner & { kind: 'session' } => ({ kind: 'session', session: new Session(null) });
  const mugLine = (quantity: number) => ({
    productId: 3,
    slug: 'mug',
    name: 'Mug',
    unitPriceCents: 1290,
    quantity,
    lineTotalCents: 1290 * quantity,
  });

  it('tells nothing while the visitor has no cart', async () => {
    const owner = visitor();
    expect((await service.view(owner)).lines).toEqual([]);
    expect(await service.summary(owner)).toBeUndefined();
    expect(events).toEqual([]);
  });

  it('tells a line added, then the cart as it loaded it (lines without the stock, totals)', async () => {
    const owner = visitor();
    await service.add(owner, MUG.id, 2);
    const cartId = owner.session.get<number>(CART_ID_ATTRIBUTE)!;
    const cart = { owner: 'session', userId: null, cartId } as const;
    expect(events).toStrictEqual([
      new CartChangedEvent(cart, 'added', 3, 'Mug', 0, 2),
      new CartLoadedEvent({
        ...cart,
        lines: [mugLine(2)],
        itemCount: 2,
        subtotalCents: 2580,
        shippingCents: 490,
        totalCents: 3070,
      }),
    ]);
  });

  it("tells an update, a removal and the header's summary (no lines) with the user's cart", async () => {
    const owner: CartOwner = { kind: 'user', userId: 4 };
    await service.add(owner, MUG.id, 1);
    await service.add(owner, MUG.id, 2);
    await service.add(owner, LAMP.id, 1);
    await service.update(owner, MUG.id, 5);
    await service.update(owner, LAMP.id, 0);
    await service.summary(owner);
    const cart = { owner: 'user', userId: 4, cartId: 1 } as const;
    const changes = events.filter((e) => e instanceof CartChangedEvent);
    expect(changes).toStrictEqual([
      new CartChangedEvent(cart, 'added', 3, 'Mug', 0, 1),
      new CartChangedEvent(cart, 'updated', 3, 'Mug', 1, 3),
      new CartChangedEvent(cart, 'added', 5, 'Lamp', 0, 1),
      new CartChangedEvent(cart, 'updated', 3, 'Mug', 3, 5),
      new CartChangedEvent(cart, 'removed', 5, 'Lamp', 1, 0),
    ]);
    expect(events.at(-1)).toStrictEqual(
      new CartLoadedEvent({
        ...cart,
        lines: null,
        itemCount: 5,
        subtotalCents: 6450,
        shippingCents: null,
        totalCents: null,
      }),
    );
    // Each change is followed by the cart as the service then loaded it.
    expect(events.map((e) => e.constructor.name)).toEqual([
      ...Array(5).fill(['CartChangedEvent', 'CartLoadedEvent']).flat(),
      'CartLoadedEvent',
    ]);
  });

  it('tells nothing of a change it refused', async () => {
    const owner = visitor();
    await expect(service.add(owner, LAMP.id, 3)).rejects.toBeInstanceOf(CartQuantityException);
    expect(events).toEqual([]);
  });

  it('tells, once committed, that the anonymous cart moved to the user at login, or what merged into theirs', async () => {
    const moved = visitor();
    await service.add(moved, MUG.id, 2);
    const anonymousId = moved.session.get<number>(CART_ID_ATTRIBUTE)!;
    events = [];
    await service.attachToUser(moved.session, 4);
    expect(events).toStrictEqual([
      new CartChangedEvent({ owner: 'user', userId: 4, cartId: anonymousId }, 'attached', null, null, 0, 1),
    ]);

    const merging = visitor();
    await service.add(merging, MUG.id, 3);
    await service.add(merging, LAMP.id, 2);
    events = [];
    await service.attachToUser(merging.session, 4);
    const mine = { owner: 'user', userId: 4, cartId: anonymousId } as const;
    expect(events).toStrictEqual([
      new CartChangedEvent(mine, 'merged', 3, 'Mug', 2, 5),
      new CartChangedEvent(mine, 'merged', 5, 'Lamp', 0, 2),
    ]);
  });

  it('tells nothing of a merge rolled back', async () => {
    await service.add({ kind: 'user', userId: 4 }, MUG.id, 1);
    const owner = visitor();
    await service.add(owner, MUG.id, 1);
    events = [];
    carts.failTransactions = true;
    await expect(service.attachToUser(owner.session, 4)).rejects.toThrow('rolled back');
    expect(events).toEqual([]);
  });
});
