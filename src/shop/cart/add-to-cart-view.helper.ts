import { Injectable, type OnModuleInit } from '@nestjs/common';
import hbs from 'hbs';
import { currentKernelContext } from '../../lifecycle/kernel-context.js';
import { MAX_QUANTITY } from './cart-rules.js';

/**
 * `{{#with (add_to_cart)}}…{{/with}}` on the product page: the add-to-cart form's values (`productId`, `max`) for
 * the product the page shows, or nothing when it is out of stock. The product is the request's `product`
 * attribute, loaded by the catalogue's parameter converter (`@ConvertParam('product', …)`), so the catalogue's
 * controller need not know about the cart.
 */
@Injectable()
export class AddToCartViewHelper implements OnModuleInit {
  onModuleInit(): void {
    hbs.registerHelper('add_to_cart', () => {
      const product = currentKernelContext()?.request.attributes.product as
        { id?: unknown; stock?: unknown } | undefined;
      if (typeof product?.id !== 'number' || typeof product.stock !== 'number' || product.stock <= 0) return null;
      return { productId: product.id, max: Math.min(product.stock, MAX_QUANTITY) };
    });
  }
}
