import type { Violation } from '../../lifecycle/exceptions/validation-failed.exception.js';
import { formatPrice } from '../catalogue/catalogue-format.js';
import { FREE_SHIPPING_FROM_CENTS, MAX_QUANTITY } from './cart-rules.js';
import type { CartView } from './cart.service.js';

/** Which form a violation belongs to: the add form (product page) or the quantity form of one line. */
export type FailedForm = { kind: 'add' } | { kind: 'line'; productId: number };

export interface FormViolation {
  field: string;
  message: string;
}

/** The cart page's view model: every amount formatted here, every value escaped by Handlebars. */
export function cartPage(
  cart: CartView,
  locale: string,
  failure?: { form: FailedForm; violations: Violation[] },
): object {
  const violations: FormViolation[] = (failure?.violations ?? []).flatMap((v) =>
    Object.values(v.constraints).map((message) => ({ field: v.property, message })),
  );
  const lineFailed = failure?.form.kind === 'line' ? failure.form.productId : undefined;
  const missingForFreeShipping = FREE_SHIPPING_FROM_CENTS - cart.subtotalCents;
  return {
    title: 'Your cart – Shopkernel',
    locale,
    cart: {
      empty: cart.lines.length === 0,
      itemCount: cart.itemCount,
      lines: cart.lines.map((line) => {
        const path = encodeURIComponent(String(line.productId));
        return {
          productId: line.productId,
          name: line.name,
          href: `/products/${encodeURIComponent(line.slug)}`,
          unitPrice: formatPrice(line.unitPriceCents),
          quantity: line.quantity,
          max: Math.max(line.quantity, Math.min(line.stock, MAX_QUANTITY)),
          lineTotal: formatPrice(line.lineTotalCents),
          stockNote:
            line.stock <= 0 ? 'Out of stock' : line.quantity > line.stock ? `Only ${line.stock} left in stock` : '',
          updateAction: `/cart/lines/${path}`,
          removeAction: `/cart/lines/${path}/delete`,
          violations: lineFailed === line.productId ? violations : [],
        };
      }),
      subtotal: formatPrice(cart.subtotalCents),
      shipping: cart.shippingCents === 0 ? 'Free' : formatPrice(cart.shippingCents),
      total: formatPrice(cart.totalCents),
      freeShippingHint:
        cart.lines.length > 0 && missingForFreeShipping > 0
          ? `Add ${formatPrice(missingForFreeShipping)} more for free shipping (from ${formatPrice(FREE_SHIPPING_FROM_CENTS)}).`
          : '',
    },
    // The add form lives on the product page: its problems are shown above the cart.
    addViolations: failure?.form.kind === 'add' ? violations : [],
    // A line's problems when that line is no longer in the cart: above the cart too.
    otherViolations: lineFailed !== undefined && !cart.lines.some((l) => l.productId === lineFailed) ? violations : [],
  };
}
