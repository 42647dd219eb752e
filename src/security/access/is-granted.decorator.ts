import { SetMetadata } from '@nestjs/common';
import type { ControllerHandler } from '../../lifecycle/routing/controller-resolver.js';

export const IS_GRANTED_METADATA = 'shopkernel:is-granted';

/**
 * The handler (or every handler of the controller class) needs these roles, all of them: checked in
 * kernel.controller_arguments by the AccessListener. An anonymous visitor is sent to log in (401 for JSON); a user
 * without the role gets a 403. `@IsGranted('ROLE_USER')` is "a logged-in user".
 */
export const IsGranted = (...roles: string[]): MethodDecorator & ClassDecorator =>
  SetMetadata(IS_GRANTED_METADATA, roles);

/** The roles a handler needs: its controller class's and its own. */
export function grantedRoles(handler: ControllerHandler): string[] {
  const own: string[] | undefined = Reflect.getMetadata(IS_GRANTED_METADATA, handler.method);
  const inherited: string[] | undefined = Reflect.getMetadata(IS_GRANTED_METADATA, handler.target);
  if (!inherited) return own ?? [];
  return own ? [...new Set([...inherited, ...own])] : inherited;
}
