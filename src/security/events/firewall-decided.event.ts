export type FirewallOutcome = 'public' | 'granted' | 'denied' | 'redirected-to-login' | 'unauthorized';

/**
 * Emitted by the firewall once it decided about a request (the access map's rule and the outcome), and again by the
 * security exception listener when a request that needed a user is sent to the login entry point.
 */
export class FirewallDecidedEvent {
  static readonly NAME = 'security.firewall_decided';

  constructor(
    /** The access map's rule that applied (its path pattern), or null when the path is public. */
    readonly rule: string | null,
    readonly outcome: FirewallOutcome,
  ) {}
}
