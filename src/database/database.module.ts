import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { KernelLogger } from '../lifecycle/logging/kernel-logger.js';
import { ProfilerModule } from '../profiler/profiler.module.js';
import { openMigratedShopDb } from './database.factory.js';
import { DatabaseCollector } from './database.collector.js';
import { DatabaseShutdown } from './database-shutdown.js';
import { ShopDb } from './shop-db.js';
import { ExplainController } from './explain/explain.controller.js';
import { ExplainCsrf } from './explain/explain-csrf.js';
import { QueryExplainer } from './explain/query-explainer.js';

/**
 * The shop's data layer, for every feature module (global): inject `ShopDb`. Also the profiler's Database panel
 * (DatabaseCollector), fed by the QueryRecorder every query passes, and its EXPLAIN route (ExplainController).
 */
@Global()
@Module({
  // The profiler's SourceResolver (one cache of source maps and sources) maps query callers to TypeScript.
  imports: [ProfilerModule],
  controllers: [ExplainController],
  providers: [
    { provide: ShopDb, useFactory: openMigratedShopDb, inject: [AppConfig, KernelLogger] },
    DatabaseShutdown,
    DatabaseCollector,
    ExplainCsrf,
    QueryExplainer,
  ],
  exports: [ShopDb],
})
export class DatabaseModule {}
