import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { contextOf } from '../lifecycle/kernel-symbols.js';
import { sessionOf } from './session-context.js';

/** The request's session in a handler: `@CurrentSession() session: Session`. */
export const CurrentSession = createParamDecorator((_: unknown, execution: ExecutionContext) => {
  const context = contextOf(execution.switchToHttp().getRequest<object>())!;
  return sessionOf(context);
});
