import type { NestExpressApplication } from '@nestjs/platform-express';
import hbs from 'hbs';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
  registerPartials(join(config.projectDir, 'views', 'partials'));
  return app;
}

/**
 * views/partials/**\/*.hbs as partials (`shop/price.hbs` is `{{> shop/price}}`), read once at start. Not hbs's own
 * registerPartials: it reads asynchronously and queues the renders asked for meanwhile, which then run outside
 * their request's AsyncLocalStorage context (the CSRF and flash helpers need it).
 */
function registerPartials(dir: string, prefix = ''): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) registerPartials(join(dir, entry.name), `${prefix}${entry.name}/`);
    else if (entry.name.endsWith('.hbs')) hbs.registerPartial(`${prefix}${entry.name.slice(0, -4)}`.replace(/-/g, '_'), readFileSync(join(dir, entry.name), 'utf8'));
  }
}
