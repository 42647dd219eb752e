import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import type { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { ValidationFailedException } from '../../lifecycle/exceptions/validation-failed.exception.js';
import { Paginated } from '../../lifecycle/pagination/paginated.decorator.js';
import { assertPageExists, type Pagination } from '../../lifecycle/pagination/pagination.js';
import { ConvertParam } from '../../lifecycle/param-conversion/convert-param.decorator.js';
import { RequestAttribute } from '../../lifecycle/request-attribute.decorator.js';
import { RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { CsrfProtected } from '../../security/csrf/csrf-protected.decorator.js';
import { IsGranted } from '../../security/access/is-granted.decorator.js';
import { requireUser } from '../../security/security-context.js';
import { CheckoutDto } from './checkout.dto.js';
import { AddressCheck } from './address-check.js';
import { CheckoutService } from './checkout.service.js';
import { OrderByReferenceConverter } from './order-by-reference.converter.js';
import { orderJson } from './order-view.js';
import { OrderRepository, type OrderWithLines } from './order.repository.js';

/** Checkout and orders as JSON: the same rules as the pages (the firewall answers 401 to anonymous clients). */
@IsGranted('ROLE_USER')
@Controller('api')
export class OrdersApiController {
  constructor(
    private readonly checkout: CheckoutService,
    private readonly orders: OrderRepository,
    private readonly addresses: AddressCheck,
  ) {}

  @Post('checkout')
  @RouteName('api_checkout')
  @CsrfProtected('checkout')
  @HttpCode(201)
  async place(@RequestAttribute() request: KernelRequest, @Body() address: CheckoutDto): Promise<object> {
    const refused = await this.addresses.problems(address);
    if (Object.keys(refused).length > 0)
      throw new ValidationFailedException(
        Object.entries(refused).map(([property, messages]) => ({
          property,
          value: address[property as keyof CheckoutDto],
          constraints: Object.fromEntries(messages.map((message) => ['deliverable', message])),
        })),
      );
    const order = await this.checkout.placeOrder(requireUser(request.context), address);
    const placed = await this.orders.byReferenceForUser(order.reference, order.user_id);
    return { order: orderJson(placed!) };
  }

  @Get('orders')
  @RouteName('api_orders')
  @Paginated({ perPage: 10, maxLimit: 100 })
  async list(
    @RequestAttribute() request: KernelRequest,
    @RequestAttribute('_pagination') pagination: Pagination,
  ): Promise<object> {
    const user = requireUser(request.context);
    const total = await this.orders.countForUser(user.id);
    assertPageExists(pagination, total);
    const orders = await this.orders.listForUser(user.id, pagination);
    return { total, page: pagination.page, limit: pagination.limit, orders: orders.map(orderJson) };
  }

  @Get('orders/:reference')
  @RouteName('api_order')
  @ConvertParam('order', OrderByReferenceConverter, { from: 'reference' })
  order(@RequestAttribute('order') order: OrderWithLines): object {
    return { order: orderJson(order) };
  }
}
