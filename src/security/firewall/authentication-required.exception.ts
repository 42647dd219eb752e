/**
 * Something needs a logged-in user and the request has none (Symfony's InsufficientAuthenticationException). Thrown
 * by `@IsGranted`, by `requireUser()` and by converters that load a user's data; the SecurityExceptionListener turns
 * it into the login entry point: the login redirect for people, a 401 for scripts, never a 500.
 */
export class AuthenticationRequiredException extends Error {
  constructor(message = 'Full authentication is required to access this resource.') {
    super(message);
    this.name = 'AuthenticationRequiredException';
  }
}
