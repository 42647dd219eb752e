import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AccessDeniedHttpException } from '../../lifecycle/exceptions/access-denied-http.exception.js';
import { KernelListener } from '../../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ControllerArgumentsEvent } from '../../lifecycle/kernel.events.js';
import { AuthenticationRequiredException } from '../firewall/authentication-required.exception.js';
import { AccessDecidedEvent } from '../events/access-decided.event.js';
import { currentUser } from '../security-context.js';
import { grantedRoles } from './is-granted.decorator.js';

/**
 * The access-grant check of kernel.controller_arguments (Symfony's IsGrantedAttributeListener): a handler marked
 * `@IsGranted(...roles)` (or whose controller class is) runs only for a user with every role; each decision goes
 * out as an AccessDecidedEvent. An anonymous visitor starts the login entry point (SecurityExceptionListener),
 * whatever the firewall's access map says; a user without a role gets a 403.
 */
@Injectable()
export class AccessListener {
  constructor(private readonly events: EventEmitter2) {}

  @KernelListener(KernelEvents.CONTROLLER_ARGUMENTS, { priority: 0 })
  onControllerArguments(event: ControllerArgumentsEvent): void {
    const roles = event.handler ? grantedRoles(event.handler) : [];
    if (roles.length === 0) return;
    const user = currentUser(event.request.context);
    for (const role of roles)
      this.events.emit(
        AccessDecidedEvent.NAME,
        new AccessDecidedEvent(role, event.controller.name, user?.roles.includes(role) ?? false),
      );
    if (!user) throw new AuthenticationRequiredException();
    if (!roles.every((role) => user.roles.includes(role))) throw new AccessDeniedHttpException('Access Denied.');
  }
}
