import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { AccessDeniedHttpException } from '../../lifecycle/exceptions/access-denied-http.exception.js';
import { UnauthorizedHttpException } from '../../lifecycle/exceptions/unauthorized-http.exception.js';
import { KernelListener } from '../../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ControllerArgumentsEvent } from '../../lifecycle/kernel.events.js';
import { FULL_AUTHENTICATION_REQUIRED, LOGIN_CHALLENGE } from '../firewall/entry-point.js';
import { securityOf } from '../security-context.js';
import { IS_GRANTED_METADATA } from './is-granted.decorator.js';

/**
 * The access-grant check of kernel.controller_arguments (Symfony's IsGrantedAttributeListener): a handler marked
 * `@IsGranted(...roles)` runs only for a user with every role; each decision is recorded for the Security panel.
 */
@Injectable()
export class AccessListener {
  constructor(private readonly config: AppConfig) {}

  @KernelListener(KernelEvents.CONTROLLER_ARGUMENTS, { priority: 0 })
  onControllerArguments(event: ControllerArgumentsEvent): void {
    const method = event.handler?.method;
    const roles: string[] | undefined = method ? Reflect.getMetadata(IS_GRANTED_METADATA, method) : undefined;
    if (!roles?.length) return;
    const state = securityOf(event.request.context);
    const user = state.user;
    for (const role of roles) state.decisions.push({ attribute: role, subject: event.controller.name, granted: user?.roles.includes(role) ?? false });
    if (!user) throw new UnauthorizedHttpException(LOGIN_CHALLENGE(this.config.security.loginPath, this.config.session.cookieName), FULL_AUTHENTICATION_REQUIRED);
    if (!roles.every((role) => user.roles.includes(role))) throw new AccessDeniedHttpException('Access Denied.');
  }
}
