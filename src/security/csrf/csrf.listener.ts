import { Injectable } from '@nestjs/common';
import { AccessDeniedHttpException } from '../../lifecycle/exceptions/access-denied-http.exception.js';
import { KernelListener } from '../../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ControllerEvent } from '../../lifecycle/kernel.events.js';
import { sessionOf } from '../../session/session-context.js';
import { CSRF_FIELD, CSRF_HEADER, CSRF_PROTECTED_METADATA } from './csrf-protected.decorator.js';
import { CsrfTokenManager } from './csrf-token-manager.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * kernel.controller (priority 8, before parameter conversion): a `@CsrfProtected` handler called with an unsafe
 * method gets its token checked before anything else runs. The form field is taken out of the body, so DTOs do
 * not have to declare it.
 */
@Injectable()
export class CsrfListener {
  constructor(private readonly tokens: CsrfTokenManager) {}

  @KernelListener(KernelEvents.CONTROLLER, { priority: 8 })
  onKernelController(event: ControllerEvent): void {
    const method = event.handler?.method;
    const id: string | undefined = method ? Reflect.getMetadata(CSRF_PROTECTED_METADATA, method) : undefined;
    const request = event.request;
    if (id === undefined || SAFE_METHODS.has(request.method)) return;
    const body = request.raw.body as Record<string, unknown> | undefined;
    const fromBody = body && typeof body === 'object' && !Array.isArray(body) ? body[CSRF_FIELD] : undefined;
    if (fromBody !== undefined) delete body![CSRF_FIELD];
    const token = fromBody ?? request.header(CSRF_HEADER);
    if (!this.tokens.isValid(sessionOf(request.context), id, token)) {
      throw new AccessDeniedHttpException('Invalid CSRF token.');
    }
  }
}
