import { SetMetadata } from '@nestjs/common';

export const CSRF_PROTECTED_METADATA = 'shopkernel:csrf-protected';

/** The form field and the header a token comes back in. */
export const CSRF_FIELD = '_csrf_token';
export const CSRF_HEADER = 'x-csrf-token';

/**
 * The handler accepts only requests carrying the session's token for `id`: in the `_csrf_token` form field or
 * the X-CSRF-Token header. Checked by the CsrfListener in kernel.controller; a missing or wrong token is a 403.
 */
export const CsrfProtected = (id: string): MethodDecorator => SetMetadata(CSRF_PROTECTED_METADATA, id);
