import { contextKey, type KernelContext } from '../lifecycle/kernel-context.js';
import { AuthenticationRequiredException } from './firewall/authentication-required.exception.js';

/** The logged-in user as the rest of the application sees them (never the password hash). */
export interface AuthenticatedUser {
  id: number;
  email: string;
  roles: string[];
}

/**
 * The request's security state, what the application acts on (Symfony's token storage): the user, and the
 * remember-me cookie to send. What the Security panel shows besides is learnt from the security events.
 */
export class SecurityState {
  user: AuthenticatedUser | null = null;
  /**
   * The remember-me cookie to send with the response: a value (set at login, rotated at each use), null (clear
   * it: logout, an invalid or stolen cookie), or undefined (leave it).
   */
  rememberMeCookie: string | null | undefined = undefined;
}

export const SECURITY_STATE = contextKey<SecurityState>('shopkernel.security');

/** The request's security state (created on first use). */
export function securityOf(context: KernelContext): SecurityState {
  let state = context.get(SECURITY_STATE);
  if (!state) {
    state = new SecurityState();
    context.set(SECURITY_STATE, state);
  }
  return state;
}

/** The logged-in user of the request, or null for an anonymous visitor. */
export function currentUser(context: KernelContext): AuthenticatedUser | null {
  return context.get(SECURITY_STATE)?.user ?? null;
}

/**
 * The logged-in user, for code that cannot work without one: an anonymous request gets the login entry point (the
 * login redirect or a 401), never a null dereference, whatever the access map or the handler's `@IsGranted` say.
 */
export function requireUser(context: KernelContext): AuthenticatedUser {
  const user = currentUser(context);
  if (!user) throw new AuthenticationRequiredException();
  return user;
}
