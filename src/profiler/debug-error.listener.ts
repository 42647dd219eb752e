import { Injectable } from '@nestjs/common';
import { DebugAccess } from '../lifecycle/debug-access.js';
import { KernelListener } from '../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ExceptionEvent } from '../lifecycle/kernel.events.js';
import { DebugErrorRenderer } from './error-page/debug-error.renderer.js';

/**
 * In debug mode, for clients allowed to see debug details (DebugAccess), renders the debug error page (or the debug problem+json) for any throwable, in kernel.exception,
 * before the lifecycle's own ErrorListener (-128) would render the basic one. A kernel.exception listener rather
 * than a Nest exception filter: a filter sees only what Nest's pipeline throws, not the 404 raised by the router
 * in kernel.request.
 */
@Injectable()
export class DebugErrorListener {
  constructor(
    private readonly access: DebugAccess,
    private readonly renderer: DebugErrorRenderer,
  ) {}

  @KernelListener(KernelEvents.EXCEPTION, { priority: -96 })
  onKernelException(event: ExceptionEvent): void {
    if (!this.access.allows(event.request)) return;
    event.setResponse(this.renderer.render(event.throwable, event.request));
  }
}
