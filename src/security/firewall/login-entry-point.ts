import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { UnauthorizedHttpException } from '../../lifecycle/exceptions/unauthorized-http.exception.js';
import type { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { KernelResponse } from '../../lifecycle/http/kernel-response.js';
import { sessionOf } from '../../session/session-context.js';
import { FULL_AUTHENTICATION_REQUIRED, LOGIN_CHALLENGE, TARGET_PATH, wantsJson } from './entry-point.js';

/**
 * What an anonymous visitor gets where a user is needed (Symfony's authentication entry point), whoever found out:
 * the firewall's access map, `@IsGranted`, or a handler asking for the user. People are sent to the login page and
 * back afterwards (the page a GET asked for is kept in the session); scripts and API clients get a 401.
 */
@Injectable()
export class LoginEntryPoint {
  constructor(private readonly config: AppConfig) {}

  /** The login redirect for people; throws the 401 for scripts. */
  start(request: KernelRequest, cause?: unknown): KernelResponse {
    const { loginPath } = this.config.security;
    if (wantsJson(request)) {
      throw new UnauthorizedHttpException(
        LOGIN_CHALLENGE(loginPath, this.config.session.cookieName),
        FULL_AUTHENTICATION_REQUIRED,
        cause,
      );
    }
    if (request.method === 'GET')
      sessionOf(request.context).set(
        TARGET_PATH,
        `${request.pathInfo}${request.queryString ? `?${request.queryString}` : ''}`,
      );
    return KernelResponse.redirect(loginPath, 302);
  }
}
