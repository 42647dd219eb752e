import { Injectable } from '@nestjs/common';
import { KernelListener } from '../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ResponseEvent } from '../lifecycle/kernel.events.js';
import { SESSION } from '../session/session-context.js';
import { SECURITY_STATE } from './security-context.js';

/**
 * Saves the security context in the session at kernel.response (Symfony's ContextListener::onKernelResponse): the
 * session carries the id of the user the request ended with (logged in, kept, or none after a logout), so the next
 * request's firewall finds them. Runs before the session listener writes the session (-1000).
 */
@Injectable()
export class ContextListener {
  @KernelListener(KernelEvents.RESPONSE, { priority: 0 })
  onKernelResponse(event: ResponseEvent): void {
    const context = event.request.context;
    const state = context.get(SECURITY_STATE);
    const session = context.get(SESSION);
    if (!state || !session || session.isClosed) return;
    const userId = state.user?.id ?? null;
    if (session.peekUserId() !== userId) session.setUser(userId);
  }
}
