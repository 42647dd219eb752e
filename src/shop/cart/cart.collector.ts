import { Injectable } from '@nestjs/common';
import type { KernelContext } from '../../lifecycle/kernel-context.js';
import { DataCollector, type PanelBadge, type ToolbarBlock } from '../../profiler/collectors/data-collector.js';
import { formatPrice } from '../catalogue/catalogue-format.js';
import { CART_PROFILE, type CartProfile } from './cart-profile.js';

/** At most this many lines and changes are kept in a profile (a cart is small; a runaway loop is not). */
const MAX_ROWS = 100;

const ACTIONS: Record<CartProfile['changes'][number]['action'], string> = {
  added: 'added',
  updated: 'quantity changed',
  removed: 'removed',
  merged: 'merged at login',
  attached: 'cart moved to the user at login',
  emptied: 'emptied by the order',
};

/**
 * The Cart panel: the cart as the request left it (owner, id, lines, totals) and what the request changed.
 * CartProfileListener records plain values on the KernelContext from the cart's events; they are kept at
 * kernel.terminate and formatted (euros, labels) only when the panel is opened.
 */
@Injectable()
export class CartCollector extends DataCollector<CartProfile> {
  readonly name = 'cart';
  readonly label = 'Cart';
  override readonly priority = 150;
  override readonly deferrable = true;
  override readonly emptyText =
    'This request did not look at a cart (the visitor has none, or the page does not show it).';

  override lateCollect(context: KernelContext): CartProfile | undefined {
    const profile = context.get(CART_PROFILE);
    if (!profile) return undefined;
    return {
      ...profile,
      lines: profile.lines?.slice(0, MAX_ROWS) ?? null,
      changes: profile.changes.slice(0, MAX_ROWS),
    };
  }

  override badge(data: CartProfile): PanelBadge | null {
    if (data.changes.length > 0)
      return { text: `${data.changes.length} change${data.changes.length === 1 ? '' : 's'}`, kind: 'success' };
    return { text: String(data.itemCount), kind: 'info' };
  }

  /** Items and total, and what this request changed. */
  override toolbar(data: CartProfile): ToolbarBlock {
    const total = data.totalCents ?? data.subtotalCents;
    return {
      items: data.itemCount,
      changed: data.changes.length,
      rows: [
        { label: 'Items', value: String(data.itemCount) },
        { label: data.totalCents === null ? 'Subtotal' : 'Total', value: formatPrice(total) },
        { label: 'Owner', value: data.owner === 'user' ? `user #${data.userId}` : 'anonymous visitor' },
        ...data.changes.slice(0, 5).map((c) => ({
          label: ACTIONS[c.action] ?? c.action,
          value: `${c.name ?? (c.productId === null ? '' : `product #${c.productId}`)} ${c.from} > ${c.to}`.trim(),
        })),
        ...(data.changes.length > 5 ? [{ label: 'More changes', value: String(data.changes.length - 5) }] : []),
      ],
    };
  }

  override panel(data: CartProfile): object {
    const price = (cents: number | null) => (cents === null ? '' : formatPrice(cents));
    return {
      overview: [
        { key: 'Cart id', value: data.cartId === null ? '(none)' : String(data.cartId) },
        {
          key: 'Owner',
          value: data.owner === 'user' ? `user #${data.userId}` : 'anonymous visitor (session attribute cart_id)',
        },
        { key: 'Items', value: String(data.itemCount) },
        { key: 'Subtotal', value: price(data.subtotalCents) },
        {
          key: 'Shipping',
          value: data.shippingCents === null ? '(not computed: only the summary was read)' : price(data.shippingCents),
        },
        { key: 'Total', value: price(data.totalCents) },
      ],
      linesLoaded: data.lines !== null,
      lines: (data.lines ?? []).map((l) => ({
        ...l,
        unitPrice: price(l.unitPriceCents),
        lineTotal: price(l.lineTotalCents),
      })),
      // A product's change counts its quantity; a change of the whole cart (an order, a login) its items.
      changes: data.changes.map((c) => ({
        action: ACTIONS[c.action] ?? c.action,
        productId: c.productId,
        subject: c.name ?? (c.productId === null ? 'the cart' : ''),
        from: c.productId === null ? items(c.from) : String(c.from),
        to: c.productId === null ? items(c.to) : String(c.to),
      })),
    };
  }
}

function items(count: number): string {
  return `${count} item${count === 1 ? '' : 's'}`;
}
