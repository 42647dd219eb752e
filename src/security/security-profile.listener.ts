import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { currentKernelContext } from '../lifecycle/kernel-context.js';
import { AccessDecidedEvent } from './events/access-decided.event.js';
import { AuthenticatedEvent } from './events/authenticated.event.js';
import { FirewallDecidedEvent } from './events/firewall-decided.event.js';
import { LoggedOutEvent } from './events/logged-out.event.js';
import { LoginThrottledEvent } from './events/login-throttled.event.js';
import { SECURITY_PROFILE, type SecurityProfile } from './security-profile.js';

/**
 * The Security panel's side of security (Symfony's traceable firewall and access decision manager): learns from
 * the security events what the request's firewall, access checks and login throttling decided, and records it on
 * the request's KernelContext. Outside a request (a CLI, a test) it does nothing.
 */
@Injectable()
export class SecurityProfileListener {
  @OnEvent(AuthenticatedEvent.NAME)
  onAuthenticated(event: AuthenticatedEvent): void {
    const profile = this.profile();
    if (profile) profile.firewall.authenticatedBy = event.by;
  }

  @OnEvent(FirewallDecidedEvent.NAME)
  onFirewallDecided(event: FirewallDecidedEvent): void {
    const profile = this.profile();
    if (!profile) return;
    // The exception listener's later outcome (the login entry point) keeps the rule the firewall found.
    if (event.rule !== null) profile.firewall.rule = event.rule;
    profile.firewall.outcome = event.outcome;
  }

  @OnEvent(AccessDecidedEvent.NAME)
  onAccessDecided(event: AccessDecidedEvent): void {
    this.profile()?.decisions.push({ attribute: event.attribute, subject: event.subject, granted: event.granted });
  }

  @OnEvent(LoginThrottledEvent.NAME)
  onLoginThrottled(event: LoginThrottledEvent): void {
    const profile = this.profile();
    if (profile) profile.throttled = { action: event.action, scope: event.scope, retryAfter: event.retryAfter };
  }

  @OnEvent(LoggedOutEvent.NAME)
  onLoggedOut(): void {
    const profile = this.profile();
    if (profile) profile.loggedOut = true;
  }

  /** The request's profile, created on its first event. */
  private profile(): SecurityProfile | undefined {
    const context = currentKernelContext();
    if (!context) return undefined;
    let profile = context.get(SECURITY_PROFILE);
    if (!profile) {
      profile = {
        firewall: { rule: null, authenticatedBy: null, outcome: 'public' },
        decisions: [],
        throttled: null,
        loggedOut: false,
      };
      context.set(SECURITY_PROFILE, profile);
    }
    return profile;
  }
}
