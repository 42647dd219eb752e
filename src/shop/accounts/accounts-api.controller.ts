import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import type { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { UnauthorizedHttpException } from '../../lifecycle/exceptions/unauthorized-http.exception.js';
import { RequestAttribute } from '../../lifecycle/request-attribute.decorator.js';
import { RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { IsGranted } from '../../security/access/is-granted.decorator.js';
import { Authenticator } from '../../security/authenticator.js';
import { LOGIN_CHALLENGE } from '../../security/firewall/entry-point.js';
import { requireUser, type AuthenticatedUser } from '../../security/security-context.js';
import { AppConfig } from '../../config/app-config.js';
import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';
import { ApiCsrfTokenIds } from '../../security/csrf/api-csrf-token-ids.js';
import { CsrfProtected } from '../../security/csrf/csrf-protected.decorator.js';
import { CsrfTokenManager } from '../../security/csrf/csrf-token-manager.js';
import { sessionOf } from '../../session/session-context.js';
import { LoginDto } from './login.dto.js';

/** The JSON side of accounts: log in (session cookie, optional remember-me), log out, who am I. */
@Controller('api')
export class AccountsApiController {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly config: AppConfig,
    private readonly csrf: CsrfTokenManager,
    private readonly tokenIds: ApiCsrfTokenIds,
  ) {}

  @Post('login')
  @RouteName('api_login')
  @HttpCode(200)
  async login(
    @RequestAttribute() request: KernelRequest,
    @Body() form: LoginDto,
  ): Promise<{ user: AuthenticatedUser }> {
    const user = await this.authenticator.checkCredentials(request.context, form.email, form.password);
    if (!user)
      throw new UnauthorizedHttpException(
        LOGIN_CHALLENGE(this.config.security.loginPath, this.config.session.cookieName),
        'Invalid credentials.',
      );
    await this.authenticator.login(request.context, user, { rememberMe: form._remember_me !== undefined, via: 'json' });
    return { user };
  }

  @Post('logout')
  @RouteName('api_logout')
  @CsrfProtected('logout')
  @HttpCode(204)
  async logout(@RequestAttribute() request: KernelRequest): Promise<void> {
    await this.authenticator.logout(request.context);
  }

  /** The token scripts send as X-CSRF-Token with unsafe requests of the API (ids its handlers declare: ApiCsrfTokenIds). */
  @Get('csrf-token/:id')
  @RouteName('api_csrf_token')
  token(@RequestAttribute() request: KernelRequest, @Param('id') id: string): { token: string } {
    const ids = this.tokenIds.all;
    if (!ids.has(id)) throw new NotFoundHttpException(`No CSRF token "${id}": ask for one of ${[...ids].join(', ')}.`);
    return { token: this.csrf.token(sessionOf(request.context), id) };
  }

  @Get('account')
  @RouteName('api_account')
  @IsGranted('ROLE_USER')
  account(@RequestAttribute() request: KernelRequest): { user: AuthenticatedUser } {
    return { user: requireUser(request.context) };
  }
}
