import { KernelHttpException } from './kernel-http.exception.js';

export class UnsupportedMediaTypeHttpException extends KernelHttpException {
  constructor(message = 'Unsupported Media Type', cause?: unknown) {
    super(415, message, cause);
  }
}
