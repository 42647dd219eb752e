import { Body, Controller, Get, HttpCode, Post, Render, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { RequestAttribute } from '../../lifecycle/request-attribute.decorator.js';
import { RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { IsGranted } from '../../security/access/is-granted.decorator.js';
import { Authenticator } from '../../security/authenticator.js';
import { CsrfProtected } from '../../security/csrf/csrf-protected.decorator.js';
import { TARGET_PATH } from '../../security/firewall/entry-point.js';
import { TooManyLoginAttemptsException } from '../../security/throttling/too-many-login-attempts.exception.js';
import { PasswordHasher } from '../../security/password-hasher.js';
import { currentUser, requireUser, type AuthenticatedUser } from '../../security/security-context.js';
import { sessionOf } from '../../session/session-context.js';
import { validateForm } from '../../lifecycle/validate-form.js';
import { LoginDto } from './login.dto.js';
import { RegistrationDto } from './registration.dto.js';
import { UserRepository } from '../../users/user.repository.js';

const LAST_EMAIL = '_security.last_username';

/** Register, log in, log out, and the account page (behind the firewall). */
@Controller()
export class AccountsController {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly authenticator: Authenticator,
  ) {}

  @Get('register')
  @RouteName('account_register')
  register(@RequestAttribute() request: KernelRequest, @Res() res: Response): void {
    if (currentUser(request.context)) return res.redirect(303, '/account');
    res.render('shop/accounts/register', {
      title: 'Create an account – Shopkernel',
      locale: request.locale,
      form: { email: '' },
      errors: {},
    });
  }

  @Post('register')
  @RouteName('account_register_submit')
  @CsrfProtected('register')
  async registerSubmit(
    @RequestAttribute() request: KernelRequest,
    @Body() body: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    const { value, errors } = await validateForm(RegistrationDto, body);
    const email = typeof body.email === 'string' ? body.email : '';
    const again = (status: number, problems: Record<string, string[]>) =>
      res.status(status).render('shop/accounts/register', {
        title: 'Create an account – Shopkernel',
        locale: request.locale,
        form: { email },
        errors: problems,
        failed: true,
      });
    if (Object.keys(errors).length > 0) return again(400, errors);
    try {
      await this.authenticator.checkRegistrationAllowed(request.context, value.email);
    } catch (error) {
      if (!(error instanceof TooManyLoginAttemptsException)) throw error;
      res.status(429).setHeader('Retry-After', String(error.retryAfter));
      return res.render('shop/accounts/register', {
        title: 'Create an account – Shopkernel',
        locale: request.locale,
        form: { email },
        errors: {},
        throttled: error.message,
      });
    }
    const user = await this.users.create(value.email, await this.hasher.hash(value.password));
    if (!user) return again(400, { email: ['An account with this email address already exists.'] });
    const authenticated = { id: user.id, email: user.email, roles: ['ROLE_USER'] };
    await this.authenticator.login(request.context, authenticated, { rememberMe: false, via: 'login-form' });
    sessionOf(request.context).addFlash('success', 'Welcome! Your account has been created.');
    res.redirect(303, '/account');
  }

  @Get('login')
  @RouteName('security_login')
  login(@RequestAttribute() request: KernelRequest, @Res() res: Response): void {
    if (currentUser(request.context)) return res.redirect(303, '/account');
    const session = sessionOf(request.context);
    const email = session.get<string>(LAST_EMAIL) ?? '';
    res.render('shop/accounts/login', { title: 'Log in – Shopkernel', locale: request.locale, email });
  }

  @Post('login')
  @RouteName('security_login_check')
  @CsrfProtected('authenticate')
  async loginCheck(
    @RequestAttribute() request: KernelRequest,
    @Body() form: LoginDto,
    @Res() res: Response,
  ): Promise<void> {
    const session = sessionOf(request.context);
    let user: AuthenticatedUser | null;
    try {
      user = await this.authenticator.checkCredentials(request.context, form.email, form.password);
    } catch (error) {
      if (!(error instanceof TooManyLoginAttemptsException)) throw error;
      // The form again, with the reason and its own status (Symfony shows the login form with the error).
      res.status(429).setHeader('Retry-After', String(error.retryAfter));
      return res.render('shop/accounts/login', {
        title: 'Log in – Shopkernel',
        locale: request.locale,
        email: form.email.slice(0, 254),
        error: error.message,
      });
    }
    if (!user) {
      session.set(LAST_EMAIL, form.email.slice(0, 254));
      session.addFlash('error', 'Invalid credentials.');
      return res.redirect(303, '/login');
    }
    const target = session.get<string>(TARGET_PATH);
    session.remove(TARGET_PATH);
    session.remove(LAST_EMAIL);
    await this.authenticator.login(request.context, user, {
      rememberMe: form._remember_me !== undefined,
      via: 'login-form',
    });
    res.redirect(303, safeTarget(target) ?? '/account');
  }

  @Post('logout')
  @RouteName('security_logout')
  @CsrfProtected('logout')
  @HttpCode(303)
  async logout(@RequestAttribute() request: KernelRequest, @Res() res: Response): Promise<void> {
    await this.authenticator.logout(request.context);
    sessionOf(request.context).addFlash('success', 'You have been logged out.');
    res.redirect(303, '/');
  }

  @Get('account')
  @RouteName('account_overview')
  @IsGranted('ROLE_USER')
  @Render('shop/accounts/account')
  async account(@RequestAttribute() request: KernelRequest): Promise<object> {
    const user = requireUser(request.context);
    const row = await this.users.findById(user.id);
    return {
      title: 'Your account – Shopkernel',
      locale: request.locale,
      account: {
        email: user.email,
        roles: user.roles.join(', '),
        since: row?.created_at.slice(0, 10) ?? '',
        admin: user.roles.includes('ROLE_ADMIN'),
      },
    };
  }
}

/** Only a path of this site (never `//evil.example` or an absolute URL): no open redirect through the login. */
function safeTarget(target: string | undefined): string | undefined {
  return typeof target === 'string' && target.startsWith('/') && !target.startsWith('//') && !target.startsWith('/\\')
    ? target
    : undefined;
}
