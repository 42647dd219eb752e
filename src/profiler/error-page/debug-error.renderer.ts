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
import { countLogs } from '../../lifecycle/logging/log-counts.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';
import { pathSegments } from '../collectors/json-safe.js';
import { Profile } from '../profile.js';
import { ExceptionFlattener } from './exception-flattener.js';
import { plainTraceHtml } from './plain-trace.js';
import { registerExceptionFramesHelper } from './exception-frames.helper.js';
import { LogTable } from './log-table.js';
import { errorMarkdown, requestSummary } from './error-summary.js';
import { requestLog } from '../../lifecycle/traceable-event-dispatcher.js';
import { escapeText } from '../collectors/log-message-html.js';
import { compactCss } from './compact-css.js';
import type { FlattenedException } from './flattened-exception.js';
import { Redactor } from '../../lifecycle/redaction/redactor.js';
import { EditorLinks } from '../editor/editor-links.js';
import { registerEditorHelpers } from '../editor/editor-helpers.js';
import { SourceIndex } from '../editor/source-index.js';

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
  private logTable?: LogTable;
  private css = '';

  constructor(
    private readonly config: AppConfig,
    private readonly flattener: ExceptionFlattener,
    private readonly logger: KernelLogger,
    private readonly links: EditorLinks,
    private readonly sources: SourceIndex,
  ) {}

  onModuleInit(): void {
    const dir = join(this.config.projectDir, 'views', 'error');
    // Its own Handlebars environment: the exception chain partial is shared with the profiler's Exception panel.
    const handlebars = hbs.create().handlebars;
    handlebars.registerPartial('exception-chain', readFileSync(join(dir, 'partials', 'exception-chain.hbs'), 'utf8'));
    registerEditorHelpers(handlebars, this.links, this.sources);
    registerExceptionFramesHelper(handlebars, join(dir, 'partials'), this.links);
    this.logTable = new LogTable(handlebars, join(dir, 'partials'), this.links);
    this.css = compactCss(
      ['debug-page.css', 'exception-chain.css']
        .map((file) => readFileSync(join(dir, 'partials', file), 'utf8'))
        .join('\n'),
    );
    this.template = handlebars.compile(readFileSync(join(dir, 'debug.hbs'), 'utf8'));
  }

  render(throwable: unknown, request: KernelRequest): KernelResponse {
    const status = statusOf(throwable);
    const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
    try {
      const exceptions = this.flattener.flatten(throwable);
      Object.assign(headers, debugHeaders(exceptions[0]));
      if (request.prefersJson)
        return KernelResponse.json(
          this.problem(throwable, exceptions, status),
          status,
          headers,
          'application/problem+json',
        );
      return KernelResponse.html(this.html(exceptions, status, request), status, headers);
    } catch (error) {
      this.logger.record(
        LogLevel.CRITICAL,
        'request',
        'The error page could not be rendered: {message}',
        {
          message: `${classOf(error)}: ${messageOf(error)}`,
          exception: error,
        },
        request.context,
      );
      const text = `${status} ${STATUS_CODES[status] ?? 'Error'}`;
      return KernelResponse.html(
        `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${text}</title></head><body><h1>${text}</h1><p>The error page could not be rendered; the error is in the logs.</p></body></html>\n`,
        status,
        headers,
      );
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
        frames: e.frames.map(({ function: fn, file, line, column, vendor }) => ({
          function: fn,
          file,
          line,
          column,
          vendor,
        })),
      })),
    };
  }

  private html(exceptions: FlattenedException[], status: number, request: KernelRequest): string {
    if (!this.template) this.onModuleInit();
    const outer = exceptions[0];
    const profile = Profile.of(request.context);
    const all = requestLog(request.context);
    // Counted over the whole log; a huge log shows its beginning and its end (where the uncaught exception is).
    const counts = countLogs(all);
    const half = MAX_LOG_ENTRIES / 2;
    const omitted = Math.max(0, all.length - MAX_LOG_ENTRIES);
    const entries = omitted > 0 ? [...all.slice(0, half), ...all.slice(all.length - half)] : all;
    const logRows = this.logTable!.render(entries, pathSegments(request.pathInfo), omitted > 0 ? half : -1, omitted);
    const summary = requestSummary(request);
    return this.template!({
      request: summary,
      markdown: escapeText(errorMarkdown(exceptions, summary, status, all, profile?.token ?? null)),
      classChainOuterFirst: exceptions.map((e) => `[${e.position}/${e.count}] ${e.class}`),
      status,
      statusText: STATUS_CODES[status] ?? 'Error',
      message: outer?.message ?? '',
      classChain: [...exceptions].reverse().map((e) => e.class),
      exceptions,
      logRows,
      logTotal: all.length,
      css: this.css,
      logCounts: counts,
      traces: exceptions.map(plainTraceHtml),
      profileLink: profile ? `/_profiler/${profile.token}` : null,
      profileToken: profile?.token ?? null,
    });
  }
}

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
