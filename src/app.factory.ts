import type { NestExpressApplication } from '@nestjs/platform-express';
import hbs from 'hbs';
import { join } from 'node:path';
import { AppConfig } from './config/app-config.js';
import { KernelHttpAdapter } from './lifecycle/kernel-http.adapter.js';
import { KernelLogger } from './lifecycle/logging/kernel-logger.js';

/** Options every Shopkernel application is created with: the kernel reads bodies itself, after routing. */
export const APP_OPTIONS = { bodyParser: false, bufferLogs: true } as const;

export function createHttpAdapter(): KernelHttpAdapter {
  return new KernelHttpAdapter();
}

/** What main.ts and the e2e tests both do to an application before init(): logger, views. */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get(AppConfig);
  app.useLogger(app.get(KernelLogger));
  app.setBaseViewsDir(join(config.projectDir, 'views'));
  app.setViewEngine('hbs');
  app.set('view options', { layout: 'layouts/main' });
  hbs.registerPartials(join(config.projectDir, 'views', 'partials'));
  return app;
}
