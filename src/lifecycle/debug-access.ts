import { Injectable } from '@nestjs/common';
import proxyAddr from 'proxy-addr';
import { AppConfig } from '../config/app-config.js';
import type { KernelRequest } from './http/kernel-request.js';
import { remembered } from './remembered.js';

const DECIDED = Symbol('debug access decided');

/**
 * Who may see debug details: the profiler's pages, the toolbar, the X-Debug-Token headers, the debug error page and
 * the exception chain in error responses. Only in debug mode, and only for clients whose address is in
 * PROFILER_ALLOWED_IPS (default: loopback and private ranges). The address is the trusted-proxy aware client IP, so a
 * forged X-Forwarded-For from a peer that is not a trusted proxy changes nothing. Everyone else gets what a
 * production instance answers: plain 404s for the profiler, generic error pages.
 */
@Injectable()
export class DebugAccess {
  private readonly allowedAddress: (address: string) => boolean;

  constructor(private readonly config: AppConfig) {
    let trust: (address: string, i: number) => boolean;
    try {
      trust = proxyAddr.compile(config.profiler.allowedIps);
    } catch (error) {
      throw new Error(`PROFILER_ALLOWED_IPS: ${(error as Error).message} (addresses, CIDR ranges, loopback, linklocal or uniquelocal).`);
    }
    // A verdict per address: a development instance sees a handful of clients, and proxy-addr parses the address
    // on every call. Bounded, so a flood of distinct addresses costs the parse again, never memory.
    const verdicts = new Map<string, boolean>();
    const judge = (address: string) => address !== '' && trust(address, 0);
    this.allowedAddress = (address) => remembered(verdicts, address, judge, 256);
  }

  allows(request: KernelRequest): boolean {
    if (!this.config.debug) return false;
    const attributes = request.attributes as Record<symbol, unknown>;
    let decided = attributes[DECIDED] as boolean | undefined;
    if (decided === undefined) {
      decided = this.allowedAddress(request.clientIp);
      attributes[DECIDED] = decided;
    }
    return decided;
  }
}
