import { Injectable } from '@nestjs/common';
import { ErrorRenderer } from '../errors/error-renderer.js';
import { classOf, messageOf, statusOf } from '../errors/exception-status.js';
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
@Injectable()
export class ErrorListener {
  constructor(
    private readonly renderer: ErrorRenderer,
    private readonly logger: KernelLogger,
  ) {}

  @KernelListener(KernelEvents.EXCEPTION, { priority: 0 })
  logKernelException(event: ExceptionEvent): void {
    // Whoever renders the error page, its response must not carry the failed controller's policy.
    event.request.attributes[REMOVE_CSP] = true;
    const error = event.throwable;
    const status = statusOf(error);
    const { file, line } = throwLocation(error);
    this.logger.record(status >= 500 ? LogLevel.CRITICAL : LogLevel.ERROR, 'request', 'Uncaught Exception {class}: "{message}" at {file} line {line}', {
      class: classOf(error),
      message: messageOf(error),
      file,
      line,
      exception: error,
    }, event.request.context);
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
}

/** Where a throwable was thrown: the first frame of its stack (the error page maps it through source maps). */
function throwLocation(error: unknown): { file: string; line: number } {
  const stack = error instanceof Error ? error.stack ?? '' : '';
  const frame = /\n\s+at (?:.*? \()?(.+?):(\d+):\d+\)?/.exec(stack);
  return frame ? { file: frame[1].replace(/^file:\/\//, ''), line: Number(frame[2]) } : { file: 'unknown', line: 0 };
}
