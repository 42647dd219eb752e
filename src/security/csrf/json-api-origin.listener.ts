import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { AccessDeniedHttpException } from '../../lifecycle/exceptions/access-denied-http.exception.js';
import { UnsupportedMediaTypeHttpException } from '../../lifecycle/exceptions/unsupported-media-type-http.exception.js';
import { KernelListener } from '../../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ControllerEvent } from '../../lifecycle/kernel.events.js';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';
import { MATCHED_ROUTE } from '../../lifecycle/routing/route-match.js';
import { foreignSiteReason, nonJsonBodyReason } from './request-origin.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const API_PATH = /^\/api\//i;

/**
 * Cross-site request forgery on the JSON API (kernel.controller 16, before the CSRF token is checked): every
 * request that may change something (any method but GET, HEAD, OPTIONS) on a route under `/api/` must come from
 * this site (Sec-Fetch-Site, Origin; 403 otherwise) and carry JSON, if anything (415 otherwise). No page of another
 * site can send both, so no API handler depends on remembering a token: the JSON login included. The route, not
 * the path as sent, decides what is the API.
 */
@Injectable()
export class JsonApiOriginListener {
  constructor(
    private readonly config: AppConfig,
    private readonly logger: KernelLogger,
  ) {}

  @KernelListener(KernelEvents.CONTROLLER, { priority: 16 })
  onKernelController(event: ControllerEvent): void {
    const request = event.request;
    if (SAFE_METHODS.has(request.method)) return;
    const route = request.context.get(MATCHED_ROUTE)?.route;
    if (!route || !API_PATH.test(route.path)) return;
    const foreign = foreignSiteReason(request, this.config.cors.allowOrigins);
    if (foreign !== null) {
      this.logger.record(
        LogLevel.WARNING,
        'security',
        'A cross-site request to {route} was refused: {reason}',
        { route: route.name, reason: foreign },
        request.context,
      );
      throw new AccessDeniedHttpException(foreign);
    }
    const notJson = nonJsonBodyReason(request);
    if (notJson !== null) throw new UnsupportedMediaTypeHttpException(notJson);
  }
}
