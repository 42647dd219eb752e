import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AppConfig } from '../config/app-config.js';
import { ConfigCollector } from './collectors/config.collector.js';
import { EventsCollector } from './collectors/events.collector.js';
import { ExceptionCollector } from './collectors/exception.collector.js';
import { LogsCollector } from './collectors/logs.collector.js';
import { MemoryCollector } from './collectors/memory.collector.js';
import { PerformanceCollector } from './collectors/performance.collector.js';
import { RequestCollector } from './collectors/request.collector.js';
import { ResponseCollector } from './collectors/response.collector.js';
import { RoutingCollector } from './collectors/routing.collector.js';
import { TemplatesCollector } from './collectors/templates.collector.js';
import { ProfilePage } from './controllers/profile-page.js';
import { ProfilerGate } from './controllers/profiler-gate.js';
import { SearchPage } from './controllers/search-page.js';
import { ProfilerController } from './controllers/profiler.controller.js';
import { DebugErrorListener } from './debug-error.listener.js';
import { DebugErrorRenderer } from './error-page/debug-error.renderer.js';
import { ExceptionFlattener } from './error-page/exception-flattener.js';
import { SourceResolver } from './error-page/source-resolver.js';
import { ProfilerInterceptor } from './profiler.interceptor.js';
import { ProfilerListener } from './profiler.listener.js';
import { ProfilerService } from './profiler.service.js';
import { ProfilerStorage } from './storage/profiler-storage.js';
import { ProfilerStores } from './storage/profiler-stores.js';
import { ConfigurationError } from '../config/configuration.error.js';
import { createProfilerStores } from './storage/storage-factory.js';
import { logStoreFailure } from './store-failure.js';
import { LocalTokenAllocator } from './tokens/local-token-allocator.js';
import { SharedTokenAllocator } from './tokens/shared-token-allocator.js';
import { TokenAllocator } from './tokens/token-allocator.js';
import { TokenStore } from './tokens/token-store.js';
import { KernelLogger } from '../lifecycle/logging/kernel-logger.js';
import { WebDebugToolbarListener } from './toolbar/web-debug-toolbar.listener.js';
import { ToolbarAssets } from './toolbar/toolbar-assets.js';
import { ToolbarRenderer } from './toolbar/toolbar-renderer.js';
import { RedirectTrail } from './redirects/redirect-trail.js';
import { ProfilerViews } from './views/profiler-views.js';
import { EditorLinks } from './editor/editor-links.js';
import { SourceIndex } from './editor/source-index.js';
import { SourceFilePage } from './controllers/source-file-page.js';
import { ComparisonController } from './comparison/comparison.controller.js';
import { ComparisonPage } from './comparison/comparison-page.js';
import { ProfileComparer } from './comparison/profile-comparer.js';
import { ReplayController } from './replay/replay.controller.js';
import { HttpClientCollector } from './http-client/http-client.collector.js';
import { HttpClientRecorder } from './http-client/http-client.recorder.js';
import { OtlpProfileExporter } from './otlp/otlp-profile-exporter.js';
import { ReplayForms } from './replay/replay-forms.js';
import { RequestReplayer } from './replay/request-replayer.js';

/** The collectors of the kernel's data; other modules add theirs by declaring them as providers. */
const COLLECTORS = [
  RequestCollector,
  ResponseCollector,
  ExceptionCollector,
  LogsCollector,
  EventsCollector,
  RoutingCollector,
  PerformanceCollector,
  MemoryCollector,
  TemplatesCollector,
  HttpClientCollector,
  ConfigCollector,
];

/** The request profiler (profiles, collectors, store, pages, toolbar) and the debug error page. */
@Module({
  imports: [DiscoveryModule],
  // The comparison's routes first: `/_profiler/compare` is its, not a token's.
  controllers: [ComparisonController, ReplayController, ProfilerController],
  providers: [
    SourceResolver,
    EditorLinks,
    SourceIndex,
    SourceFilePage,
    ExceptionFlattener,
    DebugErrorRenderer,
    DebugErrorListener,
    {
      provide: ProfilerStores,
      useFactory: storesFor,
      inject: [AppConfig],
    },
    { provide: ProfilerStorage, useFactory: (stores: ProfilerStores) => stores.storage, inject: [ProfilerStores] },
    { provide: TokenStore, useFactory: (stores: ProfilerStores) => stores.tokens, inject: [ProfilerStores] },
    {
      // A store other instances write too needs its tokens reserved and theirs polled; a private one does not.
      provide: TokenAllocator,
      useFactory: (stores: ProfilerStores, logger: KernelLogger) =>
        stores.shared
          ? new SharedTokenAllocator(stores.tokens, (error) => logStoreFailure(logger, error))
          : new LocalTokenAllocator(stores.tokens),
      inject: [ProfilerStores, KernelLogger],
    },
    ProfilerService,
    ProfilerListener,
    ProfilerViews,
    ProfilePage,
    ProfilerGate,
    SearchPage,
    WebDebugToolbarListener,
    ToolbarAssets,
    ToolbarRenderer,
    RedirectTrail,
    ProfilerInterceptor,
    ProfileComparer,
    ComparisonPage,
    ReplayForms,
    RequestReplayer,
    HttpClientRecorder,
    OtlpProfileExporter,
    ...COLLECTORS,
  ],
  exports: [
    ProfilerInterceptor,
    ExceptionFlattener,
    DebugErrorRenderer,
    ProfilerService,
    SourceResolver,
    ProfilerGate,
    ProfilePage,
    ProfilerViews,
    ProfileComparer,
  ],
})
export class ProfilerModule {}

/** The store PROFILER_DSN names; a DSN it cannot read (a bad schema name) is a mistake naming the variable. */
function storesFor(config: AppConfig): ProfilerStores {
  try {
    return createProfilerStores(config.profiler.dsn, { baseDir: config.projectDir });
  } catch (error) {
    throw new ConfigurationError(config.profiler.dsnVariable, (error as Error).message);
  }
}
