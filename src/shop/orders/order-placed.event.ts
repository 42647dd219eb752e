/**
 * Emitted (on the application's event bus) once an order is placed and its cart emptied, after the transaction
 * committed: for modules that react to a sale without the checkout knowing them (the cart's profiling, mails).
 */
export class OrderPlacedEvent {
  static readonly NAME = 'order.placed';

  constructor(
    readonly reference: string,
    readonly userId: number,
    readonly cartId: number,
    /** Items the cart held, now ordered. */
    readonly items: number,
    readonly totalCents: number,
  ) {}
}
