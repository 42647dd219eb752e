import type { KernelRequest } from './kernel-request.js';

/** What these rules read of a request. */
export type OriginHeaders = Pick<KernelRequest, 'header' | 'schemeAndHttpHost'>;

/** The values of Sec-Fetch-Site that say the request was made by this origin's pages (or typed by the user). */
export const OWN_SITE: ReadonlySet<string> = new Set(['same-origin', 'none']);

/**
 * Whether a page of another origin made this request, as a browser states it: a Sec-Fetch-Site other than
 * `same-origin` or `none` (a `same-site` sibling on another port or subdomain counts as foreign), or an Origin
 * header naming another scheme, host or port. Either suffices, so that one a page can shape never outvotes one it
 * cannot. A literal `null` Origin (sandboxed frames, `data:` pages) is foreign too, unless Sec-Fetch-Site says
 * same-origin: the app's own pages send it for their form posts under `Referrer-Policy: no-referrer`. A request
 * with neither header comes from no other page.
 */
export function isCrossOrigin(request: OriginHeaders): boolean {
  const origin = request.header('origin');
  const foreignOrigin = origin !== undefined && !isOwnOrigin(origin, request.schemeAndHttpHost);
  const site = request.header('sec-fetch-site')?.trim().toLowerCase();
  if (site === undefined || site === '') return foreignOrigin;
  return !OWN_SITE.has(site) || (foreignOrigin && origin !== 'null');
}

/**
 * Whether the browser opens this response as a top-level page (a link followed, an address typed: Sec-Fetch-Mode
 * `navigate`, Sec-Fetch-Dest `document`, a GET or HEAD without a foreign Origin). Whichever site held the link, its
 * page cannot read the answer, so a developer may follow a profile's link from a chat or a ticket. A frame is not one:
 * the page around it could lure clicks.
 */
export function isTopLevelNavigation(request: OriginHeaders & Pick<KernelRequest, 'method'>): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (request.header('sec-fetch-mode')?.trim().toLowerCase() !== 'navigate') return false;
  if (request.header('sec-fetch-dest')?.trim().toLowerCase() !== 'document') return false;
  const origin = request.header('origin');
  return origin === undefined || isOwnOrigin(origin, request.schemeAndHttpHost);
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
