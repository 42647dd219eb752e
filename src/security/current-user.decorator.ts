import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { contextOf } from '../lifecycle/kernel-symbols.js';
import { currentUser } from './security-context.js';

/**
 * The logged-in user in a handler (`@CurrentUser() user: AuthenticatedUser | null`); behind the firewall's
 * protected paths (/account, /checkout) it is never null.
 */
export const CurrentUser = createParamDecorator((_: unknown, execution: ExecutionContext) => {
  const context = contextOf(execution.switchToHttp().getRequest<object>())!;
  return currentUser(context);
});
