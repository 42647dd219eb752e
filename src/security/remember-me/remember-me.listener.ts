import { Injectable } from '@nestjs/common';
import { stringifySetCookie } from 'cookie';
import { AppConfig } from '../../config/app-config.js';
import { KernelListener } from '../../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ResponseEvent } from '../../lifecycle/kernel.events.js';
import { SECURITY_STATE } from '../security-context.js';

/**
 * Sends the remember-me cookie the request decided on (Symfony's RememberMe ResponseListener, kernel.response 0):
 * a new one at a login with "remember me", a rotated one after a remember-me login, an expired one at logout or
 * for a cookie that was invalid or stolen. HttpOnly, SameSite=Lax, Secure over HTTPS.
 */
@Injectable()
export class RememberMeListener {
  constructor(private readonly config: AppConfig) {}

  @KernelListener(KernelEvents.RESPONSE, { priority: 0 })
  onKernelResponse(event: ResponseEvent): void {
    const state = event.request.context.get(SECURITY_STATE);
    if (!state || state.rememberMeCookie === undefined) return;
    const { rememberMeCookieName, rememberMeLifetimeSeconds } = this.config.security;
    const value = state.rememberMeCookie;
    event.response.appendHeader(
      'Set-Cookie',
      stringifySetCookie(
        {
          name: rememberMeCookieName,
          value: value ?? '',
          path: '/',
          httpOnly: true,
          sameSite: 'lax',
          secure: event.request.isSecure,
          maxAge: value === null ? 0 : rememberMeLifetimeSeconds,
        },
        // `series:token` sent as `series%3Atoken`: the cookie package's default leaves `:` (a valid cookie octet) as it is.
        { encode: encodeURIComponent },
      ),
    );
  }
}
