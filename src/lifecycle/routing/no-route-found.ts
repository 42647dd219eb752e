import { NotFoundHttpException } from '../exceptions/not-found-http.exception.js';
import type { ResourceNotFoundException } from '../exceptions/resource-not-found.exception.js';
import type { KernelRequest } from '../http/kernel-request.js';

/** The router's 404: `No route found for "GET http://…"`, with ` (from "<referer>")` when the request has one. */
export function noRouteFound(request: KernelRequest, cause: ResourceNotFoundException): NotFoundHttpException {
  const referer = request.header('referer');
  return new NotFoundHttpException(`No route found for "${request.method} ${request.uri}"${referer ? ` (from "${referer}")` : ''}`, cause);
}
