import { Injectable } from '@nestjs/common';
import { sep } from 'node:path';
import { AppConfig } from '../../config/app-config.js';
import { ErrorRenderer } from '../errors/error-renderer.js';
import { classOf, messageOf, statusOf } from '../errors/exception-status.js';
import { SourceMaps } from '../errors/source-maps.js';
import { stackFrames } from '../errors/stack-frames.js';
import { KernelListener } from '../kernel-listener.decorator.js';
import { KernelEvents, type ExceptionEvent, type ResponseEvent } from '../kernel.events.js';
import { KernelLogger } from '../logging/kernel-logger.js';
import { LogLevel } from '../logging/log-level.js';

const CSP_HEADERS = ['content-security-policy', 'content-security-policy-report-only', 'x-content-security-policy'];
const REMOVE_CSP = '_remove_csp_headers';

/**
 * Error handling (Symfony's ErrorListener): logs every uncaught throwable (ERROR for client errors, CRITICAL
 * for server errors), renders it into the response through the ErrorRenderer, and strips Content-Security-Policy
 * from the error page's response so that a policy set by the failed controller cannot break the page.
 */
/** The message of the entry an uncaught exception leaves in the request's log (Symfony's). */
export const UNCAUGHT_EXCEPTION = 'Uncaught Exception {class}: "{message}" at {file} line {line}';

@Injectable()
export class ErrorListener {
  constructor(
    private readonly renderer: ErrorRenderer,
    private readonly logger: KernelLogger,
    private readonly sourceMaps: SourceMaps,
    private readonly config: AppConfig,
  ) {}

  @KernelListener(KernelEvents.EXCEPTION, { priority: 0 })
  logKernelException(event: ExceptionEvent): void {
    // Whoever renders the error page, its response must not carry the failed controller's policy.
    event.request.attributes[REMOVE_CSP] = true;
    const error = event.throwable;
    const status = statusOf(error);
    const { file, line } = this.throwLocation(error);
    this.logger.record(
      status >= 500 ? LogLevel.CRITICAL : LogLevel.ERROR,
      'request',
      UNCAUGHT_EXCEPTION,
      {
        class: classOf(error),
        message: messageOf(error),
        file,
        line,
        exception: error,
      },
      event.request.context,
    );
  }

  @KernelListener(KernelEvents.EXCEPTION, { priority: -128 })
  onKernelException(event: ExceptionEvent): void {
    event.setResponse(this.renderer.render(event.throwable, event.request));
  }

  @KernelListener(KernelEvents.RESPONSE, { priority: -128 })
  removeCspHeader(event: ResponseEvent): void {
    if (event.request.attributes[REMOVE_CSP] !== true) return;
    for (const header of CSP_HEADERS) event.response.removeHeader(header);
  }

  /**
   * Where a throwable was thrown: the first frame of its stack, in the TypeScript the user wrote (a stack names the
   * compiled `dist/….js`; the error page's frames are mapped the same way), relative to the project when inside it.
   */
  private throwLocation(error: unknown): { file: string; line: number } {
    const frame = error instanceof Error ? /^\n\s+at (?:.*? \()?(.+?):(\d+):(\d+)\)?/.exec(stackFrames(error)) : null;
    if (!frame) return { file: 'unknown', line: 0 };
    const { file, line } = this.sourceMaps.locate(frame[1], Number(frame[2]), Number(frame[3]));
    const root = this.config.projectDir;
    return { file: file.startsWith(root + sep) ? file.slice(root.length + 1) : file, line };
  }
}
