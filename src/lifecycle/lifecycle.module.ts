import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { BasicErrorRenderer } from './errors/basic-error.renderer.js';
import { ErrorRenderer } from './errors/error-renderer.js';
import { SourceMaps } from './errors/source-maps.js';
import { KernelEventDispatcher } from './event-dispatcher.js';
import { createEventDispatcher } from './traceable-event-dispatcher.js';
import { HttpKernel } from './http-kernel.js';
import { KernelExceptionFilter } from './kernel-exception.filter.js';
import { KernelListenerLoader } from './kernel-listener.loader.js';
import { CorsListener } from './listeners/cors.listener.js';
import { DebugHandlersListener } from './listeners/debug-handlers.listener.js';
import { DisallowRobotsIndexingListener } from './listeners/disallow-robots-indexing.listener.js';
import { ErrorListener } from './listeners/error.listener.js';
import { LocaleListener } from './listeners/locale.listener.js';
import { MaintenanceListener } from './listeners/maintenance.listener.js';
import { ResponseListener } from './listeners/response.listener.js';
import { RouterListener } from './listeners/router.listener.js';
import { ValidateRequestListener } from './listeners/validate-request.listener.js';
import { KernelLogger } from './logging/kernel-logger.js';
import { RedactionConfiguration } from './redaction/redaction-configuration.js';
import { HttpCacheListener } from './http-cache/http-cache.listener.js';
import { MaintenanceMode } from './maintenance/maintenance-mode.js';
import { PaginationListener } from './pagination/pagination.listener.js';
import { ControllerResolver } from './routing/controller-resolver.js';
import { NativeControllers } from './routing/native-controllers.js';
import { RouteTable } from './routing/route-table.js';
import { UrlGenerator } from './routing/url-generator.js';
import { createValidationPipe } from './validation.pipe.js';
import { DebugAccess } from './debug-access.js';
import { ProcessCrashHandler } from './crash/process-crash.handler.js';

/** The order of the kernel's listeners is their priorities (see docs/ARCHITECTURE.md), not this list. */
const LISTENERS = [
  DebugHandlersListener,
  ValidateRequestListener,
  CorsListener,
  LocaleListener,
  RouterListener,
  HttpCacheListener,
  MaintenanceListener,
  PaginationListener,
  ResponseListener,
  ErrorListener,
  DisallowRobotsIndexingListener,
];

/** The kernel: request lifecycle events, routing, per-request logs, error handling. */
@Global()
@Module({
  imports: [DiscoveryModule, EventEmitterModule.forRoot({ wildcard: false, maxListeners: 100 })],
  providers: [
    DebugAccess,
    KernelLogger,
    RedactionConfiguration,
    {
      provide: KernelEventDispatcher,
      useFactory: createEventDispatcher,
      inject: [EventEmitter2, KernelLogger],
    },
    KernelListenerLoader,
    HttpKernel,
    ProcessCrashHandler,
    NativeControllers,
    ControllerResolver,
    RouteTable,
    UrlGenerator,
    MaintenanceMode,
    SourceMaps,
    { provide: ErrorRenderer, useClass: BasicErrorRenderer },
    { provide: APP_FILTER, useClass: KernelExceptionFilter },
    { provide: APP_PIPE, useFactory: createValidationPipe },
    ...LISTENERS,
  ],
  exports: [
    DebugAccess,
    KernelLogger,
    KernelEventDispatcher,
    HttpKernel,
    ProcessCrashHandler,
    RouteTable,
    UrlGenerator,
    MaintenanceMode,
    NativeControllers,
    SourceMaps,
  ],
})
export class LifecycleModule {}
