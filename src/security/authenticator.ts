import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AppConfig } from '../config/app-config.js';
import type { KernelContext } from '../lifecycle/kernel-context.js';
import { KernelLogger } from '../lifecycle/logging/kernel-logger.js';
import { LogLevel } from '../lifecycle/logging/log-level.js';
import { sessionOf } from '../session/session-context.js';
import { AuthenticatedEvent } from './events/authenticated.event.js';
import { LoggedOutEvent } from './events/logged-out.event.js';
import { LoginThrottledEvent } from './events/login-throttled.event.js';
import { PasswordHasher } from './password-hasher.js';
import { RememberMeService } from './remember-me/remember-me.service.js';
import { requestCookie } from './request-cookies.js';
import { securityOf, type AuthenticatedUser } from './security-context.js';
import { LoginThrottler, type Throttled } from './throttling/login-throttler.js';
import { TooManyLoginAttemptsException, type ThrottledAction } from './throttling/too-many-login-attempts.exception.js';
import { UserRepository } from '../users/user.repository.js';
import { toAuthenticatedUser } from './user-provider.js';

/** Listeners that must know about a login (the cart moves to the user). */
export type LoginHook = (context: KernelContext, user: AuthenticatedUser) => Promise<void>;

/**
 * Logging in and out. `checkCredentials` verifies an email and password in constant time per attempt (an unknown
 * email costs a hash too), once login throttling has let the attempt through (a refused one costs no hash);
 * `login` makes the user the request's user, moves the session to a new id (fixation) and
 * creates a remember-me series when asked; `logout` ends the session and forgets the device.
 */
@Injectable()
export class Authenticator {
  private readonly loginHooks: LoginHook[] = [];

  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly rememberMe: RememberMeService,
    private readonly config: AppConfig,
    private readonly logger: KernelLogger,
    private readonly throttler: LoginThrottler,
    private readonly events: EventEmitter2,
  ) {}

  /** Runs after every successful login, in registration order (a failing hook is logged, the login stands). */
  onLogin(hook: LoginHook): void {
    this.loginHooks.push(hook);
  }

  /** The user these credentials name, or null; a TooManyLoginAttemptsException (429) when attempts ran out. */
  async checkCredentials(context: KernelContext, email: string, password: string): Promise<AuthenticatedUser | null> {
    const ip = context.request.clientIp;
    const throttled = await this.throttler.attempt(email, ip);
    if (throttled) this.refuse(context, throttled, 'login', email);
    const user = await this.verify(email, password);
    if (user) await this.throttler.succeeded(email, ip);
    return user;
  }

  /**
   * Before a registration looks the address up: a client whose attempts ran out (for this address or at all) gets
   * a 429 whether the address has an account or not. Each registration counts as an attempt.
   */
  async checkRegistrationAllowed(context: KernelContext, email: string): Promise<void> {
    const throttled = await this.throttler.registration(email, context.request.clientIp);
    if (throttled) this.refuse(context, throttled, 'registration', email);
  }

  private refuse(context: KernelContext, throttled: Throttled, action: ThrottledAction, email: string): never {
    this.events.emit(LoginThrottledEvent.NAME, new LoginThrottledEvent(action, throttled.scope, throttled.retryAfter));
    const who = throttled.scope === 'account' ? 'for "{email}" from {client}' : 'from {client}';
    this.logger.record(
      LogLevel.WARNING,
      'security',
      `Login throttling: too many attempts ${who}, the ${action} was refused for {retryAfter} s.`,
      { email: email.slice(0, 254), client: context.request.clientIp, retryAfter: throttled.retryAfter },
      context,
    );
    throw new TooManyLoginAttemptsException(throttled, action);
  }

  private async verify(email: string, password: string): Promise<AuthenticatedUser | null> {
    const user = await this.users.findByEmail(email);
    if (!user) {
      await this.hasher.burn(password);
      return null;
    }
    if (!(await this.hasher.verify(password, user.password_hash))) return null;
    if (this.hasher.needsRehash(user.password_hash)) {
      await this.users.updatePasswordHash(user.id, await this.hasher.hash(password));
    }
    return toAuthenticatedUser(user);
  }

  async login(
    context: KernelContext,
    user: AuthenticatedUser,
    options: { rememberMe: boolean; via: 'login-form' | 'json' },
  ): Promise<void> {
    const state = securityOf(context);
    const session = sessionOf(context);
    session.migrate();
    // Tokens issued to the anonymous visitor stop working: a form from before the login cannot be replayed.
    for (const key of Object.keys(session.peek())) if (key.startsWith('_csrf_token/')) session.remove(key);
    state.user = user;
    this.events.emit(AuthenticatedEvent.NAME, new AuthenticatedEvent(user, 'login-form'));
    if (options.rememberMe) state.rememberMeCookie = await this.rememberMe.create(user.id);
    this.logger.record(
      LogLevel.INFO,
      'security',
      'User "{email}" logged in ({via}).',
      { email: user.email, via: options.via },
      context,
    );
    for (const hook of this.loginHooks) {
      try {
        await hook(context, user);
      } catch (error) {
        this.logger.record(
          LogLevel.ERROR,
          'security',
          'A login hook failed: {message}',
          { message: (error as Error).message, exception: error },
          context,
        );
      }
    }
  }

  async logout(context: KernelContext): Promise<void> {
    const state = securityOf(context);
    const cookie = requestCookie(context.request, this.config.security.rememberMeCookieName);
    if (cookie !== undefined) {
      await this.rememberMe.revoke(cookie);
      state.rememberMeCookie = null;
    }
    if (state.user)
      this.logger.record(LogLevel.INFO, 'security', 'User "{email}" logged out.', { email: state.user.email }, context);
    state.user = null;
    this.events.emit(LoggedOutEvent.NAME, new LoggedOutEvent());
    sessionOf(context).invalidate();
  }
}
