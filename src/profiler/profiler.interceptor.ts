import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { finalize, type Observable } from 'rxjs';
import { contextKey } from '../lifecycle/kernel-context.js';
import { contextOf } from '../lifecycle/kernel-symbols.js';
import { Profile } from './profile.js';

/** What the profiler's interceptor saw of the controller call. */
export interface ControllerCall {
  /** `Class::method`. */
  controller: string;
  /** Milliseconds since the request entered the kernel. */
  start: number;
  /** Until the handler's result was produced (pipes, handler, its observable); undefined if it never settled. */
  duration: number | undefined;
}

export const CONTROLLER_CALL = contextKey<ControllerCall>('shopkernel.profiler.controller-call');

/**
 * The design card's interceptor: records the controller-level data of a profiled request (which handler Nest
 * called, when, and for how long, pipes included) for the Request and Performance panels.
 */
@Injectable()
export class ProfilerInterceptor implements NestInterceptor {
  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (execution.getType() !== 'http') return next.handle();
    const context = contextOf(execution.switchToHttp().getRequest<object>());
    if (!context || !Profile.of(context)) return next.handle();
    const call: ControllerCall = {
      controller: `${execution.getClass().name}::${execution.getHandler().name}`,
      start: context.elapsed(),
      duration: undefined,
    };
    context.set(CONTROLLER_CALL, call);
    return next.handle().pipe(
      finalize(() => {
        call.duration = context.since(call.start);
      }),
    );
  }
}
