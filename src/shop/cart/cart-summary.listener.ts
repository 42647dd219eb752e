import { Injectable } from '@nestjs/common';
import { KernelListener } from '../../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ControllerEvent } from '../../lifecycle/kernel.events.js';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';
import { currentUser } from '../../security/security-context.js';
import { SESSION } from '../../session/session-context.js';
import { CART_ID_ATTRIBUTE, CartService, cartOwner } from './cart.service.js';
import { OWN_CART_SUMMARY_METADATA } from './own-cart-summary.decorator.js';

/**
 * kernel.controller (priority -8, after the CSRF check and parameter conversion): the layout's `Cart (n)` reads
 * `res.locals.cartSummary = { count, totalCents }` (units, and their value before shipping). The cart is queried
 * only when the visitor has one: a logged-in user, or a stored session holding `cart_id`. A visitor who only browses
 * costs no query, and nothing (no session, no cart) is ever created here. JSON requests, the API and the profiler's
 * own pages are skipped. A failing query leaves the header without a count: it never fails the page.
 */
@Injectable()
export class CartSummaryListener {
  constructor(
    private readonly cart: CartService,
    private readonly logger: KernelLogger,
  ) {}

  @KernelListener(KernelEvents.CONTROLLER, { priority: -8 })
  onKernelController(event: ControllerEvent): void {
    const request = event.request;
    if (request.prefersJson) return;
    if (request.routeName?.startsWith('_') || request.pathInfo.startsWith('/api/')) return;
    const method = event.handler?.method;
    if (method && Reflect.getMetadata(OWN_CART_SUMMARY_METADATA, method) === true) return;
    const context = request.context;
    const user = currentUser(context);
    const session = context.get(SESSION);
    if (!user && (!session || session.isNew || session.isClosed || session.peek()[CART_ID_ATTRIBUTE] === undefined))
      return;
    const owner = cartOwner(user, session!);
    event.waitFor(
      this.cart.summary(owner).then(
        (summary) => {
          if (summary) context.res.locals.cartSummary = summary;
        },
        (error: unknown) => {
          this.logger.record(
            LogLevel.WARNING,
            'cart',
            'The cart summary could not be loaded: {message}',
            { message: (error as Error).message, exception: error },
            context,
          );
        },
      ),
    );
  }
}
