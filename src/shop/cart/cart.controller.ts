import { Body, Controller, Get, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { Violation } from '../../lifecycle/exceptions/validation-failed.exception.js';
import { RequestAttribute } from '../../lifecycle/request-attribute.decorator.js';
import { RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { CsrfProtected } from '../../security/csrf/csrf-protected.decorator.js';
import { CurrentUser } from '../../security/current-user.decorator.js';
import type { AuthenticatedUser } from '../../security/security-context.js';
import { CurrentSession } from '../../session/current-session.decorator.js';
import type { Session } from '../../session/session.js';
import { AddLineDto } from './add-line.dto.js';
import { cartPage, type FailedForm } from './cart-page.js';
import { CartQuantityException } from './cart-quantity.exception.js';
import { CartService, cartOwner, type CartChange, type CartOwner, type CartView } from './cart.service.js';
import { validateForm } from '../../lifecycle/validate-form.js';
import { OwnCartSummary } from './own-cart-summary.decorator.js';
import { parseProductId } from './product-id.js';
import { UpdateLineDto } from './update-line.dto.js';

const VIEW = 'shop/cart/show';

/**
 * The cart page and its forms. A successful POST redirects (303) to /cart with a flash message; a form that fails
 * validation or asks for more than the stock answers the cart page again with 400 and the problems shown next to
 * the form. An unknown product, or a line the cart does not have, is a 404.
 */
@Controller('cart')
export class CartController {
  constructor(private readonly cart: CartService) {}

  @Get()
  @RouteName('cart_show')
  @OwnCartSummary()
  async show(
    @CurrentUser() user: AuthenticatedUser | null,
    @CurrentSession() session: Session,
    @RequestAttribute('_locale') locale: string,
    @Res() res: Response,
  ): Promise<void> {
    this.render(res, 200, await this.cart.view(cartOwner(user, session)), locale);
  }

  @Post('lines')
  @RouteName('cart_add')
  @CsrfProtected('cart')
  @OwnCartSummary()
  async add(
    @Body() body: unknown,
    @CurrentUser() user: AuthenticatedUser | null,
    @CurrentSession() session: Session,
    @RequestAttribute('_locale') locale: string,
    @Res() res: Response,
  ): Promise<void> {
    const owner = cartOwner(user, session);
    const { value, violations } = await validateForm(AddLineDto, body);
    if (violations.length > 0) return this.again(res, owner, locale, { kind: 'add' }, violations);
    const change = await this.attempt(() => this.cart.add(owner, value.productId, value.quantity));
    if ('violations' in change) return this.again(res, owner, locale, { kind: 'add' }, change.violations);
    const added = change.to - change.from;
    this.done(res, session, `Added ${added} × ${change.name} to your cart.`);
  }

  @Post('lines/:productId')
  @RouteName('cart_update')
  @CsrfProtected('cart')
  @OwnCartSummary()
  async update(
    @Param('productId') rawProductId: string,
    @Body() body: unknown,
    @CurrentUser() user: AuthenticatedUser | null,
    @CurrentSession() session: Session,
    @RequestAttribute('_locale') locale: string,
    @Res() res: Response,
  ): Promise<void> {
    const productId = parseProductId(rawProductId);
    const owner = cartOwner(user, session);
    const form: FailedForm = { kind: 'line', productId };
    const { value, violations } = await validateForm(UpdateLineDto, body);
    if (violations.length > 0) return this.again(res, owner, locale, form, violations);
    const change = await this.attempt(() => this.cart.update(owner, productId, value.quantity));
    if ('violations' in change) return this.again(res, owner, locale, form, change.violations);
    this.done(
      res,
      session,
      change.to === 0 ? `Removed ${change.name} from your cart.` : `${change.name}: quantity changed to ${change.to}.`,
    );
  }

  @Post('lines/:productId/delete')
  @RouteName('cart_remove')
  @CsrfProtected('cart')
  @OwnCartSummary()
  async remove(
    @Param('productId') rawProductId: string,
    @CurrentUser() user: AuthenticatedUser | null,
    @CurrentSession() session: Session,
    @Res() res: Response,
  ): Promise<void> {
    const change = await this.cart.remove(cartOwner(user, session), parseProductId(rawProductId));
    this.done(res, session, `Removed ${change.name} from your cart.`);
  }

  /** The change, or the violations of a quantity the cart cannot hold (other errors go on to kernel.exception). */
  private async attempt(change: () => Promise<CartChange>): Promise<CartChange | { violations: Violation[] }> {
    try {
      return await change();
    } catch (error) {
      if (error instanceof CartQuantityException) return { violations: error.violations };
      throw error;
    }
  }

  private async again(
    res: Response,
    owner: CartOwner,
    locale: string,
    form: FailedForm,
    violations: Violation[],
  ): Promise<void> {
    this.render(res, 400, await this.cart.view(owner), locale, { form, violations });
  }

  private render(
    res: Response,
    status: number,
    cart: CartView,
    locale: string,
    failure?: { form: FailedForm; violations: Violation[] },
  ): void {
    res.locals.cartSummary = { count: cart.itemCount, totalCents: cart.subtotalCents };
    res.status(status).render(VIEW, cartPage(cart, locale, failure));
  }

  private done(res: Response, session: Session, message: string): void {
    session.addFlash('success', message);
    res.redirect(303, '/cart');
  }
}
