import { Redactor } from '../redaction/redactor.js';
import type { KernelRequest } from '../http/kernel-request.js';

/**
 * The router's 404 message: `No route found for "GET http://…"`, with ` (from "<referer>")` when the request has
 * one. Only the message is shared: the exception is thrown where the failure is, so the error page points there.
 * Both URLs are masked here, where they are known to be URLs: the message is printed, stored and shown.
 */
export function noRouteMessage(request: KernelRequest): string {
  const referer = request.header('referer');
  return `No route found for "${request.method} ${request.maskedUri}"${referer ? ` (from "${Redactor.url(referer)}")` : ''}`;
}
