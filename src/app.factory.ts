import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { AppConfig } from './config/app-config.js';
import { handleClientErrors } from './lifecycle/http/client-error.handler.js';
import { KernelHttpAdapter } from './lifecycle/kernel-http.adapter.js';
import { KernelLogger } from './lifecycle/logging/kernel-logger.js';
import { ProfilerInterceptor } from './profiler/profiler.interceptor.js';

/**
 * Options every Shopkernel application is created with: the kernel reads bodies itself, after routing. A failure to
 * start is thrown to the caller (the start-up handler prints it as one line) instead of Nest printing its stack and
 * exiting: Nest's logs stay buffered until configureApp gives them the kernel's logger.
 */
export const APP_OPTIONS = { bodyParser: false, bufferLogs: true, autoFlushLogs: false, abortOnError: false } as const;

export function createHttpAdapter(): KernelHttpAdapter {
  return new KernelHttpAdapter();
}

/** What main.ts and the e2e tests both do to an application before init(): logger, views, server limits. */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get(AppConfig);
  limitHttpServer(app.getHttpServer(), config);
  app.useLogger(app.get(KernelLogger));
  app.flushLogs();
  // Only a profiling application has an interceptor: Nest runs every request of a route with one through an rxjs
  // chain, which cost the profiler-off application a sixth of its throughput for nothing.
  if (config.profiler.enabled) app.useGlobalInterceptors(app.get(ProfilerInterceptor));
  app.setBaseViewsDir(join(config.projectDir, 'views'));
  app.setViewEngine('hbs');
  app.set('view options', { layout: 'layouts/main' });
  // Compiled pages are kept in every mode (Express turns its cache on only for NODE_ENV=production): compiling a page
  // on every request tripled its cost in development. There ShopViews empties the caches when a view changes.
  app.set('view cache', true);
  return app;
}

/**
 * Node's HTTP server options that come from the configuration. Nest's ExpressAdapter creates its server with
 * `http.createServer(app)`, without options, when the application is constructed (before AppConfig can be read
 * from the container); `http.createServer({ maxHeaderSize })` only stores the option on the server, which reads it
 * for each new connection, so setting it before listen() is the same. A header section over it (request line
 * included) never reaches the kernel: handleClientErrors answers it (414 or 431), as every request Node cannot parse.
 */
function limitHttpServer(server: Server, config: AppConfig): void {
  // Node reads it per connection but @types/node declares it only as a createServer() option.
  (server as Server & { maxHeaderSize?: number }).maxHeaderSize = config.maxHeaderSize;
  handleClientErrors(server, config);
}
