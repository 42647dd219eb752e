import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { Migration } from 'kysely/migration';
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
import { registerMigrations } from './migrations/feature-migrations.js';

/**
 * The shop's data layer, for every feature module (global): inject `ShopDb`. Also the profiler's Database panel
 * (DatabaseCollector), fed by the QueryRecorder every query passes, and its EXPLAIN route (ExplainController). A
 * feature module brings its tables with `imports: [DatabaseModule.forFeature({ migrations })]`.
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
export class DatabaseModule {
  /**
   * A feature module's migrations (named after the module: `wishlist-0001-items`), run at start with the core's
   * and by `npm run db:migrate`. Its tables' types join `ShopDatabase` by declaration merging (docs/EXTENDING.md).
   */
  static forFeature(options: { migrations: Readonly<Record<string, Migration>> }): DynamicModule {
    registerMigrations(options.migrations);
    return { module: DatabaseFeatureModule };
  }
}

/** What `DatabaseModule.forFeature` returns: the migrations are registered, the global ShopDb is already there. */
@Module({})
class DatabaseFeatureModule {}
