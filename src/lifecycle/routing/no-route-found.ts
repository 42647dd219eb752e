import type { KernelRequest } from '../http/kernel-request.js';

/**
 * The router's 404 message: `No route found for "GET http://…"`, with ` (from "<referer>")` when the request has
 * one. Only the message is shared: the exception is thrown where the failure is, so the error page points there.
 */
export function noRouteMessage(request: KernelRequest): string {
  const referer = request.header('referer');
  return `No route found for "${request.method} ${request.uri}"${referer ? ` (from "${referer}")` : ''}`;
}
