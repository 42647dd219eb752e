import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { DebugAccess } from '../../lifecycle/debug-access.js';
import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';
import { ResourceNotFoundException } from '../../lifecycle/exceptions/resource-not-found.exception.js';
import { AccessDeniedHttpException } from '../../lifecycle/exceptions/access-denied-http.exception.js';
import { foreignSiteReason } from '../../security/csrf/request-origin.js';
import { contextOf } from '../../lifecycle/kernel-symbols.js';
import { noRouteMessage } from '../../lifecycle/routing/no-route-found.js';
import { ProfilerService } from '../profiler.service.js';

/**
 * The check every profiler route makes first (its own and other modules', such as the Database panel's EXPLAIN):
 * with the profiler off, or for a client not allowed to see debug details (DebugAccess), the route does not exist.
 */
@Injectable()
export class ProfilerGate {
  constructor(
    private readonly profiler: ProfilerService,
    private readonly access: DebugAccess,
  ) {}

  /** The router's own 404, word for word, unless the profiler is on and the client allowed. */
  ensureEnabled(req: Request): void {
    const request = contextOf(req)!.request;
    if (this.profiler.enabled && this.access.allows(request)) return;
    const path = request.pathInfo;
    throw new NotFoundHttpException(
      noRouteMessage(request),
      new ResourceNotFoundException(`No routes found for "${path.endsWith('/') ? path : `${path}/`}".`),
    );
  }

  /**
   * For the routes that act (a form of the profiler's pages, the MCP endpoint): ensureEnabled, then a 403 for a
   * browser page of another site (Origin, Sec-Fetch-Site), so that a page a developer visits cannot act through
   * their browser.
   */
  ensureSameSite(req: Request): void {
    this.ensureEnabled(req);
    const foreign = foreignSiteReason(contextOf(req)!.request, []);
    if (foreign !== null) throw new AccessDeniedHttpException(foreign);
  }
}

/** A posted form's fields (an empty object for a body that is not one). */
export function formFields(body: unknown): Record<string, unknown> {
  return (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
}
