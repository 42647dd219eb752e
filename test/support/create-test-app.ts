import type { DynamicModule, Provider, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { APP_OPTIONS, configureApp, createHttpAdapter } from '../../src/app.factory.js';
import { AppModule } from '../../src/app.module.js';
import { AppConfig, type AppConfigValues } from '../../src/config/app-config.js';

export interface TestAppOptions {
  env?: Record<string, string>;
  config?: Partial<AppConfigValues>;
  imports?: Array<Type | DynamicModule>;
  providers?: Provider[];
}

/**
 * The real application (AppModule), with test configuration and optional fixture modules, initialised. Each app
 * gets its own in-memory profile store unless the test names one. The tests' host name, `shop.test`, is one the
 * debug tools answer for (PROFILER_ALLOWED_HOSTS), as a developer would list the name their shop runs under.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<NestExpressApplication> {
  const config = AppConfig.fromEnv(
    {
      APP_ENV: 'test',
      APP_DEBUG: '1',
      PROFILER_ALLOWED_HOSTS: 'shop.test',
      PROFILER_DSN: 'sqlite::memory:',
      DATABASE_URL: 'sqlite::memory:',
      ...options.env,
    },
    options.config ?? {},
  );
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule, ...(options.imports ?? [])],
    providers: options.providers ?? [],
  })
    .overrideProvider(AppConfig)
    .useValue(config)
    .compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(createHttpAdapter(), APP_OPTIONS);
  configureApp(app);
  await app.init();
  return app;
}
