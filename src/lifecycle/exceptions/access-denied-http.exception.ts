import { KernelHttpException } from './kernel-http.exception.js';

export class AccessDeniedHttpException extends KernelHttpException {
  constructor(message = 'Access Denied.', cause?: unknown, headers: Record<string, string> = {}) {
    super(403, message, cause, headers);
  }
}
