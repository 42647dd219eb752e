import { Injectable } from '@nestjs/common';
import type { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { ParamConverter } from '../../lifecycle/param-conversion/param-converter.js';
import { requireUser } from '../../security/security-context.js';
import { isOrderReference } from './order-reference.js';
import { OrderRepository, type OrderWithLines } from './order.repository.js';

/**
 * `:reference` → the logged-in customer's order with that reference. Another customer's order does not exist for
 * them (404, not 403: references are not confirmed to strangers).
 */
@Injectable()
export class OrderByReferenceConverter extends ParamConverter<OrderWithLines> {
  constructor(private readonly orders: OrderRepository) {
    super();
  }

  async convert(reference: string, request: KernelRequest): Promise<OrderWithLines | undefined> {
    const user = requireUser(request.context);
    if (!isOrderReference(reference)) return undefined;
    return this.orders.byReferenceForUser(reference, user.id);
  }

  notFoundMessage(reference: string): string {
    return `Order "${reference}" not found.`;
  }
}
