// The bench's baseline: a bare NestJS 12 application on platform-express, with nothing of Shopkernel's. One
// controller answers GET / with a fixed HTML page of the same size as the shop's home page (read once at start from
// bench/baseline/page.html); any other path gets Nest's default 404. Built by the bench (`tsc -p bench/baseline`).
import 'reflect-metadata';
import { Controller, Get, Header, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { readFileSync } from 'node:fs';

const PAGE = readFileSync(new URL('../page.html', import.meta.url), 'utf8');

@Controller()
class PageController {
  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(): string {
    return PAGE;
  }
}

@Module({ controllers: [PageController] })
class BaselineModule {}

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(BaselineModule, { logger: ['error'] });
  const port = Number(process.env.PORT ?? 3100);
  const host = process.env.HOST ?? '127.0.0.1';
  await app.listen(port, host);
  process.stdout.write(`Baseline listening on http://${host}:${port}\n`);
}

void bootstrap();
