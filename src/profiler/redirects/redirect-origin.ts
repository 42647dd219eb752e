import type { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { contextKey } from '../../lifecycle/kernel-context.js';

/** The redirect a request followed, as its toolbar and profile name it: "Redirected from POST /checkout (token, 303)". */
export interface RedirectOrigin {
  token: string;
  method: string;
  /** Path and query of the request that was redirected (secrets masked). */
  path: string;
  status: number;
  route: string | null;
}

/** What the redirect cookie holds: the origin, and where it sent the browser (path and query, WHATWG-normalised). */
export interface RedirectCookie extends RedirectOrigin {
  target: string;
}

export const REDIRECT_COOKIE = 'sk_redirect';
/** Seconds the cookie lives: the browser follows a redirect at once; a stale one must not label a later request. */
export const REDIRECT_COOKIE_MAX_AGE = 60;
/** Where a request's RedirectOrigin is kept on its KernelContext. */
export const REDIRECT_ORIGIN = contextKey<RedirectOrigin>('shopkernel.profiler.redirect-origin');

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const TOKEN = /^[0-9a-f]{6}$/;
const METHOD = /^[A-Z]{1,16}$/;
const MAX_PATH = 2048;

export function isRedirectStatus(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/** The cookie's value: JSON in base64url, so that no character needs quoting in a Set-Cookie header. */
export function encodeRedirectCookie(cookie: RedirectCookie): string {
  return Buffer.from(JSON.stringify(cookie), 'utf8').toString('base64url');
}

/**
 * The cookie's value read back; null when it is not one this profiler wrote (the client may send anything: only
 * well-formed values are believed, and they are only ever shown escaped).
 */
export function decodeRedirectCookie(value: string | undefined): RedirectCookie | null {
  if (!value || value.length > 4 * MAX_PATH) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const c = parsed as Record<string, unknown>;
  const valid =
    typeof c.token === 'string' &&
    TOKEN.test(c.token) &&
    typeof c.method === 'string' &&
    METHOD.test(c.method) &&
    typeof c.path === 'string' &&
    c.path.length <= MAX_PATH &&
    typeof c.target === 'string' &&
    c.target.length <= MAX_PATH &&
    typeof c.status === 'number' &&
    isRedirectStatus(c.status) &&
    (c.route === null || (typeof c.route === 'string' && c.route.length <= 200));
  if (!valid) return null;
  return {
    token: c.token as string,
    method: c.method as string,
    path: c.path as string,
    status: c.status as number,
    route: c.route as string | null,
    target: c.target as string,
  };
}

/**
 * Where a redirect's Location sends a browser, as the path and query the next request will carry; null when it
 * leaves this origin (another site's profiler, if any, is not ours to label) or does not parse.
 */
export function redirectTarget(location: string, request: KernelRequest): string | null {
  try {
    const base = new URL(request.uri);
    const target = new URL(location, base);
    return target.origin === base.origin ? target.pathname + target.search : null;
  } catch {
    return null;
  }
}

/** The path and query of a request as a followed redirect's target would name it. */
export function requestTarget(request: KernelRequest): string | null {
  try {
    const url = new URL(request.raw.url ?? '/', 'http://localhost');
    return url.pathname + url.search;
  } catch {
    return null;
  }
}
