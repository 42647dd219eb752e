import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { APP_OPTIONS, configureApp, createHttpAdapter } from './app.factory.js';
import { AppModule } from './app.module.js';
import { AppConfig } from './config/app-config.js';
import { maskDsn } from './profiler/storage/postgres/postgres-dsn.js';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, createHttpAdapter(), APP_OPTIONS);
  configureApp(app);
  // SIGTERM/SIGINT: the server stops taking connections, answers those in flight, then every buffered profile is
  // written (ProfilerService) and the process exits 0; re-raising the signal would report a crash instead.
  app.enableShutdownHooks([], { useProcessExit: true });
  const config = app.get(AppConfig);
  await app.listen(config.port, config.host);
  const base = `http://${config.host}:${config.port}`;
  process.stdout.write(`Shopkernel (${config.env}${config.debug ? ', debug' : ''}) listening on ${base}\n`);
  if (config.profiler.enabled) process.stdout.write(`Profiler: ${base}/_profiler/ (store: ${maskDsn(config.profiler.dsn)})\n`);
}

void bootstrap();
