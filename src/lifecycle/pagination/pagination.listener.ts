import { Injectable } from '@nestjs/common';
import { KernelListener } from '../kernel-listener.decorator.js';
import { KernelEvents, type RequestEvent } from '../kernel.events.js';
import { RouteTable } from '../routing/route-table.js';
import { PAGINATED_METADATA, type PaginationOptions } from './paginated.decorator.js';
import { readPagination } from './pagination.js';

/**
 * The pagination step of kernel.request (after routing and the firewall's slot): for a route whose handler is
 * `@Paginated`, reads and validates `?page=` / `?limit=` into `request.attributes._pagination`; a malformed value
 * is a 400 before any controller runs. Whether the page exists is known only once the list is counted
 * (`assertPageExists`, a 404).
 */
@Injectable()
export class PaginationListener {
  constructor(private readonly table: RouteTable) {}

  @KernelListener(KernelEvents.REQUEST, { priority: 4 })
  onKernelRequest(event: RequestEvent): void {
    const request = event.request;
    const name = request.attributes._route;
    const handler = name ? this.table.routes.get(name)?.handler : undefined;
    const options: PaginationOptions | undefined = handler ? Reflect.getMetadata(PAGINATED_METADATA, handler) : undefined;
    if (!options) return;
    request.attributes._pagination = readPagination(request.raw.query as Record<string, unknown>, options);
  }
}
