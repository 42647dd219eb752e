import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { DebugAccess } from '../../lifecycle/debug-access.js';
import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';
import { ResourceNotFoundException } from '../../lifecycle/exceptions/resource-not-found.exception.js';
import { contextOf } from '../../lifecycle/kernel-symbols.js';
import { noRouteMessage } from '../../lifecycle/routing/no-route-found.js';
import { ProfilerService } from '../profiler.service.js';

/**
 * The check every profiler route makes first (its own and other modules', such as the Database panel's EXPLAIN):
 * with the profiler off, or for a client not allowed to see debug details (DebugAccess), the route does not exist.
 * DebugAccess refuses every request a page of another origin makes, so no such page can read or act through a
 * developer's browser either.
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
}

/** A posted form's fields (an empty object for a body that is not one). */
export function formFields(body: unknown): Record<string, unknown> {
  return (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
}
