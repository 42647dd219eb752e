import { KernelHttpException } from './kernel-http.exception.js';

/** 405; the allowed methods are kept on the exception and sent in the Allow header. */
export class MethodNotAllowedHttpException extends KernelHttpException {
  constructor(
    readonly allowedMethods: string[],
    message = 'Method Not Allowed',
    cause?: unknown,
    headers: Record<string, string> = {},
  ) {
    super(405, message, cause, { ...headers, Allow: allowedMethods.join(', ') });
  }
}
