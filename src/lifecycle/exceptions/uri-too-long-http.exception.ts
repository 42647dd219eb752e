import { KernelHttpException } from './kernel-http.exception.js';

/** 414: the request-target is longer than MAX_URL_LENGTH. */
export class UriTooLongHttpException extends KernelHttpException {
  constructor(message = 'URI Too Long', cause?: unknown, headers: Record<string, string> = {}) {
    super(414, message, cause, headers);
  }
}
