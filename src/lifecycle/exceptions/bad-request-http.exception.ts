import { KernelHttpException } from './kernel-http.exception.js';

export class BadRequestHttpException extends KernelHttpException {
  constructor(message = 'Bad Request', cause?: unknown, headers: Record<string, string> = {}) {
    super(400, message, cause, headers);
  }
}
