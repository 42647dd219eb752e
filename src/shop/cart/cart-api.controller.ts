import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { CsrfProtected } from '../../security/csrf/csrf-protected.decorator.js';
import { CsrfTokenManager } from '../../security/csrf/csrf-token-manager.js';
import { CurrentUser } from '../../security/current-user.decorator.js';
import type { AuthenticatedUser } from '../../security/security-context.js';
import { CurrentSession } from '../../session/current-session.decorator.js';
import type { Session } from '../../session/session.js';
import { AddLineDto } from './add-line.dto.js';
import { CartService, cartOwner, type CartView } from './cart.service.js';
import { parseProductId } from './product-id.js';
import { UpdateLineDto } from './update-line.dto.js';

/** The cart as the JSON API returns it; `csrfToken` goes back in the X-CSRF-Token header of unsafe requests. */
export interface CartJson {
  lines: Array<{
    productId: number;
    slug: string;
    name: string;
    unitPriceCents: number;
    quantity: number;
    lineTotalCents: number;
  }>;
  subtotalCents: number;
  shippingCents: number;
  totalCents: number;
  itemCount: number;
  csrfToken: string;
}

/**
 * The cart for scripts: the same service as the pages. Unsafe methods need the `cart` CSRF token in X-CSRF-Token
 * (403 otherwise); a body that fails validation, or asks for more than the stock, is a 400 problem+json listing
 * the violations (clients send `Accept: application/json`); an unknown product or line is a 404.
 */
@Controller('api/cart')
export class CartApiController {
  constructor(
    private readonly cart: CartService,
    private readonly tokens: CsrfTokenManager,
  ) {}

  @Get()
  @RouteName('api_cart_show')
  async show(@CurrentUser() user: AuthenticatedUser | null, @CurrentSession() session: Session): Promise<CartJson> {
    return this.json(await this.cart.view(cartOwner(user, session)), session);
  }

  @Post('lines')
  @RouteName('api_cart_add')
  @CsrfProtected('cart')
  @HttpCode(201)
  async add(
    @Body() dto: AddLineDto,
    @CurrentUser() user: AuthenticatedUser | null,
    @CurrentSession() session: Session,
  ): Promise<CartJson> {
    const change = await this.cart.add(cartOwner(user, session), dto.productId, dto.quantity);
    return this.json(change.cart, session);
  }

  @Patch('lines/:productId')
  @RouteName('api_cart_update')
  @CsrfProtected('cart')
  async update(
    @Param('productId') productId: string,
    @Body() dto: UpdateLineDto,
    @CurrentUser() user: AuthenticatedUser | null,
    @CurrentSession() session: Session,
  ): Promise<CartJson> {
    const change = await this.cart.update(cartOwner(user, session), parseProductId(productId), dto.quantity);
    return this.json(change.cart, session);
  }

  @Delete('lines/:productId')
  @RouteName('api_cart_remove')
  @CsrfProtected('cart')
  async remove(
    @Param('productId') productId: string,
    @CurrentUser() user: AuthenticatedUser | null,
    @CurrentSession() session: Session,
  ): Promise<CartJson> {
    const change = await this.cart.remove(cartOwner(user, session), parseProductId(productId));
    return this.json(change.cart, session);
  }

  private json(cart: CartView, session: Session): CartJson {
    return {
      lines: cart.lines.map(({ productId, slug, name, unitPriceCents, quantity, lineTotalCents }) => ({
        productId,
        slug,
        name,
        unitPriceCents,
        quantity,
        lineTotalCents,
      })),
      subtotalCents: cart.subtotalCents,
      shippingCents: cart.shippingCents,
      totalCents: cart.totalCents,
      itemCount: cart.itemCount,
      csrfToken: this.tokens.token(session, 'cart'),
    };
  }
}
