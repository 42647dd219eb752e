/** Shipping is free from this subtotal on (integer cents)... */
export const FREE_SHIPPING_FROM_CENTS = 5000;
/** ...and costs this much below it. */
export const SHIPPING_CENTS = 490;

/** What shipping costs for a subtotal (nothing for an empty cart). */
export function shippingFor(subtotalCents: number): number {
  return subtotalCents === 0 || subtotalCents >= FREE_SHIPPING_FROM_CENTS ? 0 : SHIPPING_CENTS;
}
