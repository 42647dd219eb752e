import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AppConfig, type AccessRule } from '../../config/app-config.js';
import { AccessDeniedHttpException } from '../../lifecycle/exceptions/access-denied-http.exception.js';
import { KernelListener } from '../../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type RequestEvent } from '../../lifecycle/kernel.events.js';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';
import { sessionOf } from '../../session/session-context.js';
import { RememberMeService } from '../remember-me/remember-me.service.js';
import { requestCookie } from '../request-cookies.js';
import { AccessDecidedEvent } from '../events/access-decided.event.js';
import { AuthenticatedEvent } from '../events/authenticated.event.js';
import { FirewallDecidedEvent, type FirewallOutcome } from '../events/firewall-decided.event.js';
import { securityOf, type SecurityState } from '../security-context.js';
import { UserProvider } from '../user-provider.js';
import { wantsJson } from './entry-point.js';
import { LoginEntryPoint } from './login-entry-point.js';

/**
 * The security firewall (Symfony's Firewall, kernel.request priority 8: after the session, the router and the
 * locale; before pagination):
 * 1. authenticates the request: the user the session carries (loaded fresh), else a valid remember-me cookie
 *    (the session then moves to a new id and carries the user);
 * 2. applies the access map (AppConfig.security.accessControl): an anonymous visitor on a protected path is sent
 *    to the login page (HTML; the page asked for is kept for after the login) or gets a 401 (JSON, scripts); a user
 *    without the rule's roles gets a 403.
 * Nothing is read from the database for a visitor with neither a session user nor a remember-me cookie. What it
 * found and decided goes out as security events (AuthenticatedEvent, AccessDecidedEvent, FirewallDecidedEvent).
 */
@Injectable()
export class FirewallListener {
  constructor(
    private readonly config: AppConfig,
    private readonly users: UserProvider,
    private readonly rememberMe: RememberMeService,
    private readonly logger: KernelLogger,
    private readonly entryPoint: LoginEntryPoint,
    private readonly events: EventEmitter2,
  ) {}

  @KernelListener(KernelEvents.REQUEST, { priority: 8 })
  onKernelRequest(event: RequestEvent): void {
    const request = event.request;
    const state = securityOf(request.context);
    const rule = this.config.security.accessControl.find((r) => r.path.test(request.pathInfo)) ?? null;
    const session = sessionOf(request.context);
    const userId = session.peekUserId();
    const cookie = requestCookie(request, this.config.security.rememberMeCookieName);
    if (userId === null && cookie === undefined) {
      this.decide(event, rule, state);
      return;
    }
    event.waitFor(this.authenticate(event, userId, cookie, state).then(() => this.decide(event, rule, state)));
  }

  private async authenticate(
    event: RequestEvent,
    userId: number | null,
    cookie: string | undefined,
    state: SecurityState,
  ): Promise<void> {
    const context = event.request.context;
    const session = sessionOf(context);
    if (userId !== null) {
      const user = await this.users.loadById(userId);
      if (user) {
        state.user = user;
        this.events.emit(AuthenticatedEvent.NAME, new AuthenticatedEvent(user, 'session'));
        // The page shows who is logged in: it is this user's own (private, never shared).
        void session.userId;
        return;
      }
      this.logger.record(
        LogLevel.WARNING,
        'security',
        'The user of the session no longer exists: the session was emptied.',
        { userId },
        context,
      );
      session.invalidate();
    }
    if (cookie === undefined) return;
    const outcome = await this.rememberMe.consume(cookie);
    if (outcome.kind === 'valid') {
      const user = await this.users.loadById(outcome.userId);
      if (user) {
        state.user = user;
        this.events.emit(AuthenticatedEvent.NAME, new AuthenticatedEvent(user, 'remember-me'));
        // Undefined when the series was rotated a moment ago by a request sent with this one: the cookie stays.
        state.rememberMeCookie = outcome.cookie;
        session.migrate();
        this.logger.record(
          LogLevel.INFO,
          'security',
          'User "{email}" was authenticated by the remember-me cookie.',
          { email: user.email },
          context,
        );
        return;
      }
    }
    if (outcome.kind === 'theft') {
      this.logger.record(
        LogLevel.WARNING,
        'security',
        'A remember-me cookie was used twice (stolen?): every remember-me login of user {userId} was revoked.',
        { userId: outcome.userId },
        context,
      );
    }
    state.rememberMeCookie = null;
  }

  private decide(event: RequestEvent, rule: AccessRule | null, state: SecurityState): void {
    const request = event.request;
    // Pages show who is logged in (the layout reads res.locals).
    if (state.user) request.context.res.locals.currentUser = state.user;
    const outcome = this.outcome(event, rule, state.user?.roles);
    this.events.emit(FirewallDecidedEvent.NAME, new FirewallDecidedEvent(rule ? rule.path.source : null, outcome));
    if (outcome === 'denied') throw new AccessDeniedHttpException('Access Denied.');
    if (outcome === 'redirected-to-login' || outcome === 'unauthorized')
      event.setResponse(this.entryPoint.start(request));
  }

  /** The access map's answer for the request: each of the rule's roles checked for a user, the entry point for none. */
  private outcome(event: RequestEvent, rule: AccessRule | null, roles: readonly string[] | undefined): FirewallOutcome {
    if (!rule) return 'public';
    if (!roles) return wantsJson(event.request) ? 'unauthorized' : 'redirected-to-login';
    let granted = true;
    for (const role of rule.roles) {
      const has = roles.includes(role);
      granted &&= has;
      this.events.emit(AccessDecidedEvent.NAME, new AccessDecidedEvent(role, `path ${event.request.pathInfo}`, has));
    }
    return granted ? 'granted' : 'denied';
  }
}
