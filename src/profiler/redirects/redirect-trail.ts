import { Injectable } from '@nestjs/common';
import { stringifySetCookie } from 'cookie';
import type { KernelContext } from '../../lifecycle/kernel-context.js';
import type { ResponseHandle } from '../../lifecycle/http/response-handle.js';
import { DebugAccess } from '../../lifecycle/debug-access.js';
import { Redactor } from '../../lifecycle/redaction/redactor.js';
import { requestCookie } from '../../security/request-cookies.js';
import { Profile } from '../profile.js';
import {
  decodeRedirectCookie,
  encodeRedirectCookie,
  isRedirectStatus,
  REDIRECT_COOKIE,
  REDIRECT_COOKIE_MAX_AGE,
  REDIRECT_ORIGIN,
  redirectTarget,
  requestTarget,
} from './redirect-origin.js';

/**
 * Follows redirects from one profile to the next, as Symfony's sf_redirect cookie does: a redirecting response
 * (301, 302, 303, 307, 308 to this origin) leaves a short-lived cookie naming its profile and its target; the
 * request for that target reads it, records where it came from, and removes it. Requests in between (pictures of
 * the page, the toolbar) leave it alone: only the target's request is labelled. Run while the profile is collected
 * at kernel.response, for clients allowed to see debug details only.
 */
@Injectable()
export class RedirectTrail {
  constructor(private readonly access: DebugAccess) {}

  follow(context: KernelContext, response: ResponseHandle): void {
    const request = context.request;
    const profile = Profile.of(context);
    if (!profile || !this.access.allows(request)) return;
    // Parsed only when the header names it: nearly every request has none.
    const header = request.raw.headers.cookie;
    const received = header?.includes(REDIRECT_COOKIE)
      ? decodeRedirectCookie(requestCookie(request, REDIRECT_COOKIE))
      : null;
    let clear = false;
    if (received && received.target === requestTarget(request)) {
      const { target: _target, ...origin } = received;
      context.set(REDIRECT_ORIGIN, origin);
      profile.redirectedFrom = origin.token;
      clear = true;
    }
    const location = response.getHeader('location');
    const target = location && isRedirectStatus(response.status) ? redirectTarget(location, request) : null;
    const options = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: request.isSecure };
    if (target !== null) {
      const value = encodeRedirectCookie({
        token: profile.token,
        method: request.method,
        path: Redactor.url(requestTarget(request) ?? request.pathInfo),
        status: response.status,
        route: request.routeName ?? null,
        target,
      });
      response.appendHeader(
        'Set-Cookie',
        stringifySetCookie({ name: REDIRECT_COOKIE, value, ...options, maxAge: REDIRECT_COOKIE_MAX_AGE }),
      );
    } else if (clear) {
      response.appendHeader(
        'Set-Cookie',
        stringifySetCookie({ name: REDIRECT_COOKIE, value: '', ...options, maxAge: 0, expires: new Date(0) }),
      );
    }
  }
}
