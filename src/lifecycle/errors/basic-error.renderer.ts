import { Injectable } from '@nestjs/common';
import escapeHtml from 'escape-html';
import { STATUS_CODES } from 'node:http';
import { DebugAccess } from '../debug-access.js';
import type { KernelRequest } from '../http/kernel-request.js';
import { KernelResponse } from '../http/kernel-response.js';
import { ErrorRenderer } from './error-renderer.js';
import {
  classOf,
  clientMessageOf,
  exceptionChain,
  messageOf,
  problemViolations,
  statusOf,
} from './exception-status.js';

/**
 * Errors as RFC 9457 problem+json for clients that prefer JSON, else as a small HTML page. In debug mode (for clients allowed to see debug
 * details: DebugAccess) both name the exception chain (classes and messages); outside it they say only the status, and what is for the
 * client rather than an internal: which fields failed validation, and the message of a malformed request (`clientMessageOf`).
 */
@Injectable()
export class BasicErrorRenderer extends ErrorRenderer {
  constructor(private readonly access: DebugAccess) {
    super();
  }

  render(throwable: unknown, request: KernelRequest): KernelResponse {
    const debug = this.access.allows(request);
    const status = statusOf(throwable);
    const title = STATUS_CODES[status] ?? 'Error';
    const chain = exceptionChain(throwable);
    const violations = problemViolations(throwable);
    const clientMessage = debug ? undefined : clientMessageOf(throwable);
    // An error page is never worth indexing, in any mode.
    const headers = { 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' };
    if (request.prefersJson) {
      const problem: Record<string, unknown> = {
        type: 'about:blank',
        title,
        status,
        detail: debug ? messageOf(throwable) : (clientMessage ?? title),
      };
      if (violations) problem.violations = violations;
      if (debug) problem.exceptions = chain.map((e) => ({ class: classOf(e), message: messageOf(e) }));
      return KernelResponse.json(problem, status, headers, 'application/problem+json');
    }
    const heading = `${status} ${title}`;
    const body = debug
      ? chain
          .map(
            (e, i) =>
              `<li>[${chain.length - i}/${chain.length}] <b>${escapeHtml(classOf(e))}</b>: ${escapeHtml(messageOf(e))}</li>`,
          )
          .join('')
      : clientMessage !== undefined
        ? `<li>${escapeHtml(clientMessage)}</li>`
        : `<li>The server returned a "${escapeHtml(heading)}".</li>`;
    const list =
      violations && !debug
        ? violations.map((v) => `<li>${escapeHtml(v.property)}: ${escapeHtml(v.messages.join('; '))}</li>`).join('')
        : '';
    const html =
      `<!DOCTYPE html><html lang="${escapeHtml(request.locale)}"><head><meta charset="utf-8"><meta name="robots" content="noindex,nofollow">` +
      `<title>${escapeHtml(debug ? `${messageOf(throwable)} (${heading})` : heading)}</title></head>` +
      `<body><h1>${escapeHtml(heading)}</h1><ul>${body}${list}</ul></body></html>\n`;
    return KernelResponse.html(html, status, headers);
  }
}
