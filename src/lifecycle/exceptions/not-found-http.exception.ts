import { KernelHttpException } from './kernel-http.exception.js';

export class NotFoundHttpException extends KernelHttpException {
  constructor(message = 'Not Found', cause?: unknown, headers: Record<string, string> = {}) {
    super(404, message, cause, headers);
  }
}
