import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { defer, from, switchMap, type Observable } from 'rxjs';
import { KernelEventDispatcher } from './event-dispatcher.js';
import type { KernelContext } from './kernel-context.js';
import { KERNEL_CONTEXT } from './kernel-symbols.js';
import { ControllerArgumentsEvent, ControllerEvent, type ControllerReference } from './kernel.events.js';
import { KernelLogger } from './logging/kernel-logger.js';
import { LogLevel } from './logging/log-level.js';

/**
 * kernel.controller and kernel.controller_arguments for Nest controllers. An interceptor is the first place
 * where Nest names the handler it is about to call; it runs after guards and before pipes. (Nest resolves the
 * handler's arguments with pipes after the interceptors, and offers no hook between pipes and the call, so the
 * arguments event carries the route parameters the handler will receive, not the piped values.)
 */
@Injectable()
export class KernelInterceptor implements NestInterceptor {
  constructor(
    private readonly dispatcher: KernelEventDispatcher,
    private readonly logger: KernelLogger,
  ) {}

  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (execution.getType() !== 'http') return next.handle();
    const context: KernelContext | undefined = execution.switchToHttp().getRequest()[KERNEL_CONTEXT];
    if (!context) return next.handle();
    const request = context.request;
    const target = execution.getClass();
    const method = execution.getHandler() as (...args: unknown[]) => unknown;
    const reference: ControllerReference = { name: `${target.name}::${method.name}`, className: target.name, methodName: method.name };
    if (request.attributes._controller !== reference.name) {
      // The router and Express agree by construction; a host or version filter can still send the request on.
      this.logger.record(LogLevel.WARNING, 'request', 'Route "{route}" matched controller "{matched}" but Nest called "{called}".', {
        route: request.attributes._route ?? null,
        matched: request.attributes._controller ?? null,
        called: reference.name,
      }, context);
      request.attributes._controller = reference.name;
    }
    const event = this.dispatcher.dispatch(new ControllerEvent(request, reference, { target, method }), context);
    const call = (): Observable<unknown> => {
      const replacement = event.replacement;
      if (replacement) return defer(async () => replacement());
      return next.handle();
    };
    const proceed = (): Observable<unknown> => {
      const argumentsEvent = this.dispatcher.dispatch(new ControllerArgumentsEvent(request, event.controller, { ...(request.attributes._route_params ?? {}) }, event.handler), context);
      return argumentsEvent.settled ? from(argumentsEvent.settled).pipe(switchMap(call)) : call();
    };
    if (!event.settled) return proceed();
    // A kernel.controller listener is loading something (ControllerEvent.waitFor): wait, then go on; a rejection
    // becomes the observable's error, which Nest hands to the kernel's exception filter (kernel.exception).
    return from(event.settled).pipe(switchMap(proceed));
  }
}
