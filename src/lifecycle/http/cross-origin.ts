import type { KernelRequest } from './kernel-request.js';

/** What these rules read of a request. */
export type OriginHeaders = Pick<KernelRequest, 'header' | 'schemeAndHttpHost'>;

/** The values of Sec-Fetch-Site that say the request was made by this origin's pages (or typed by the user). */
export const OWN_SITE: ReadonlySet<string> = new Set(['same-origin', 'none']);

/**
 * Whether a page of another origin made this request, as a browser states it: an Origin header that is not this
 * scheme, host and port (a literal `null` included), or a Sec-Fetch-Site other than `same-origin` or `none` (a
 * `same-site` sibling on another port or subdomain counts as foreign). Either header suffices, so that one a page
 * can shape never outvotes one it cannot. A request with neither comes from no other page.
 */
export function isCrossOrigin(request: OriginHeaders): boolean {
  const origin = request.header('origin');
  if (origin !== undefined && !isOwnOrigin(origin, request.schemeAndHttpHost)) return true;
  const site = request.header('sec-fetch-site')?.trim().toLowerCase();
  return site !== undefined && site !== '' && !OWN_SITE.has(site);
}

/**
 * Whether an Origin header names this scheme, host and port. Browsers send the serialised origin (lower case, no
 * default port, no path), so that exact form is compared.
 */
export function isOwnOrigin(origin: string, schemeAndHttpHost: string): boolean {
  const own = originOf(schemeAndHttpHost);
  return own !== null && origin.toLowerCase() === own;
}

function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
}
