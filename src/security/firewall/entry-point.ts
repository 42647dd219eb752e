import type { KernelRequest } from '../../lifecycle/http/kernel-request.js';

/** What a 401 offers the client: log in with the form, then send the session cookie. */
export const LOGIN_CHALLENGE = (loginPath: string, cookieName: string): string =>
  `Cookie realm="Shopkernel", form-action="${loginPath}", cookie-name="${cookieName}"`;

export const FULL_AUTHENTICATION_REQUIRED = 'Full authentication is required to access this resource.';

/** Session key of the page an anonymous visitor asked for, where the login sends them back. */
export const TARGET_PATH = '_security.target_path';

/** Scripts and API clients get a 401; people get the login page. */
export function wantsJson(request: KernelRequest): boolean {
  return request.pathInfo.startsWith('/api/') || request.prefersJson || request.isXmlHttpRequest;
}
