/** Emitted when login throttling refuses a login or a registration (the request then answers 429). */
export class LoginThrottledEvent {
  static readonly NAME = 'security.login_throttled';

  constructor(
    readonly action: 'login' | 'registration',
    readonly scope: 'account' | 'client',
    /** Seconds until the client may try again. */
    readonly retryAfter: number,
  ) {}
}
