import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';
import type { AuthenticatedUser } from '../../security/security-context.js';
import type { Session } from '../../session/session.js';
import { CartChangedEvent, type CartChangeAction } from './cart-changed.event.js';
import { CartLoadedEvent } from './cart-loaded.event.js';
import { CartQuantityException } from './cart-quantity.exception.js';
import { CartRepository, type CartKey, type CartRow } from './cart.repository.js';
import { cartTotals, lineTotalCents, MAX_QUANTITY, quantityProblem, type CartTotals } from './cart-rules.js';
import type { CartOwnerKind, CartRef, CartStateLine } from './cart-state.js';

/** The session attribute that holds an anonymous visitor's cart id. */
export const CART_ID_ATTRIBUTE = 'cart_id';

/** Whose cart a request works on: the logged-in user's, else the one the visitor's session names. */
export type CartOwner = { kind: 'user'; userId: number } | { kind: 'session'; session: Session };

export function cartOwner(user: AuthenticatedUser | null, session: Session): CartOwner {
  return user ? { kind: 'user', userId: user.id } : { kind: 'session', session };
}

/** A line of the cart: what its events carry of it, and the stock. */
export interface CartLineView extends CartStateLine {
  /** Units left: a line may hold more than that when the stock fell after it was added. */
  stock: number;
}

export interface CartView extends CartTotals {
  /** Null while the visitor has no cart (nothing was ever added). */
  cartId: number | null;
  owner: CartOwnerKind;
  lines: CartLineView[];
}

/** What a change did, for the flash message. */
export interface CartChange {
  name: string;
  from: number;
  to: number;
  cart: CartView;
}

/**
 * The cart: which one a request works on (a user's, or the anonymous one named by the session's `cart_id`), its
 * lines and totals, adding, changing and removing lines within the stock, and moving an anonymous cart to the
 * user who logs in. A cart row is created only when the first product is added. What it loaded and changed is told
 * on the application's event bus (CartLoadedEvent, CartChangedEvent: emitted synchronously, in or outside a
 * request), which is how the Cart panel learns it.
 */
@Injectable()
export class CartService {
  constructor(
    private readonly carts: CartRepository,
    private readonly events: EventEmitter2,
  ) {}

  async view(owner: CartOwner): Promise<CartView> {
    const key = this.keyOf(owner);
    const row = key ? await this.carts.find(key) : undefined;
    return this.present(owner, row);
  }

  /** The header's count and value, querying only when the visitor has a cart; never creates anything. */
  async summary(owner: CartOwner): Promise<{ count: number; totalCents: number } | undefined> {
    const key = this.keyOf(owner);
    if (!key) return undefined;
    const summary = await this.carts.summary(key);
    if (!summary) return undefined;
    this.events.emit(
      CartLoadedEvent.NAME,
      new CartLoadedEvent({
        ...this.refOf(owner, summary.cartId),
        lines: null,
        itemCount: summary.count,
        subtotalCents: summary.totalCents,
        shippingCents: null,
        totalCents: null,
      }),
    );
    return { count: summary.count, totalCents: summary.totalCents };
  }

  /** Adds `quantity` units of a product (a new line, or more of an existing one). */
  async add(owner: CartOwner, productId: number, quantity: number): Promise<CartChange> {
    const product = await this.carts.product(productId);
    if (!product) throw new NotFoundHttpException(`Product ${productId} not found.`);
    const key = this.keyOf(owner);
    const existing = key ? await this.carts.find(key) : undefined;
    const inCart = existing?.lines.find((l) => l.productId === productId)?.quantity ?? 0;
    const problem = quantityProblem(inCart + quantity, product.stock, inCart);
    if (problem) throw new CartQuantityException(problem, quantity);
    let cartId = existing?.id;
    if (cartId === undefined) {
      cartId =
        owner.kind === 'user'
          ? await this.carts.createForUser(owner.userId)
          : await this.carts.createForSession(owner.session.ensureId());
      if (owner.kind === 'session') owner.session.set(CART_ID_ATTRIBUTE, cartId);
    } else {
      await this.carts.touch(cartId);
    }
    await this.carts.setLine(cartId, productId, inCart + quantity);
    this.changed(
      this.refOf(owner, cartId),
      inCart ? 'updated' : 'added',
      productId,
      product.name,
      inCart,
      inCart + quantity,
    );
    return { name: product.name, from: inCart, to: inCart + quantity, cart: await this.view(owner) };
  }

  /** Sets a line's quantity; 0 removes the line. A product the cart has no line for is a 404. */
  async update(owner: CartOwner, productId: number, quantity: number): Promise<CartChange> {
    if (quantity === 0) return this.remove(owner, productId);
    const { cart, line } = await this.line(owner, productId);
    // Checked also when lowering it: the stock may have fallen below the line since it was added.
    const problem = quantityProblem(quantity, line.stock);
    if (problem) throw new CartQuantityException(problem, quantity);
    await this.carts.setLine(cart.id, productId, quantity);
    await this.carts.touch(cart.id);
    this.changed(this.refOf(owner, cart.id), 'updated', productId, line.name, line.quantity, quantity);
    return { name: line.name, from: line.quantity, to: quantity, cart: await this.view(owner) };
  }

  async remove(owner: CartOwner, productId: number): Promise<CartChange> {
    const { cart, line } = await this.line(owner, productId);
    if (!(await this.carts.removeLine(cart.id, productId))) throw this.notInCart(productId);
    await this.carts.touch(cart.id);
    this.changed(this.refOf(owner, cart.id), 'removed', productId, line.name, line.quantity, 0);
    return { name: line.name, from: line.quantity, to: 0, cart: await this.view(owner) };
  }

  /**
   * Called by the login right after a successful login: the anonymous cart of the session becomes the user's.
   * When the user already has a cart, the lines are merged into it (quantities summed, capped by the stock and
   * the 99 a line may hold) and the anonymous cart is deleted. `cart_id` leaves the session either way. The
   * changes are told once the transaction committed.
   */
  async attachToUser(session: Session, userId: number): Promise<void> {
    const cartId = validCartId(session.get(CART_ID_ATTRIBUTE));
    if (session.has(CART_ID_ATTRIBUTE)) session.remove(CART_ID_ATTRIBUTE);
    if (cartId === undefined) return;
    const changes: CartChangedEvent[] = [];
    await this.carts.transaction(async (db) => {
      const anonymous = await this.carts.find({ cartId }, db);
      if (!anonymous) return;
      const mine = await this.carts.find({ userId }, db);
      if (!mine) {
        await this.carts.giveToUser(cartId, userId, db);
        changes.push(
          new CartChangedEvent({ owner: 'user', userId, cartId }, 'attached', null, null, 0, anonymous.lines.length),
        );
        return;
      }
      const ref: CartRef = { owner: 'user', userId, cartId: mine.id };
      for (const line of anonymous.lines) {
        const had = mine.lines.find((l) => l.productId === line.productId)?.quantity ?? 0;
        const merged = Math.min(had + line.quantity, line.stock, MAX_QUANTITY);
        if (merged <= 0 || merged === had) continue;
        await this.carts.setLine(mine.id, line.productId, merged, db);
        changes.push(new CartChangedEvent(ref, 'merged', line.productId, line.name, had, merged));
      }
      await this.carts.touch(mine.id, db);
      await this.carts.delete(cartId, db);
    });
    for (const change of changes) this.events.emit(CartChangedEvent.NAME, change);
  }

  /** The cart's key, or null while the visitor has none (no query needed to know it). */
  private keyOf(owner: CartOwner): CartKey | null {
    if (owner.kind === 'user') return { userId: owner.userId };
    // Only a session that was stored can name a cart; asking a new one does not mark it used.
    const cartId = validCartId(owner.session.get(CART_ID_ATTRIBUTE));
    return cartId === undefined ? null : { cartId };
  }

  private async line(owner: CartOwner, productId: number): Promise<{ cart: CartRow; line: CartRow['lines'][number] }> {
    const key = this.keyOf(owner);
    const cart = key ? await this.carts.find(key) : undefined;
    const line = cart?.lines.find((l) => l.productId === productId);
    if (!cart || !line) throw this.notInCart(productId);
    return { cart, line };
  }

  private notInCart(productId: number): NotFoundHttpException {
    return new NotFoundHttpException(`Product ${productId} is not in the cart.`);
  }

  private present(owner: CartOwner, row: CartRow | undefined): CartView {
    const lines: CartLineView[] = (row?.lines ?? []).map((l) => ({
      productId: l.productId,
      slug: l.slug,
      name: l.name,
      unitPriceCents: l.unitPriceCents,
      quantity: l.quantity,
      lineTotalCents: lineTotalCents(l),
      stock: l.stock,
    }));
    const view: CartView = { cartId: row?.id ?? null, owner: owner.kind, lines, ...cartTotals(lines) };
    if (row) {
      this.events.emit(
        CartLoadedEvent.NAME,
        new CartLoadedEvent({
          ...this.refOf(owner, row.id),
          lines: lines.map(({ stock: _stock, ...line }) => line),
          itemCount: view.itemCount,
          subtotalCents: view.subtotalCents,
          shippingCents: view.shippingCents,
          totalCents: view.totalCents,
        }),
      );
    }
    return view;
  }

  private changed(
    cart: CartRef,
    action: CartChangeAction,
    productId: number,
    name: string,
    from: number,
    to: number,
  ): void {
    this.events.emit(CartChangedEvent.NAME, new CartChangedEvent(cart, action, productId, name, from, to));
  }

  private refOf(owner: CartOwner, cartId: number | null): CartRef {
    return { owner: owner.kind, userId: owner.kind === 'user' ? owner.userId : null, cartId };
  }
}

function validCartId(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}
