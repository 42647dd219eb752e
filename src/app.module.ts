import { Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { ProfilerMcpModule } from './profiler/mcp/profiler-mcp.module.js';
import { ProfilerModule } from './profiler/profiler.module.js';
import { SecurityModule } from './security/security.module.js';
import { SessionModule } from './session/session.module.js';
import { AccountsModule } from './shop/accounts/accounts.module.js';
import { CartModule } from './shop/cart/cart.module.js';
import { CatalogueModule } from './shop/catalogue/catalogue.module.js';
import { OrdersModule } from './shop/orders/orders.module.js';
import { HomeModule } from './shop/home/home.module.js';
import { ViewsModule } from './views/views.module.js';

@Module({
  imports: [
    ConfigModule,
    LifecycleModule,
    ProfilerMcpModule,
    ProfilerModule,
    DatabaseModule,
    SessionModule,
    SecurityModule,
    ViewsModule,
    HomeModule,
    CatalogueModule,
    AccountsModule,
    OrdersModule,
    CartModule,
  ],
})
export class AppModule {}
