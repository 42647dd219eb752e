import { contextKey, type KernelContext } from '../lifecycle/kernel-context.js';
import { AuthenticationRequiredException } from './firewall/authentication-required.exception.js';

/** The logged-in user as the rest of the application sees them (never the password hash). */
export interface AuthenticatedUser {
  id: number;
  email: string;
  roles: string[];
}

/** How the firewall decided about this request, for the Security panel. */
export interface FirewallDecision {
  /** The firewall's rule that applied (`/account`, `/checkout`, …) or null when the path is public. */
  rule: string | null;
  /** How the user was authenticated on this request. */
  authenticatedBy: 'session' | 'remember-me' | 'login-form' | null;
  outcome: 'public' | 'granted' | 'denied' | 'redirected-to-login' | 'unauthorized';
}

export interface AccessDecision {
  attribute: string;
  subject: string | null;
  granted: boolean;
}

/** The request's security state: the user, the firewall's decision and the access decisions made. */
export class SecurityState {
  user: AuthenticatedUser | null = null;
  firewall: FirewallDecision = { rule: null, authenticatedBy: null, outcome: 'public' };
  readonly decisions: AccessDecision[] = [];
  /** Set when the user logged out during this request (the remember-me cookie is cleared). */
  loggedOut = false;
  /**
   * The remember-me cookie to send with the response: a value (set at login, rotated at each use), null (clear
   * it: logout, an invalid or stolen cookie), or undefined (leave it).
   */
  rememberMeCookie: string | null | undefined = undefined;
  /** Set when login throttling refused this request's login or registration. */
  throttled: { action: 'login' | 'registration'; scope: 'account' | 'client'; retryAfter: number } | null = null;
  /** The firewall's kernel.finish_request has run: the request's security state is final. */
  finished = false;
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
