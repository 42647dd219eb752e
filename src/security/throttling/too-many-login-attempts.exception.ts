import { TooManyRequestsHttpException } from '../../lifecycle/exceptions/too-many-requests-http.exception.js';
import type { Throttled } from './login-throttler.js';

/** What the client was doing when its attempts ran out. */
export type ThrottledAction = 'login' | 'registration';

/**
 * 429 with Retry-After for a login or a registration refused by login throttling, worded as Symfony's
 * TooManyLoginAttemptsAuthenticationException ("… please try again in 1 minute.").
 */
export class TooManyLoginAttemptsException extends TooManyRequestsHttpException {
  constructor(
    readonly throttled: Throttled,
    readonly action: ThrottledAction,
  ) {
    const minutes = Math.ceil(throttled.retryAfter / 60);
    const wait = `${minutes} minute${minutes === 1 ? '' : 's'}`;
    super(
      throttled.retryAfter,
      action === 'login'
        ? `Too many failed login attempts, please try again in ${wait}.`
        : `Too many attempts, please try again in ${wait}.`,
    );
  }
}
