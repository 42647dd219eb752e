import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { DebugAccess } from '../debug-access.js';
import type { KernelRequest } from '../http/kernel-request.js';
import { KernelResponse } from '../http/kernel-response.js';
import { RouteTable } from '../routing/route-table.js';
import { KernelListener } from '../kernel-listener.decorator.js';
import { KernelEvents, type RequestEvent, type ResponseEvent } from '../kernel.events.js';

/** Headers that carry debug data: a response shared with another origin never has them, so never names them. */
const DEBUG_HEADERS = new Set(['x-debug-token', 'x-debug-token-link', 'x-debug-exception', 'x-debug-exception-file']);

/**
 * Cross-origin handling (after NelmioCorsBundle): preflight requests are answered here, in kernel.request,
 * from configuration (CORS_*); actual cross-origin requests from an allowed origin get their
 * Access-Control-Allow-Origin in kernel.response. With no allowed origin configured, CORS is off; the debug routes
 * never get it, nor any response that carries debug data (DebugAccess already keeps that from other origins; this
 * keeps `*` off the developer's own pages too), and the debug token headers are never exposed.
 */
@Injectable()
export class CorsListener {
  constructor(
    private readonly config: AppConfig,
    private readonly access: DebugAccess,
    private readonly table: RouteTable,
  ) {}

  @KernelListener(KernelEvents.REQUEST, { priority: 250 })
  onKernelRequest(event: RequestEvent): void {
    const request = event.request;
    const origin = request.header('origin');
    if (!origin || request.method !== 'OPTIONS' || !request.header('access-control-request-method')) return;
    if (this.config.cors.allowOrigins.length === 0 || this.isDebugRequest(request)) return;
    event.setResponse(
      this.preflight(
        origin,
        request.header('access-control-request-method')!,
        request.header('access-control-request-headers'),
      ),
    );
  }

  @KernelListener(KernelEvents.RESPONSE, { priority: 0 })
  onKernelResponse(event: ResponseEvent): void {
    const origin = event.request.header('origin');
    const cors = this.config.cors;
    if (!origin || cors.allowOrigins.length === 0 || event.response.hasHeader('access-control-allow-origin')) return;
    if (!this.isAllowedOrigin(origin) || this.isDebugRequest(event.request) || this.access.allows(event.request))
      return;
    const response = event.response;
    response.setHeader('Access-Control-Allow-Origin', this.allowOriginValue(origin));
    if (cors.allowCredentials) response.setHeader('Access-Control-Allow-Credentials', 'true');
    const exposed = cors.exposeHeaders.filter((name) => !DEBUG_HEADERS.has(name.toLowerCase()));
    if (exposed.length > 0) response.setHeader('Access-Control-Expose-Headers', exposed.join(', '));
    if (this.allowOriginValue(origin) !== '*')
      appendVary(response.getHeader('vary'), 'Origin', (v) => response.setHeader('Vary', v));
  }

  private preflight(origin: string, method: string, requestHeaders: string | undefined): KernelResponse {
    const cors = this.config.cors;
    const vary = { Vary: 'Origin' };
    if (!this.isAllowedOrigin(origin)) {
      return new KernelResponse(`Origin "${origin}" is not allowed.\n`, 403, {
        'Content-Type': 'text/plain; charset=utf-8',
        ...vary,
      });
    }
    if (!cors.allowMethods.includes(method.toUpperCase())) {
      return new KernelResponse(`Method "${method}" is not allowed.\n`, 405, {
        'Content-Type': 'text/plain; charset=utf-8',
        Allow: cors.allowMethods.join(', '),
        ...vary,
      });
    }
    const allowedHeaders = new Set(cors.allowHeaders.map((h) => h.toLowerCase()));
    const asked = (requestHeaders ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter((h) => h !== '');
    const refused = asked.find((h) => !allowedHeaders.has(h.toLowerCase()) && !allowedHeaders.has('*'));
    if (refused) {
      return new KernelResponse(`Header "${refused}" is not allowed.\n`, 400, {
        'Content-Type': 'text/plain; charset=utf-8',
        ...vary,
      });
    }
    const headers: Record<string, string> = {
      'Access-Control-Allow-Origin': this.allowOriginValue(origin),
      'Access-Control-Allow-Methods': cors.allowMethods.join(', '),
      'Access-Control-Max-Age': String(cors.maxAge),
      ...vary,
    };
    if (asked.length > 0) headers['Access-Control-Allow-Headers'] = asked.join(', ');
    if (cors.allowCredentials) headers['Access-Control-Allow-Credentials'] = 'true';
    return new KernelResponse(undefined, 204, headers);
  }

  /**
   * The profiler's pages, exports and toolbar are never shared with another origin, whatever CORS_* allow: any page
   * a developer opens could otherwise read every profile. (For a client they are hidden from, those paths are
   * unknown paths, and answer as such.)
   */
  private isDebugRequest(request: KernelRequest): boolean {
    return this.access.allowsClient(request) && this.table.matcher.isDebugPath(request.pathInfo);
  }

  private isAllowedOrigin(origin: string): boolean {
    const allowed = this.config.cors.allowOrigins;
    return allowed.includes('*') || allowed.includes(origin);
  }

  /** `*` cannot be combined with credentials: then the origin itself is echoed. */
  private allowOriginValue(origin: string): string {
    const cors = this.config.cors;
    return cors.allowOrigins.includes('*') && !cors.allowCredentials ? '*' : origin;
  }
}

function appendVary(current: string | undefined, field: string, set: (value: string) => void): void {
  if (!current) return set(field);
  const fields = current.split(',').map((f) => f.trim().toLowerCase());
  if (!fields.includes(field.toLowerCase()) && !fields.includes('*')) set(`${current}, ${field}`);
}
