import { Body, Controller, Get, Post, Render, Res } from '@nestjs/common';
import type { Response } from 'express';
import { KernelHttpException } from '../../lifecycle/exceptions/kernel-http.exception.js';
import type { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { Paginated } from '../../lifecycle/pagination/paginated.decorator.js';
import { assertPageExists, type Pagination } from '../../lifecycle/pagination/pagination.js';
import { ConvertParam } from '../../lifecycle/param-conversion/convert-param.decorator.js';
import { RequestAttribute } from '../../lifecycle/request-attribute.decorator.js';
import { RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { validateForm } from '../../lifecycle/validate-form.js';
import { CsrfProtected } from '../../security/csrf/csrf-protected.decorator.js';
import { IsGranted } from '../../security/access/is-granted.decorator.js';
import { requireUser } from '../../security/security-context.js';
import { sessionOf } from '../../session/session-context.js';
import { formatPrice } from '../catalogue/catalogue-format.js';
import { CheckoutDto, COUNTRIES } from './checkout.dto.js';
import { AddressCheck } from './address-check.js';
import { CheckoutService } from './checkout.service.js';
import { OrderByReferenceConverter } from './order-by-reference.converter.js';
import { orderView } from './order-view.js';
import type { OrderWithLines } from './order.repository.js';
import { OrderRepository } from './order.repository.js';

export const ORDERS_PER_PAGE = 10;
const COUNTRY_OPTIONS = Object.entries(COUNTRIES).map(([code, name]) => ({ code, name }));

/** Checkout (behind the firewall), the order history and an order's page (the owner's only). */
@IsGranted('ROLE_USER')
@Controller()
export class OrdersController {
  constructor(
    private readonly checkout: CheckoutService,
    private readonly orders: OrderRepository,
    private readonly addresses: AddressCheck,
  ) {}

  @Get('checkout')
  @RouteName('checkout_show')
  async show(@RequestAttribute() request: KernelRequest, @Res() res: Response): Promise<void> {
    await this.renderCheckout(request, res, 200, { country: 'FR' }, {});
  }

  @Post('checkout')
  @RouteName('checkout_place')
  @CsrfProtected('checkout')
  async place(
    @RequestAttribute() request: KernelRequest,
    @Body() body: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const { value, errors } = await validateForm(CheckoutDto, body);
    const form = pickStrings(body, ['name', 'street', 'postcode', 'city', 'country']);
    if (Object.keys(errors).length > 0) return this.renderCheckout(request, res, 400, form, errors);
    const refused = await this.addresses.problems(value);
    if (Object.keys(refused).length > 0) return this.renderCheckout(request, res, 400, form, refused);
    try {
      const order = await this.checkout.placeOrder(requireUser(request.context), value);
      sessionOf(request.context).addFlash('success', `Thank you! Your order ${order.reference} has been placed.`);
      res.redirect(303, `/account/orders/${order.reference}`);
    } catch (error) {
      // An empty cart (400) or a product sold meanwhile (409): the page again, saying so.
      if (error instanceof KernelHttpException && (error.statusCode === 400 || error.statusCode === 409)) {
        return this.renderCheckout(request, res, error.statusCode, form, { cart: [error.message] });
      }
      throw error;
    }
  }

  @Get('account/orders')
  @RouteName('orders_history')
  @Paginated({ perPage: ORDERS_PER_PAGE })
  @Render('shop/orders/history')
  async history(
    @RequestAttribute() request: KernelRequest,
    @RequestAttribute('_pagination') pagination: Pagination,
  ): Promise<object> {
    const user = requireUser(request.context);
    const total = await this.orders.countForUser(user.id);
    const lastPage = assertPageExists(pagination, total);
    const orders = await this.orders.listForUser(user.id, pagination);
    return {
      title: 'Your orders – Shopkernel',
      locale: request.locale,
      total,
      countLabel: `${total} order${total === 1 ? '' : 's'}`,
      orders: orders.map(orderView),
      previous: pagination.page > 1 ? `/account/orders?page=${pagination.page - 1}` : null,
      next: pagination.page < lastPage ? `/account/orders?page=${pagination.page + 1}` : null,
      page: pagination.page,
      lastPage,
    };
  }

  @Get('account/orders/:reference')
  @RouteName('orders_show')
  @ConvertParam('order', OrderByReferenceConverter, { from: 'reference' })
  @Render('shop/orders/order')
  order(@RequestAttribute() request: KernelRequest, @RequestAttribute('order') order: OrderWithLines): object {
    return { title: `Order ${order.reference} – Shopkernel`, locale: request.locale, order: orderView(order) };
  }

  private async renderCheckout(
    request: KernelRequest,
    res: Response,
    status: number,
    form: Record<string, string>,
    errors: Record<string, string[]>,
  ): Promise<void> {
    const preview = await this.checkout.preview(requireUser(request.context).id);
    res.status(status).render('shop/orders/checkout', {
      title: 'Checkout – Shopkernel',
      locale: request.locale,
      empty: preview.lines.length === 0,
      lines: preview.lines.map((line) => ({
        name: line.name,
        href: `/products/${encodeURIComponent(line.slug)}`,
        unitPrice: formatPrice(line.price_cents),
        quantity: line.quantity,
        total: formatPrice(line.line_total_cents),
        available: line.available,
        stock: line.stock,
      })),
      subtotal: formatPrice(preview.subtotalCents),
      shipping: preview.shippingCents === 0 ? 'Free' : formatPrice(preview.shippingCents),
      total: formatPrice(preview.totalCents),
      form,
      countries: COUNTRY_OPTIONS.map((c) => ({ ...c, selected: c.code === form.country })),
      errors,
      failed: Object.keys(errors).length > 0,
    });
  }
}

function pickStrings(body: Record<string, unknown>, keys: string[]): Record<string, string> {
  return Object.fromEntries(keys.map((key) => [key, typeof body[key] === 'string' ? (body[key] as string) : '']));
}
