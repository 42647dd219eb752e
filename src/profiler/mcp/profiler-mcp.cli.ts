import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isMain } from '../../cli/command-line.js';
import { startUp } from '../../cli/start-up-failure.js';
import { AppConfig } from '../../config/app-config.js';
import { ProfilerMcpServer } from './profiler-mcp.server.js';

/**
 * `npm run profiler:mcp`: the profiler's MCP server on stdin and stdout, for assistants that start a command. It
 * reads the store PROFILER_DSN names (SQLite or PostgreSQL), as the application does, without serving HTTP; its
 * answers link to the pages of the application at HOST and PORT. Standard output carries the protocol, so every
 * log line goes to standard error. Resolves with the exit status once the client has gone.
 */
export async function serveOverStdio(): Promise<number> {
  process.env.LOG_OUTPUT = 'stderr';
  // The application itself, initialised but not listening: its collectors read and present stored profiles as the
  // panels do, and the kernel needs its HTTP adapter even when nothing is served.
  const { AppModule } = await import('../../app.module.js');
  const { APP_OPTIONS, configureApp, createHttpAdapter } = await import('../../app.factory.js');
  const app = await NestFactory.create<NestExpressApplication>(AppModule, createHttpAdapter(), APP_OPTIONS);
  configureApp(app);
  await app.init();
  const config = app.get(AppConfig);
  if (!config.profiler.enabled) {
    process.stderr.write('The profiler is off (APP_DEBUG=0 or PROFILER_ENABLED=0): there is nothing to serve.\n');
    await app.close();
    return 1;
  }
  const server = await app.get(ProfilerMcpServer).create({ baseUrl: `http://${config.host}:${config.port}` });
  const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
  await server.connect(new StdioServerTransport());
  await closed;
  await app.close();
  return 0;
}

// A configuration mistake is one line naming the variable, as the application's own start says it.
if (isMain(import.meta.url)) process.exitCode = await startUp(serveOverStdio);
