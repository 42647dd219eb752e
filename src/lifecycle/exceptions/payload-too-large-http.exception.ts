import { KernelHttpException } from './kernel-http.exception.js';

export class PayloadTooLargeHttpException extends KernelHttpException {
  constructor(message = 'Payload Too Large', cause?: unknown) {
    super(413, message, cause);
  }
}
