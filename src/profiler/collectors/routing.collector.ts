import { Injectable } from '@nestjs/common';
import type { KernelContext } from '../../lifecycle/kernel-context.js';
import { exceptionChain, classOf, messageOf, statusOf } from '../../lifecycle/errors/exception-status.js';
import { DebugAccess } from '../../lifecycle/debug-access.js';
import { RouteTable } from '../../lifecycle/routing/route-table.js';
import { DataCollector, type PanelBadge } from './data-collector.js';
import { Redactor } from '../../lifecycle/redaction/redactor.js';

export interface RoutingData {
  method: string;
  path: string;
  route: string | null;
  routePath: string | null;
  params: Record<string, unknown>;
  controller: string | null;
  /** Where the router sent a path that matched only with its trailing slash toggled. */
  redirectTo: string | null;
  /** Whether the client could see the debug-only routes (the profiler's); for one who could not they were skipped. */
  debugVisible: boolean;
  /** Why no route matched (the router's exceptions), when none did. */
  failure: { status: number; messages: { class: string; message: string }[] } | null;
}

/** The matched route and its parameters, or why none matched; the panel replays the matching over every route. */
@Injectable()
export class RoutingCollector extends DataCollector<RoutingData> {
  readonly name = 'routing';
  readonly label = 'Routing';
  override readonly priority = 250;
  override readonly deferrable = true;

  constructor(
    private readonly table: RouteTable,
    private readonly access: DebugAccess,
  ) {
    super();
  }

  override lateCollect(context: KernelContext): RoutingData {
    const request = context.request;
    const attributes = request.attributes;
    const name = attributes._route ?? null;
    const route = name ? this.table.routes.get(name) : undefined;
    const status = context.exception === undefined ? 0 : statusOf(context.exception);
    const routingFailed = name === null && (status === 404 || status === 405);
    return {
      method: request.method,
      path: request.pathInfo,
      route: name,
      routePath: route?.path ?? null,
      params: { ...(attributes._route_params ?? {}) },
      controller: attributes._controller ?? null,
      debugVisible: this.access.allows(request),
      redirectTo:
        attributes._controller?.startsWith('RedirectController::') && typeof attributes._route_params?.path === 'string'
          ? attributes._route_params.path
          : null,
      failure: routingFailed
        ? {
            status,
            messages: exceptionChain(context.exception).map((e) => ({
              class: classOf(e),
              message: Redactor.text(messageOf(e)),
            })),
          }
        : null,
    };
  }

  override badge(data: RoutingData): PanelBadge | null {
    return data.route ? null : { text: 'none', kind: 'warning' };
  }

  override panel(data: RoutingData): object {
    const traces = this.table.matcher.trace(data.path, data.method, data.debugVisible ?? true).map((t, i) => ({
      ...t,
      index: i + 1,
      methods: t.methods.length ? t.methods.join(', ') : 'ANY',
      matches: t.result === 'matches',
      almost: t.result === 'method does not match',
      hidden: t.result === 'hidden from this client',
    }));
    return {
      ...data,
      paramsList: Object.entries(data.params).map(([key, value]) => ({ key, value: JSON.stringify(value) })),
      traces,
      routeCount: this.table.routes.all().length,
    };
  }
}
