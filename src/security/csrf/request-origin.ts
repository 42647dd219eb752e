import { isOwnOrigin, OWN_SITE, type OriginHeaders } from '../../lifecycle/http/cross-origin.js';

/** What these rules read of a request. */
export type RequestHeaders = OriginHeaders;

/**
 * Why a browser request comes from another site, or null when nothing says it does. A browser states where a
 * request comes from in Sec-Fetch-Site (which no page can forge); older browsers only in Origin. `same-site` (a
 * sibling subdomain) and a literal `null` Origin (sandboxed frames, `data:` and `file:` pages) count as foreign.
 * An origin listed in CORS_ALLOW_ORIGINS is trusted; `*` trusts none. A client that sends neither header is not a
 * browser page, and so cannot be forged into sending anything.
 */
export function foreignSiteReason(request: RequestHeaders, trustedOrigins: readonly string[]): string | null {
  const origin = request.header('origin');
  const trusted =
    origin !== undefined && (isOwnOrigin(origin, request.schemeAndHttpHost) || trustedOrigins.includes(origin));
  const site = request.header('sec-fetch-site')?.trim().toLowerCase();
  if (site !== undefined && site !== '') {
    if (OWN_SITE.has(site) || trusted) return null;
    return `Cross-site request refused (Sec-Fetch-Site: ${site}${origin === undefined ? '' : `, Origin: ${origin}`}).`;
  }
  if (origin === undefined || trusted) return null;
  return `Cross-origin request refused: the Origin "${origin}" is not this site's.`;
}

/**
 * Why a body is not one a JSON endpoint takes, or null when it is: a Content-Type other than application/json
 * (parameters such as charset aside), or a body without one. A request with neither body nor Content-Type is fine
 * (a DELETE, a logout). HTML forms can only send urlencoded, multipart or text/plain bodies, so this alone keeps a
 * cross-site form from reaching the API.
 */
export function nonJsonBodyReason(request: Pick<RequestHeaders, 'header'>): string | null {
  const type = request.header('content-type')?.trim() || undefined;
  const length = request.header('content-length');
  const hasBody = request.header('transfer-encoding') !== undefined || (length !== undefined && length.trim() !== '0');
  if (type === undefined)
    return hasBody
      ? 'The API takes JSON bodies only (Content-Type: application/json); this body has no Content-Type.'
      : null;
  const essence = type.split(';')[0].trim().toLowerCase();
  if (essence === 'application/json') return null;
  return `The API takes JSON bodies only (Content-Type: application/json), not "${essence || type}".`;
}
