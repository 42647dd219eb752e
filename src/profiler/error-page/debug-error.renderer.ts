import { Injectable, OnModuleInit } from '@nestjs/common';
import hbs from 'hbs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STATUS_CODES } from 'node:http';
import { configure } from 'safe-stable-stringify';
import { AppConfig } from '../../config/app-config.js';
import { classOf, messageOf, problemViolations, statusOf } from '../../lifecycle/errors/exception-status.js';
import type { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { KernelResponse } from '../../lifecycle/http/kernel-response.js';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';
import { Profile } from '../profile.js';
import { ExceptionFlattener } from './exception-flattener.js';
import type { FlattenedException } from './flattened-exception.js';

const stringify = configure({ deterministic: false, circularValue: '[circular]', maximumDepth: 6, maximumBreadth: 50 });
const MAX_CONTEXT_CHARS = 4000;
const MAX_LOG_ENTRIES = 1000;

type Template = (context: object) => string;

/**
 * The debug error page (HTML) and the debug problem+json: the exception chain with source-mapped frames and code
 * excerpts, the request's logs, plain-text stack traces. The template is compiled once, at start-up. If
 * rendering fails, a minimal page with the same status is answered and the rendering error is logged.
 */
@Injectable()
export class DebugErrorRenderer implements OnModuleInit {
  private template?: Template;

  constructor(
    private readonly config: AppConfig,
    private readonly flattener: ExceptionFlattener,
    private readonly logger: KernelLogger,
  ) {}

  onModuleInit(): void {
    const source = readFileSync(join(this.config.projectDir, 'views', 'error', 'debug.hbs'), 'utf8');
    this.template = hbs.handlebars.compile(source);
  }

  render(throwable: unknown, request: KernelRequest): KernelResponse {
    const status = statusOf(throwable);
    const headers = { 'Cache-Control': 'no-store' };
    try {
      const exceptions = this.flattener.flatten(throwable);
      if (request.prefersJson) return KernelResponse.json(this.problem(throwable, exceptions, status), status, headers, 'application/problem+json');
      return KernelResponse.html(this.html(exceptions, status, request), status, headers);
    } catch (error) {
      this.logger.record(LogLevel.CRITICAL, 'request', 'The error page could not be rendered: {message}', {
        message: `${classOf(error)}: ${messageOf(error)}`,
        exception: error,
      }, request.context);
      const text = `${status} ${STATUS_CODES[status] ?? 'Error'}`;
      return KernelResponse.html(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${text}</title></head><body><h1>${text}</h1><p>The error page could not be rendered; the error is in the logs.</p></body></html>\n`, status, headers);
    }
  }

  private problem(throwable: unknown, exceptions: FlattenedException[], status: number): Record<string, unknown> {
    const outer = exceptions[0];
    const violations = problemViolations(throwable);
    return {
      type: 'about:blank',
      title: STATUS_CODES[status] ?? 'Error',
      status,
      detail: outer?.message ?? '',
      ...(violations ? { violations } : {}),
      exceptions: exceptions.map((e) => ({
        class: e.class,
        message: e.message,
        frames: e.frames.map(({ function: fn, file, line, column, vendor }) => ({ function: fn, file, line, column, vendor })),
      })),
    };
  }

  private html(exceptions: FlattenedException[], status: number, request: KernelRequest): string {
    if (!this.template) this.onModuleInit();
    const outer = exceptions[0];
    const profile = Profile.of(request.context);
    const all = request.context.logs;
    // Counted over the whole log; a huge log shows its beginning and its end (where the uncaught exception is).
    const counts = { errors: 0, warnings: 0, deprecations: 0, debug: 0 };
    for (const entry of all) {
      if (entry.level >= LogLevel.ERROR) counts.errors++;
      else if (entry.level === LogLevel.WARNING) counts.warnings++;
      if (entry.channel === 'deprecation') counts.deprecations++;
      if (entry.level === LogLevel.DEBUG) counts.debug++;
    }
    const half = MAX_LOG_ENTRIES / 2;
    const omitted = Math.max(0, all.length - MAX_LOG_ENTRIES);
    const entries = omitted > 0 ? [...all.slice(0, half), ...all.slice(all.length - half)] : all;
    const logs = entries.map((entry, index) => ({
      omittedBefore: omitted > 0 && index === half ? omitted : 0,
      level: entry.levelName,
      levelClass: entry.levelName.toLowerCase(),
      channel: entry.channel,
      message: entry.message,
      time: new Date(entry.timestamp).toISOString().slice(11, 19),
      context: contextJson(entry.context),
    }));
    return this.template!({
      status,
      statusText: STATUS_CODES[status] ?? 'Error',
      message: outer?.message ?? '',
      classChain: [...exceptions].reverse().map((e) => e.class),
      exceptions,
      logs,
      logTotal: all.length,
      logCounts: counts,
      traces: exceptions.map(plainTrace),
      profileLink: profile ? `/_profiler/${profile.token}` : null,
      profileToken: profile?.token ?? null,
    });
  }
}

function contextJson(context: Record<string, unknown>): string {
  if (Object.keys(context).length === 0) return '';
  const json = stringify(context, (_key, value) => (value instanceof Error ? { class: value.constructor.name, message: value.message } : value), 2) ?? '';
  return json.length > MAX_CONTEXT_CHARS ? `${json.slice(0, MAX_CONTEXT_CHARS)}\n… (truncated)` : json;
}

function plainTrace(e: FlattenedException): string {
  const head = e.count > 1 ? `[${e.position}/${e.count}] ${e.class}: ${e.message}` : `${e.class}: ${e.message}`;
  return [head, ...e.frames.map((f) => `    at ${f.function} (${f.file}:${f.line}:${f.column})`)].join('\n');
}
