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
  /** Each handler's `@Paginated` options (null: none), read once: decorators do not change at run time. */
  private readonly optionsByHandler = new WeakMap<object, PaginationOptions | null>();

  constructor(private readonly table: RouteTable) {}

  @KernelListener(KernelEvents.REQUEST, { priority: 4 })
  onKernelRequest(event: RequestEvent): void {
    const request = event.request;
    const name = request.attributes._route;
    const handler = name ? this.table.routes.get(name)?.handler : undefined;
    if (!handler) return;
    let options = this.optionsByHandler.get(handler);
    if (options === undefined) {
      options = (Reflect.getMetadata(PAGINATED_METADATA, handler) as PaginationOptions | undefined) ?? null;
      this.optionsByHandler.set(handler, options);
    }
    if (!options) return;
    request.attributes._pagination = readPagination(request.raw.query as Record<string, unknown>, options);
  }
}
