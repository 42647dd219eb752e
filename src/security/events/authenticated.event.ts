import type { AuthenticatedUser } from '../security-context.js';

export type AuthenticatedBy = 'session' | 'remember-me' | 'login-form';

/**
 * Emitted (on the application's event bus, synchronously) once a request has its user: from the session or the
 * remember-me cookie (the firewall), or a login (the Authenticator).
 */
export class AuthenticatedEvent {
  static readonly NAME = 'security.authenticated';

  constructor(
    readonly user: AuthenticatedUser,
    readonly by: AuthenticatedBy,
  ) {}
}
