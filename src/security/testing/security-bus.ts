import { EventEmitter2 } from '@nestjs/event-emitter';
import type { KernelContext } from '../../lifecycle/kernel-context.js';
import { AccessDecidedEvent } from '../events/access-decided.event.js';
import { AuthenticatedEvent } from '../events/authenticated.event.js';
import { FirewallDecidedEvent } from '../events/firewall-decided.event.js';
import { LoggedOutEvent } from '../events/logged-out.event.js';
import { LoginThrottledEvent } from '../events/login-throttled.event.js';
import { SECURITY_PROFILE, type SecurityProfile } from '../security-profile.js';
import { SecurityProfileListener } from '../security-profile.listener.js';

/**
 * For unit specs: an event bus with the SecurityProfileListener on it, as the application wires it, so that a
 * security service run inside a request's context (kernelContextStorage.run) leaves its SecurityProfile there.
 */
export function securityBus(): EventEmitter2 {
  const bus = new EventEmitter2();
  const listener = new SecurityProfileListener();
  bus.on(AuthenticatedEvent.NAME, (event: AuthenticatedEvent) => listener.onAuthenticated(event));
  bus.on(FirewallDecidedEvent.NAME, (event: FirewallDecidedEvent) => listener.onFirewallDecided(event));
  bus.on(AccessDecidedEvent.NAME, (event: AccessDecidedEvent) => listener.onAccessDecided(event));
  bus.on(LoginThrottledEvent.NAME, (event: LoginThrottledEvent) => listener.onLoginThrottled(event));
  bus.on(LoggedOutEvent.NAME, () => listener.onLoggedOut());
  return bus;
}

/** The request's SecurityProfile (what the Security panel shows); fails when no security event was heard. */
export function securityProfileOf(context: KernelContext): SecurityProfile {
  const profile = context.get(SECURITY_PROFILE);
  if (!profile) throw new Error('No security event was recorded for this request.');
  return profile;
}
