import { Module } from '@nestjs/common';
import { AddToCartViewHelper } from './add-to-cart-view.helper.js';
import { CartApiController } from './cart-api.controller.js';
import { CartLoginHook } from './cart-login.hook.js';
import { CartSummaryListener } from './cart-summary.listener.js';
import { CartCollector } from './cart.collector.js';
import { CartProfileListener } from './cart-profile.listener.js';
import { CartController } from './cart.controller.js';
import { CartRepository } from './cart.repository.js';
import { CartService } from './cart.service.js';

/**
 * The cart: /cart pages and forms, the /api/cart JSON API, the header's count (CartSummaryListener,
 * kernel.controller -8), the product page's add-to-cart form values, the Cart panel (CartCollector, fed by
 * CartProfileListener from the cart's events), and the move of the anonymous cart to the user at login
 * (CartLoginHook).
 */
@Module({
  controllers: [CartController, CartApiController],
  providers: [
    CartRepository,
    CartService,
    CartSummaryListener,
    CartCollector,
    AddToCartViewHelper,
    CartLoginHook,
    CartProfileListener,
  ],
  exports: [CartService],
})
export class CartModule {}
