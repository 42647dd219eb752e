import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { ServiceUnavailableHttpException } from '../exceptions/service-unavailable-http.exception.js';
import { KernelListener } from '../kernel-listener.decorator.js';
import { KernelEvents, type RequestEvent } from '../kernel.events.js';
import { MaintenanceMode } from '../maintenance/maintenance-mode.js';
import { DebugAccess } from '../debug-access.js';
import { RouteTable } from '../routing/route-table.js';

/**
 * Maintenance-mode check, last of kernel.request: while MAINTENANCE is on or the maintenance file exists, every
 * matched route answers 503 with Retry-After, except the debug routes (the profiler's) for the clients who may see
 * them, so that what happens during maintenance can still be inspected.
 */
@Injectable()
export class MaintenanceListener {
  constructor(
    private readonly maintenance: MaintenanceMode,
    private readonly config: AppConfig,
    private readonly access: DebugAccess,
    private readonly table: RouteTable,
  ) {}

  @KernelListener(KernelEvents.REQUEST, { priority: -16 })
  onKernelRequest(event: RequestEvent): void {
    if (!this.maintenance.isEnabled()) return;
    const request = event.request;
    if (this.access.allows(request) && this.table.matcher.isDebugPath(request.pathInfo)) return;
    throw new ServiceUnavailableHttpException(
      this.config.maintenance.retryAfter,
      'The shop is closed for maintenance. Please come back in a few minutes.',
    );
  }
}
