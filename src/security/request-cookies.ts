import { parseCookie } from 'cookie';
import type { KernelRequest } from '../lifecycle/http/kernel-request.js';

/** One cookie of the request; a Cookie header that does not parse counts as none (never a failed request). */
export function requestCookie(request: KernelRequest, name: string): string | undefined {
  const header = request.raw.headers.cookie;
  if (!header) return undefined;
  try {
    return parseCookie(header)[name];
  } catch {
    return undefined;
  }
}
