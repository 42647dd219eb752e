import { SetMetadata } from '@nestjs/common';

export const OWN_CART_SUMMARY_METADATA = 'shopkernel:own-cart-summary';

/**
 * The handler loads the cart itself and sets the header's summary from it (the cart's own pages): the
 * CartSummaryListener does not query it beforehand.
 */
export const OwnCartSummary = (): MethodDecorator => SetMetadata(OWN_CART_SUMMARY_METADATA, true);
