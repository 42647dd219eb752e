import { contextKey } from '../lifecycle/kernel-context.js';
import type { AuthenticatedBy } from './events/authenticated.event.js';
import type { FirewallOutcome } from './events/firewall-decided.event.js';

export interface FirewallDecision {
  /** The firewall's rule that applied (`/account`, `/checkout`, …) or null when the path is public. */
  rule: string | null;
  /** How the user was authenticated on this request. */
  authenticatedBy: AuthenticatedBy | null;
  outcome: FirewallOutcome;
}

export interface AccessDecision {
  attribute: string;
  subject: string | null;
  granted: boolean;
}

/** What one request's security did, as the Security panel shows it (plain values, formatted when it is opened). */
export interface SecurityProfile {
  firewall: FirewallDecision;
  decisions: AccessDecision[];
  throttled: { action: 'login' | 'registration'; scope: 'account' | 'client'; retryAfter: number } | null;
  loggedOut: boolean;
}

/** Where SecurityProfileListener records the request's SecurityProfile on its KernelContext. */
export const SECURITY_PROFILE = contextKey<SecurityProfile>('shopkernel.security.profile');
