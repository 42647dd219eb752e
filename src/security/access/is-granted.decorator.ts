import { SetMetadata } from '@nestjs/common';

export const IS_GRANTED_METADATA = 'shopkernel:is-granted';

/**
 * The handler needs these roles (all of them): checked in kernel.controller_arguments by the AccessListener. An
 * anonymous visitor is sent to log in (401 for JSON); a user without the role gets a 403.
 */
export const IsGranted = (...roles: string[]): MethodDecorator => SetMetadata(IS_GRANTED_METADATA, roles);
