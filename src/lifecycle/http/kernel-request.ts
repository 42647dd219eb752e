import type { Request } from 'express';
import parseurl from 'parseurl';
import type { KernelContext } from '../kernel-context.js';
import { Redactor } from '../redaction/redactor.js';

/** Request attributes the kernel and its listeners set, Symfony's names. */
export interface RequestAttributes {
  _route?: string;
  _controller?: string;
  _route_params?: Record<string, unknown>;
  _locale?: string;
  [name: string]: unknown;
}

/**
 * The kernel's view of one request: the Express request plus the attributes that listeners set (route,
 * controller, route parameters, locale). Values derived from headers are computed once, when first asked for.
 */
export class KernelRequest {
  readonly attributes: RequestAttributes = {};
  locale: string;
  defaultLocale: string;
  private cachedUri?: string;
  private cachedMaskedUri?: string;
  // Express recomputes req.ip, req.protocol and req.host on every read (proxy-addr, the trust function, header
  // parsing), and a request reads them a dozen times (validation, routing, the profiler, the toolbar, links):
  // computed once, as Symfony's Request does.
  private cachedClientIp?: string;
  private cachedScheme?: string;
  private cachedRawHost?: string;

  constructor(
    readonly raw: Request,
    readonly context: KernelContext,
    defaultLocale: string,
    /**
     * Whether some peer is a trusted proxy (TRUSTED_PROXIES). Without one, Express's req.ip, req.protocol and req.host
     * reduce to the socket's address, its encryption and the Host field: read directly (Express would parse
     * X-Forwarded-For and run its trust function to find that out).
     */
    private readonly trustsProxies = true,
  ) {
    this.locale = defaultLocale;
    this.defaultLocale = defaultLocale;
  }

  get method(): string {
    return this.raw.method;
  }

  /** The path as sent (percent-encoded), without the query string. */
  get pathInfo(): string {
    return parsedTarget(this.raw)?.pathname ?? '/';
  }

  get queryString(): string | null {
    const search = parsedTarget(this.raw)?.search;
    return search ? search.slice(1) : null;
  }

  /** The client's address; X-Forwarded-For counts only when the peer is a trusted proxy (TRUSTED_PROXIES). */
  get clientIp(): string {
    if (this.cachedClientIp === undefined) {
      const ip = (this.trustsProxies ? this.raw.ip : undefined) ?? this.raw.socket?.remoteAddress ?? '';
      this.cachedClientIp = ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
    }
    return this.cachedClientIp;
  }

  /** `http` or `https`; X-Forwarded-Proto counts only from a trusted proxy. */
  get scheme(): string {
    return (this.cachedScheme ??= this.trustsProxies
      ? this.raw.protocol
      : (this.raw.socket as { encrypted?: boolean } | undefined)?.encrypted
        ? 'https'
        : 'http');
  }

  get isSecure(): boolean {
    return this.scheme === 'https';
  }

  /** Host and port as the client named them (Host, or X-Forwarded-Host from a trusted proxy), default port dropped. */
  get httpHost(): string {
    const host = this.rawHost;
    if (!host) return '';
    const port = this.scheme === 'https' ? ':443' : ':80';
    return host.endsWith(port) ? host.slice(0, -port.length) : host;
  }

  /** The host as received, before any validation: ValidateRequestListener decides whether to believe it. */
  get rawHost(): string {
    if (this.cachedRawHost === undefined) {
      const host = this.trustsProxies ? (this.raw as Request & { host?: string }).host : this.raw.headers.host;
      const socket = this.raw.socket;
      this.cachedRawHost =
        host || (socket?.localAddress ? `${socket.localAddress.replace(/^::ffff:/, '')}:${socket.localPort}` : '');
    }
    return this.cachedRawHost;
  }

  get schemeAndHttpHost(): string {
    return `${this.scheme}://${this.httpHost}`;
  }

  /** The absolute URL of the request, query string included. */
  get uri(): string {
    if (this.cachedUri === undefined) {
      const url = parsedTarget(this.raw);
      this.cachedUri = `${this.schemeAndHttpHost}${url?.pathname ?? '/'}${url?.search ?? ''}`;
    }
    return this.cachedUri;
  }

  /** `uri` with its secrets masked (`Redactor.url`): what the log, the profile and the pages show, worked out once. */
  get maskedUri(): string {
    this.cachedMaskedUri ??= Redactor.url(this.uri);
    return this.cachedMaskedUri;
  }

  header(name: string): string | undefined {
    const value = this.raw.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  get isXmlHttpRequest(): boolean {
    return this.raw.headers['x-requested-with'] === 'XMLHttpRequest';
  }

  /**
   * Whether the client prefers JSON to HTML (Accept negotiation). An absent Accept means HTML, except under `/api/`,
   * whose clients are scripts.
   */
  get prefersJson(): boolean {
    const accept = this.raw.headers.accept;
    if (!accept) return this.pathInfo.startsWith('/api/');
    if (accept.includes('text/html')) return false;
    return this.raw.accepts(['html', 'json']) === 'json';
  }

  get routeName(): string | undefined {
    return this.attributes._route;
  }
}

/**
 * The request-target parsed (parseurl keeps it on the request); undefined when it is not a URL at all (an
 * absolute-form target such as `http://[::1`), which ValidateRequestListener answers with a 400: whatever reads the
 * request meanwhile (the error page, the profiler) sees the path `/`.
 */
export function parsedTarget(raw: Request): ReturnType<typeof parseurl> {
  try {
    return parseurl(raw);
  } catch {
    return undefined;
  }
}
