import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { KernelContext, kernelContextStorage } from '../lifecycle/kernel-context.js';
import { AccessDecidedEvent } from './events/access-decided.event.js';
import { AuthenticatedEvent } from './events/authenticated.event.js';
import { FirewallDecidedEvent } from './events/firewall-decided.event.js';
import { LoggedOutEvent } from './events/logged-out.event.js';
import { LoginThrottledEvent } from './events/login-throttled.event.js';
import { SECURITY_PROFILE } from './security-profile.js';
import { SecurityProfileListener } from './security-profile.listener.js';

const ADA = { id: 4, email: 'ada@example.test', roles: ['ROLE_USER'] };

describe('SecurityProfileListener', () => {
  const inRequest = (work: () => void): KernelContext => {
    const context = new KernelContext({} as never, 'en');
    kernelContextStorage.run(context, work);
    return context;
  };

  it("records what the request's firewall, access checks and login did, from the security events on the bus", async () => {
    const module = await Test.createTestingModule({
      imports: [EventEmitterModule.forRoot()],
      providers: [SecurityProfileListener],
    }).compile();
    await module.init();
    try {
      const bus = module.get(EventEmitter2);
      const context = inRequest(() => {
        bus.emit(AuthenticatedEvent.NAME, new AuthenticatedEvent(ADA, 'remember-me'));
        bus.emit(AccessDecidedEvent.NAME, new AccessDecidedEvent('ROLE_USER', 'path /account', true));
        bus.emit(AccessDecidedEvent.NAME, new AccessDecidedEvent('ROLE_ADMIN', 'path /account', false));
        bus.emit(FirewallDecidedEvent.NAME, new FirewallDecidedEvent('^/account', 'denied'));
        bus.emit(LoginThrottledEvent.NAME, new LoginThrottledEvent('login', 'client', 60));
        bus.emit(LoggedOutEvent.NAME, new LoggedOutEvent());
      });
      expect(context.get(SECURITY_PROFILE)).toEqual({
        firewall: { rule: '^/account', authenticatedBy: 'remember-me', outcome: 'denied' },
        decisions: [
          { attribute: 'ROLE_USER', subject: 'path /account', granted: true },
          { attribute: 'ROLE_ADMIN', subject: 'path /account', granted: false },
        ],
        throttled: { action: 'login', scope: 'client', retryAfter: 60 },
        loggedOut: true,
      });
    } finally {
      await module.close();
    }
  });

  it("keeps the firewall's rule when the login entry point decides later (the exception listener names no rule)", () => {
    const listener = new SecurityProfileListener();
    const context = inRequest(() => {
      listener.onFirewallDecided(new FirewallDecidedEvent('^/checkout', 'granted'));
      listener.onFirewallDecided(new FirewallDecidedEvent(null, 'redirected-to-login'));
    });
    expect(context.get(SECURITY_PROFILE)!.firewall).toEqual({
      rule: '^/checkout',
      authenticatedBy: null,
      outcome: 'redirected-to-login',
    });
  });

  it('starts from a public, anonymous profile, and records nothing outside a request', () => {
    const listener = new SecurityProfileListener();
    const context = inRequest(() => listener.onFirewallDecided(new FirewallDecidedEvent(null, 'public')));
    expect(context.get(SECURITY_PROFILE)).toEqual({
      firewall: { rule: null, authenticatedBy: null, outcome: 'public' },
      decisions: [],
      throttled: null,
      loggedOut: false,
    });
    expect(() => listener.onLoggedOut()).not.toThrow();
    expect(() => listener.onAccessDecided(new AccessDecidedEvent('ROLE_USER', null, false))).not.toThrow();
  });
});
