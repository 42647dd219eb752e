import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { KernelContext } from '../lifecycle/kernel-context.js';
import { KERNEL_CONTEXT } from '../lifecycle/kernel-symbols.js';
import { sessionOf } from './session-context.js';

/** The request's session in a handler: `@CurrentSession() session: Session`. */
export const CurrentSession = createParamDecorator((_: unknown, execution: ExecutionContext) => {
  const context: KernelContext = execution.switchToHttp().getRequest()[KERNEL_CONTEXT];
  return sessionOf(context);
});
