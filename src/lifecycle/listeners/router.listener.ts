import { Injectable } from '@nestjs/common';
import { DebugAccess } from '../debug-access.js';
import { MalformedRequestException } from '../exceptions/malformed-request.exception.js';
import { MethodNotAllowedHttpException } from '../exceptions/method-not-allowed-http.exception.js';
import { MethodNotAllowedException } from '../exceptions/method-not-allowed.exception.js';
import { ResourceNotFoundException } from '../exceptions/resource-not-found.exception.js';
import { noRouteMessage } from '../routing/no-route-found.js';
import { NotFoundHttpException } from '../exceptions/not-found-http.exception.js';
import type { KernelRequest } from '../http/kernel-request.js';
import { KernelListener } from '../kernel-listener.decorator.js';
import { KernelEvents, type FinishRequestEvent, type RequestEvent } from '../kernel.events.js';
import { KernelLogger } from '../logging/kernel-logger.js';
import { LogLevel } from '../logging/log-level.js';
import { REDIRECT_CONTROLLER } from '../routing/native-controllers.js';
import { MATCHED_ROUTE, type RouteMatch } from '../routing/route-match.js';
import { RouteTable } from '../routing/route-table.js';
import { ROUTER_CONTEXT } from '../routing/url-generator.js';

const MATCHED = 'Matched route "{route}".';

/**
 * Route matching, during kernel.request (Symfony's RouterListener): sets `_route`, `_controller`,
 * `_route_params` and each parameter as request attributes and logs `Matched route`; turns the matcher's
 * failures into the 404 and 405 HTTP exceptions, with their exact messages and the matcher's exception as cause.
 * It matches the path as sent (`pathInfo`: case-sensitive, still percent-encoded), the one path every path rule
 * (the firewall's access map, the profiler's paths, PROFILER_EXCLUDED_PATHS) decides on. Debug-only routes (the
 * profiler's) are left out for a client not allowed to see debug details.
 */
@Injectable()
export class RouterListener {
  constructor(
    private readonly table: RouteTable,
    private readonly logger: KernelLogger,
    private readonly access: DebugAccess,
  ) {}

  @KernelListener(KernelEvents.REQUEST, { priority: 32 })
  onKernelRequest(event: RequestEvent): void {
    const request = event.request;
    this.setCurrentRequest(request);
    if (request.attributes._controller !== undefined) return;
    const path = request.pathInfo;
    if (path.includes('%')) assertPercentEncoding(path);
    let match: RouteMatch;
    try {
      match = this.table.matcher.match(path, request.method, this.access.allows(request));
    } catch (error) {
      if (error instanceof ResourceNotFoundException) throw new NotFoundHttpException(noRouteMessage(request), error);
      if (error instanceof MethodNotAllowedException) {
        const allow = error.allowedMethods.join(', ');
        throw new MethodNotAllowedHttpException(
          error.allowedMethods,
          `No route found for "${request.method} ${request.maskedUri}": Method Not Allowed (Allow: ${allow})`,
          error,
        );
      }
      throw error;
    }
    const parameters =
      match.redirectTo === undefined ? this.routeParameters(match) : this.redirectParameters(match, request);
    this.logger.record(
      LogLevel.INFO,
      'request',
      MATCHED,
      {
        route: match.route.name,
        route_parameters: parameters,
        request_uri: request.maskedUri,
        method: request.method,
      },
      request.context,
    );
    const routeParams: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(parameters))
      if (name !== '_route' && name !== '_controller') routeParams[name] = value;
    Object.assign(request.attributes, parameters);
    request.attributes._route_params = routeParams;
    if (match.redirectTo === undefined) request.context.set(MATCHED_ROUTE, match);
  }

  /** The request's scheme and host no longer drive URL generation once its response is made (Symfony's order). */
  @KernelListener(KernelEvents.FINISH_REQUEST, { priority: 0 })
  onKernelFinishRequest(event: FinishRequestEvent): void {
    event.request.context.set(ROUTER_CONTEXT, null);
  }

  private setCurrentRequest(request: KernelRequest): void {
    request.context.set(ROUTER_CONTEXT, { scheme: request.scheme, httpHost: request.httpHost });
  }

  private routeParameters(match: RouteMatch): Record<string, unknown> {
    return { _route: match.route.name, _controller: match.route.controller, ...match.params };
  }

  /** What Symfony's redirectable matcher returns for a trailing-slash redirect, key order included. */
  private redirectParameters(match: RouteMatch, request: KernelRequest): Record<string, unknown> {
    const port = Number(/:(\d+)$/.exec(request.httpHost)?.[1] ?? (request.isSecure ? 443 : 80));
    return {
      _controller: REDIRECT_CONTROLLER,
      path: match.redirectTo,
      permanent: true,
      scheme: null,
      httpPort: request.isSecure ? 80 : port,
      httpsPort: request.isSecure ? port : 443,
      _route: match.route.name,
    };
  }
}

/** Every `%` must start a valid escape and the escapes must decode as UTF-8. */
function assertPercentEncoding(path: string): void {
  try {
    decodeURIComponent(path);
  } catch {
    throw new MalformedRequestException(`The path "${path}" is not valid percent-encoded UTF-8.`);
  }
}
