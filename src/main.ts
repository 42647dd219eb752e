import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { APP_OPTIONS, configureApp, createHttpAdapter } from './app.factory.js';
import { AppModule } from './app.module.js';
import { AppConfig } from './config/app-config.js';
import { ConfigurationError } from './config/configuration.error.js';
import { ProcessCrashHandler } from './lifecycle/crash/process-crash.handler.js';
import { startUp } from './cli/start-up-failure.js';
import { maskDsn } from './profiler/storage/postgres/postgres-dsn.js';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, createHttpAdapter(), APP_OPTIONS);
  configureApp(app);
  // SIGTERM/SIGINT: the server stops taking connections, answers those in flight, then every buffered profile is
  // written (ProfilerService) and the process exits 0; re-raising the signal would report a crash instead.
  app.enableShutdownHooks([], { useProcessExit: true });
  const config = app.get(AppConfig);
  await app.listen(config.port, config.host).catch((error: unknown) => {
    throw cannotListen(error, config);
  });
  // An uncaught exception or unhandled rejection is logged and the buffered profiles written before the exit.
  app.get(ProcessCrashHandler).install();
  const base = `http://${config.host}:${config.port}`;
  process.stdout.write(`Shopkernel (${config.env}${config.debug ? ', debug' : ''}) listening on ${base}\n`);
  if (config.profiler.enabled)
    process.stdout.write(`Profiler: ${base}/_profiler/ (store: ${maskDsn(config.profiler.dsn)})\n`);
}

/** A port taken or not allowed, a host that is not this machine's: a mistake in PORT or HOST, not a defect. */
function cannotListen(error: unknown, config: AppConfig): unknown {
  const { code } = error as { code?: unknown };
  if (code === 'EADDRINUSE' || code === 'EACCES')
    return new ConfigurationError('PORT', `cannot listen on ${config.host}:${config.port} (${code})`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new ConfigurationError('HOST', `cannot listen on ${config.host}:${config.port} (${code})`);
  return error;
}

// A configuration mistake (a variable, a database or a profile store that cannot be opened) is one line naming the
// variable, with exit code 1.
await startUp(bootstrap);
