import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { ServiceUnavailableHttpException } from '../exceptions/service-unavailable-http.exception.js';
import { KernelListener } from '../kernel-listener.decorator.js';
import { KernelEvents, type RequestEvent } from '../kernel.events.js';
import { MaintenanceMode } from '../maintenance/maintenance-mode.js';

/**
 * Maintenance-mode check, last of kernel.request: while MAINTENANCE is on or the maintenance file exists, every
 * matched route answers 503 with Retry-After, except the profiler's and the debug toolbar's, so that what
 * happens during maintenance can still be inspected.
 */
@Injectable()
export class MaintenanceListener {
  constructor(
    private readonly maintenance: MaintenanceMode,
    private readonly config: AppConfig,
  ) {}

  @KernelListener(KernelEvents.REQUEST, { priority: -16 })
  onKernelRequest(event: RequestEvent): void {
    if (!this.maintenance.isEnabled()) return;
    const route = event.request.attributes._route ?? '';
    if (route.startsWith('_profiler') || route.startsWith('_wdt') || event.request.pathInfo.startsWith('/_profiler')) return;
    throw new ServiceUnavailableHttpException(this.config.maintenance.retryAfter, 'The shop is closed for maintenance. Please come back in a few minutes.');
  }
}
