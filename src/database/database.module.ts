import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { KernelLogger } from '../lifecycle/logging/kernel-logger.js';
import { SourceResolver } from '../profiler/error-page/source-resolver.js';
import { openMigratedShopDb } from './database.factory.js';
import { DatabaseCollector } from './database.collector.js';
import { DatabaseShutdown } from './database-shutdown.js';
import { ShopDb } from './shop-db.js';

/**
 * The shop's data layer, for every feature module (global): inject `ShopDb`. Also the profiler's Database panel
 * (DatabaseCollector), fed by the QueryRecorder every query passes.
 */
@Global()
@Module({
  providers: [
    { provide: ShopDb, useFactory: openMigratedShopDb, inject: [AppConfig, KernelLogger] },
    DatabaseShutdown,
    SourceResolver,
    DatabaseCollector,
  ],
  exports: [ShopDb],
})
export class DatabaseModule {}
