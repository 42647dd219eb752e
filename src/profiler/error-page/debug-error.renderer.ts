import { Injectable, OnModuleInit } from '@nestjs/common';
import hbs from 'hbs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STATUS_CODES } from 'node:http';
import { AppConfig } from '../../config/app-config.js';
import { classOf, messageOf, problemViolations, statusOf } from '../../lifecycle/errors/exception-status.js';
import type { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { KernelResponse } from '../../lifecycle/http/kernel-response.js';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import { interpolate } from '../../lifecycle/logging/log-entry.js';
import { countLogs } from '../../lifecycle/logging/log-counts.js';
import { LOG_LEVEL_NAMES, LogLevel } from '../../lifecycle/logging/log-level.js';
import type { LogEntry } from '../../lifecycle/logging/log-entry.js';
import { NOTIFIED } from '../../lifecycle/event-dispatcher.js';
import { pathSegments, toJsonSafe } from '../collectors/json-safe.js';
import { Profile } from '../profile.js';
import { ExceptionFlattener } from './exception-flattener.js';
import { plainTrace } from './plain-trace.js';
import { registerExceptionFramesHelper } from './exception-frames.helper.js';
import { registerLogRowHelper, type LogRow } from './log-row.helper.js';
import type { FlattenedException } from './flattened-exception.js';
import { Redactor } from '../redaction/redactor.js';

const MAX_CONTEXT_CHARS = 4000;
const MAX_LOG_ENTRIES = 1000;

type Template = (context: object) => string;
interface LogRowText {
  message: string;
  context: string;
  /** The entry's shared context (see LogRow.shared). */
  shared?: object;
}

/**
 * The debug error page (HTML) and the debug problem+json: the exception chain with source-mapped frames and code
 * excerpts, the request's logs, plain-text stack traces. The template is compiled once, at start-up. If
 * rendering fails, a minimal page with the same status is answered and the rendering error is logged.
 */
@Injectable()
export class DebugErrorRenderer implements OnModuleInit {
  private template?: Template;
  private chainCss = '';
  private readonly notificationRows = new WeakMap<object, LogRowText>();

  constructor(
    private readonly config: AppConfig,
    private readonly flattener: ExceptionFlattener,
    private readonly logger: KernelLogger,
  ) {}

  onModuleInit(): void {
    const dir = join(this.config.projectDir, 'views', 'error');
    // Its own Handlebars environment: the exception chain partial is shared with the profiler's Exception panel.
    const handlebars = hbs.create().handlebars;
    handlebars.registerPartial('exception-chain', readFileSync(join(dir, 'partials', 'exception-chain.hbs'), 'utf8'));
    registerExceptionFramesHelper(handlebars, join(dir, 'partials'));
    registerLogRowHelper(handlebars, join(dir, 'partials'));
    this.chainCss = readFileSync(join(dir, 'partials', 'exception-chain.css'), 'utf8');
    this.template = handlebars.compile(readFileSync(join(dir, 'debug.hbs'), 'utf8'));
  }

  render(throwable: unknown, request: KernelRequest): KernelResponse {
    const status = statusOf(throwable);
    const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
    try {
      const exceptions = this.flattener.flatten(throwable);
      Object.assign(headers, debugHeaders(exceptions[0]));
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

  /**
   * A log row's message and context as shown: secrets masked in the message as in the context (the same rules as
   * the profiler's). The kernel's `Notified event` entries share one frozen context per listener and no secret, so
   * their text is worked out once per listener (most rows of most error pages).
   */
  private rowText(entry: LogEntry, visible: ReadonlySet<string>): LogRowText {
    const shared = entry.template === NOTIFIED && Object.isFrozen(entry.context);
    const cached = shared ? this.notificationRows.get(entry.context) : undefined;
    if (cached) return cached;
    const context = toJsonSafe(entry.context, { maxDepth: 6, maxBreadth: 50, visible }) as Record<string, unknown>;
    const text: LogRowText = { message: interpolate(Redactor.text(entry.template), context), context: contextJson(context) };
    if (shared) {
      text.shared = entry.context;
      this.notificationRows.set(entry.context, text);
    }
    return text;
  }

  private html(exceptions: FlattenedException[], status: number, request: KernelRequest): string {
    if (!this.template) this.onModuleInit();
    const outer = exceptions[0];
    const profile = Profile.of(request.context);
    const all = request.context.logs;
    // Counted over the whole log; a huge log shows its beginning and its end (where the uncaught exception is).
    const counts = countLogs(all);
    const half = MAX_LOG_ENTRIES / 2;
    const omitted = Math.max(0, all.length - MAX_LOG_ENTRIES);
    const entries = omitted > 0 ? [...all.slice(0, half), ...all.slice(all.length - half)] : all;
    const visible = pathSegments(request.pathInfo);
    const clock = new ClockFormat();
    const logs = entries.map((entry, index): LogRow & { omittedBefore: number } => {
      const { message, context, shared } = this.rowText(entry, visible);
      return {
        omittedBefore: omitted > 0 && index === half ? omitted : 0,
        level: entry.levelName,
        levelClass: LEVEL_CLASSES[entry.level] ?? entry.levelName.toLowerCase(),
        channel: entry.channel,
        message,
        time: clock.format(entry.timestamp),
        context,
        shared,
      };
    });
    return this.template!({
      status,
      statusText: STATUS_CODES[status] ?? 'Error',
      message: outer?.message ?? '',
      classChain: [...exceptions].reverse().map((e) => e.class),
      exceptions,
      logs,
      logTotal: all.length,
      chainCss: this.chainCss,
      logCounts: counts,
      traces: exceptions.map(plainTrace),
      profileLink: profile ? `/_profiler/${profile.token}` : null,
      profileToken: profile?.token ?? null,
    });
  }
}

/** `HH:MM:SS` (UTC) of a log entry; most entries of a request share their second, so the last one is kept. */
class ClockFormat {
  private second = Number.NaN;
  private text = '';

  format(timestamp: number): string {
    const second = Math.floor(timestamp / 1000);
    if (second !== this.second) {
      this.second = second;
      this.text = new Date(timestamp).toISOString().slice(11, 19);
    }
    return this.text;
  }
}

const LEVEL_CLASSES: Partial<Record<LogLevel, string>> = Object.fromEntries(Object.entries(LOG_LEVEL_NAMES).map(([level, name]) => [level, name.toLowerCase()]));

/**
 * Symfony's X-Debug-Exception (the outer message) and X-Debug-Exception-File (where it was thrown), percent-encoded,
 * so that an API client sees the failure without the page. Secrets in the message (a URL's `?token=`) are masked:
 * headers travel further than pages (proxies' logs, the profile's Response panel).
 */
function debugHeaders(outer: FlattenedException | undefined): Record<string, string> {
  if (!outer) return {};
  const headers: Record<string, string> = { 'X-Debug-Exception': encodeURIComponent(Redactor.text(outer.message)) };
  const frame = outer.frames[0];
  if (frame) headers['X-Debug-Exception-File'] = `${encodeURIComponent(frame.file)}:${frame.line}`;
  return headers;
}

function contextJson(context: Record<string, unknown>): string {
  if (Object.keys(context).length === 0) return '';
  const json = JSON.stringify(context, null, 2);
  return json.length > MAX_CONTEXT_CHARS ? `${json.slice(0, MAX_CONTEXT_CHARS)}\n… (truncated)` : json;
}
