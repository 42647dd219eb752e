import { Controller, Get, Render } from '@nestjs/common';
import { sql } from 'kysely';
import { ShopDb } from '../../database/shop-db.js';
import type { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { RequestAttribute } from '../../lifecycle/request-attribute.decorator.js';
import { RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { IsGranted } from '../../security/access/is-granted.decorator.js';
import { UserRepository } from '../../users/user.repository.js';
import { formatPrice } from '../catalogue/catalogue-format.js';

/** The back office's front page: figures of the shop and the products running out. Administrators only. */
@Controller('admin')
export class AdminController {
  constructor(
    private readonly db: ShopDb,
    private readonly users: UserRepository,
  ) {}

  @Get()
  @RouteName('admin_dashboard')
  @IsGranted('ROLE_ADMIN')
  @Render('shop/accounts/admin')
  async dashboard(@RequestAttribute() request: KernelRequest): Promise<object> {
    const [users, orders, lowStock] = await Promise.all([
      this.users.count(),
      this.db
        .selectFrom('orders')
        .select((eb) => [
          eb.fn.countAll<number>().as('count'),
          sql<number>`coalesce(sum(${sql.ref('total_cents')}), 0)`.as('revenue'),
        ])
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('products')
        .select(['slug', 'name', 'stock'])
        .where('stock', '<=', 5)
        .orderBy('stock')
        .orderBy('name')
        .limit(20)
        .execute(),
    ]);
    return {
      title: 'Back office – Shopkernel',
      locale: request.locale,
      figures: { users, orders: Number(orders.count), revenue: formatPrice(Number(orders.revenue)) },
      lowStock,
    };
  }
}
