import { KernelHttpException } from './kernel-http.exception.js';

/** 401: the resource needs an authenticated user; `challenge` is the WWW-Authenticate value RFC 9110 requires. */
export class UnauthorizedHttpException extends KernelHttpException {
  constructor(challenge: string, message = 'Unauthorized', cause?: unknown, headers: Record<string, string> = {}) {
    super(401, message, cause, { ...headers, 'WWW-Authenticate': challenge });
  }
}
