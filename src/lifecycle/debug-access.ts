import { ConfigurationError } from '../config/configuration.error.js';
import { Injectable } from '@nestjs/common';
import proxyAddr from 'proxy-addr';
import { AppConfig } from '../config/app-config.js';
import { debugHostRule, hostName } from './debug-hosts.js';
import { isCrossOrigin, isTopLevelNavigation } from './http/cross-origin.js';
import type { KernelRequest } from './http/kernel-request.js';
import { KernelLogger } from './logging/kernel-logger.js';
import { LogLevel } from './logging/log-level.js';
import { remembered } from './remembered.js';

const DECIDED = Symbol('debug access decided');
const CLIENT_DECIDED = Symbol('debug client decided');

/**
 * Who may see debug details: the profiler's pages, the toolbar, the X-Debug-Token headers, the debug error page and
 * the exception chain in error responses. Only in debug mode, only for clients whose address is in
 * PROFILER_ALLOWED_IPS (default: loopback and private ranges), and only under a Host the debug tools answer for
 * (`debugHostRule`: loopback names, IP addresses, the HOST the server listens on, PROFILER_ALLOWED_HOSTS). The
 * address is the trusted-proxy aware client IP, so a forged X-Forwarded-For from a peer that is not a trusted proxy
 * changes nothing. And never for a request a page of another origin made (`isCrossOrigin`): whatever CORS shares,
 * debug data stays with the developer's own origin. Everyone else gets what a production instance answers: plain
 * 404s for the profiler, generic error pages.
 */
@Injectable()
export class DebugAccess {
  private readonly allowedAddress: (address: string) => boolean;
  private readonly allowedHost: (host: string) => boolean;
  /** Host names already reported as refused, so that a developer is told once per name, not once per request. */
  private readonly reportedHosts = new Set<string>();

  constructor(
    private readonly config: AppConfig,
    private readonly logger: KernelLogger,
  ) {
    let trust: (address: string, i: number) => boolean;
    try {
      trust = proxyAddr.compile(config.profiler.allowedIps);
    } catch (error) {
      throw new ConfigurationError(
        'PROFILER_ALLOWED_IPS',
        `${(error as Error).message} (addresses, CIDR ranges, loopback, linklocal or uniquelocal).`,
      );
    }
    // A verdict per address: a development instance sees a handful of clients, and proxy-addr parses the address
    // on every call. Bounded, so a flood of distinct addresses costs the parse again, never memory.
    const verdicts = new Map<string, boolean>();
    const judge = (address: string) => address !== '' && trust(address, 0);
    this.allowedAddress = (address) => remembered(verdicts, address, judge, 256);
    const hostVerdicts = new Map<string, boolean>();
    // The name the server listens on (HOST) is the developer's own, as an address would be.
    const hostRule = debugHostRule([...config.profiler.allowedHosts, config.host.toLowerCase()]);
    this.allowedHost = (host) => remembered(hostVerdicts, host, hostRule, 256);
  }

  /** Whether this response may carry debug data: every debug output asks this, and only this. */
  allows(request: KernelRequest): boolean {
    if (!this.config.debug) return false;
    const attributes = request.attributes as Record<symbol, unknown>;
    let decided = attributes[DECIDED] as boolean | undefined;
    if (decided === undefined) {
      decided = this.allowsClient(request) && (!isCrossOrigin(request) || isTopLevelNavigation(request));
      attributes[DECIDED] = decided;
    }
    return decided;
  }

  /**
   * Whether the client and Host are the developer's, whichever page made the request: for them the profiler's
   * paths get no CORS header at all, so that no page of another origin is ever told it may read them.
   */
  allowsClient(request: KernelRequest): boolean {
    if (!this.config.debug) return false;
    const attributes = request.attributes as Record<symbol, unknown>;
    let decided = attributes[CLIENT_DECIDED] as boolean | undefined;
    if (decided === undefined) {
      decided = this.allowedAddress(request.clientIp) && this.hostAllowed(request);
      attributes[CLIENT_DECIDED] = decided;
    }
    return decided;
  }

  private hostAllowed(request: KernelRequest): boolean {
    const host = request.httpHost;
    if (this.allowedHost(host)) return true;
    const name = hostName(host);
    if (!this.reportedHosts.has(name) && this.reportedHosts.size < 64) {
      this.reportedHosts.add(name);
      this.logger.record(
        LogLevel.WARNING,
        'security',
        'The debug tools are hidden from the host "{host}" (a protection against DNS rebinding): list it in PROFILER_ALLOWED_HOSTS to use them there.',
        { host: name },
        request.context,
      );
    }
    return false;
  }
}
