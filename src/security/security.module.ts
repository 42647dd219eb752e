import { Global, Module } from '@nestjs/common';
import { SessionModule } from '../session/session.module.js';
import { UsersModule } from '../users/users.module.js';
import { AccessListener } from './access/access.listener.js';
import { Authenticator } from './authenticator.js';
import { ContextListener } from './context.listener.js';
import { ApiCsrfTokenIds } from './csrf/api-csrf-token-ids.js';
import { CsrfTokenManager } from './csrf/csrf-token-manager.js';
import { CsrfViewHelper } from './csrf/csrf-view.helper.js';
import { CsrfListener } from './csrf/csrf.listener.js';
import { JsonApiOriginListener } from './csrf/json-api-origin.listener.js';
import { FirewallListener } from './firewall/firewall.listener.js';
import { LoginEntryPoint } from './firewall/login-entry-point.js';
import { SecurityExceptionListener } from './firewall/security-exception.listener.js';
import { PasswordHasher } from './password-hasher.js';
import { RememberMeListener } from './remember-me/remember-me.listener.js';
import { RememberMeService } from './remember-me/remember-me.service.js';
import { SecurityProfileListener } from './security-profile.listener.js';
import { SecurityCollector } from './security.collector.js';
import { LoginThrottler } from './throttling/login-throttler.js';
import { UserProvider } from './user-provider.js';

/**
 * Security for every feature module (global): the firewall (kernel.request 8), the security
 * context saved in the session and the remember-me cookie (kernel.response 0), access grants from `@IsGranted`
 * (kernel.controller_arguments 0) and the login entry point for whatever needed a user and had none (kernel.exception
 * 1), CSRF tokens (kernel.controller 8), the JSON API's same-origin and JSON-only rule (kernel.controller 16), login
 * and logout (Authenticator) with login throttling (LoginThrottler), password hashing, and the Security panel (fed by
 * SecurityProfileListener from the security events).
 */
@Global()
@Module({
  imports: [SessionModule, UsersModule],
  providers: [
    CsrfTokenManager,
    ApiCsrfTokenIds,
    CsrfListener,
    JsonApiOriginListener,
    CsrfViewHelper,
    PasswordHasher,
    UserProvider,
    RememberMeService,
    LoginThrottler,
    Authenticator,
    LoginEntryPoint,
    FirewallListener,
    SecurityExceptionListener,
    ContextListener,
    RememberMeListener,
    AccessListener,
    SecurityCollector,
    SecurityProfileListener,
  ],
  exports: [CsrfTokenManager, ApiCsrfTokenIds, PasswordHasher, Authenticator, UserProvider],
})
export class SecurityModule {}
