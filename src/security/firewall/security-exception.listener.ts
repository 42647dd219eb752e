import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { KernelListener } from '../../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ExceptionEvent } from '../../lifecycle/kernel.events.js';
import { FirewallDecidedEvent } from '../events/firewall-decided.event.js';
import { AuthenticationRequiredException } from './authentication-required.exception.js';
import { LoginEntryPoint } from './login-entry-point.js';

/**
 * Symfony's security ExceptionListener (kernel.exception, priority 1, before the error is logged and rendered): a
 * request that needed a user and had none starts the login entry point instead of failing, wherever it was found out
 * (`@IsGranted`, `requireUser()`, a converter). A 401 for a script goes on to the error renderer as a 401.
 */
@Injectable()
export class SecurityExceptionListener {
  constructor(
    private readonly entryPoint: LoginEntryPoint,
    private readonly events: EventEmitter2,
  ) {}

  @KernelListener(KernelEvents.EXCEPTION, { priority: 1 })
  onKernelException(event: ExceptionEvent): void {
    const required = event.throwable;
    if (!(required instanceof AuthenticationRequiredException)) return;
    try {
      event.setResponse(this.entryPoint.start(event.request, required));
      // The redirect is the answer, not an error of status 500.
      event.allowCustomResponseCode = true;
      this.events.emit(FirewallDecidedEvent.NAME, new FirewallDecidedEvent(null, 'redirected-to-login'));
    } catch (unauthorized) {
      this.events.emit(FirewallDecidedEvent.NAME, new FirewallDecidedEvent(null, 'unauthorized'));
      event.throwable = unauthorized;
    }
  }
}
