import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { APP_OPTIONS, configureApp, createHttpAdapter } from './app.factory.js';
import { AppModule } from './app.module.js';
import { AppConfig } from './config/app-config.js';
import { ProcessCrashHandler } from './lifecycle/crash/process-crash.handler.js';
import { maskDsn } from './profiler/storage/postgres/postgres-dsn.js';
import { ProfilerStorageOpenError } from './profiler/storage/profiler-storage-open.error.js';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, createHttpAdapter(), APP_OPTIONS);
  configureApp(app);
  // SIGTERM/SIGINT: the server stops taking connections, answers those in flight, then every buffered profile is
  // written (ProfilerService) and the process exits 0; re-raising the signal would report a crash instead.
  app.enableShutdownHooks([], { useProcessExit: true });
  const config = app.get(AppConfig);
  await app.listen(config.port, config.host);
  // An uncaught exception or unhandled rejection is logged and the buffered profiles written before the exit.
  app.get(ProcessCrashHandler).install();
  const base = `http://${config.host}:${config.port}`;
  process.stdout.write(`Shopkernel (${config.env}${config.debug ? ', debug' : ''}) listening on ${base}\n`);
  if (config.profiler.enabled)
    process.stdout.write(`Profiler: ${base}/_profiler/ (store: ${maskDsn(config.profiler.dsn)})\n`);
}

// A profile store that cannot be opened is one line naming it and the cause: its stack would only say where it was
// noticed. Anything else keeps Node's report of an unhandled rejection, stack included.
bootstrap().catch((error: unknown) => {
  if (!(error instanceof ProfilerStorageOpenError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
