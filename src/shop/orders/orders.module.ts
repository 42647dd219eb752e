import { Module } from '@nestjs/common';
import { ParamConversionModule } from '../../lifecycle/param-conversion/param-conversion.module.js';
import { AddressCheck } from './address-check.js';
import { CheckoutService } from './checkout.service.js';
import { OrderByReferenceConverter } from './order-by-reference.converter.js';
import { OrderRepository } from './order.repository.js';
import { OrdersApiController } from './orders-api.controller.js';
import { OrdersController } from './orders.controller.js';

/** Checkout (cart → order in one transaction, stock never below zero), order history and order pages. */
@Module({
  imports: [ParamConversionModule],
  controllers: [OrdersController, OrdersApiController],
  providers: [CheckoutService, AddressCheck, OrderRepository, OrderByReferenceConverter],
})
export class OrdersModule {}
