import type { Order, OrderLine } from '../../database/schema.js';
import { formatPrice } from '../catalogue/catalogue-format.js';
import { COUNTRIES } from './checkout.dto.js';

/** An order as pages show it (euros, the address on lines). */
export function orderView(order: Order & { lines?: OrderLine[]; item_count?: number }): object {
  return {
    reference: order.reference,
    href: `/account/orders/${order.reference}`,
    status: order.status,
    placedOn: order.created_at.slice(0, 10),
    itemCount: order.item_count === undefined ? undefined : Number(order.item_count),
    subtotal: formatPrice(order.subtotal_cents),
    shipping: order.shipping_cents === 0 ? 'Free' : formatPrice(order.shipping_cents),
    total: formatPrice(order.total_cents),
    address: [
      order.shipping_name,
      order.shipping_street,
      `${order.shipping_postcode} ${order.shipping_city}`,
      COUNTRIES[order.shipping_country] ?? order.shipping_country,
    ],
    lines: order.lines?.map((line) => ({
      name: line.product_name,
      href: line.product_id === null ? null : `/products/${encodeURIComponent(line.product_slug)}`,
      unitPrice: formatPrice(line.unit_price_cents),
      quantity: line.quantity,
      total: formatPrice(line.line_total_cents),
    })),
  };
}

/** An order as the JSON API gives it. */
export function orderJson(order: Order & { lines?: OrderLine[] }): object {
  return {
    reference: order.reference,
    status: order.status,
    createdAt: order.created_at,
    subtotalCents: order.subtotal_cents,
    shippingCents: order.shipping_cents,
    totalCents: order.total_cents,
    shippingAddress: {
      name: order.shipping_name,
      street: order.shipping_street,
      postcode: order.shipping_postcode,
      city: order.shipping_city,
      country: order.shipping_country,
    },
    ...(order.lines
      ? {
          lines: order.lines.map((l) => ({
            productSlug: l.product_slug,
            name: l.product_name,
            unitPriceCents: l.unit_price_cents,
            quantity: l.quantity,
            lineTotalCents: l.line_total_cents,
          })),
        }
      : {}),
  };
}
