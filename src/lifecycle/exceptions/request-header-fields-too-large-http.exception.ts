import { KernelHttpException } from './kernel-http.exception.js';

/** 431: more header fields than MAX_HEADER_COUNT (a header section over MAX_HEADER_SIZE is refused by Node itself). */
export class RequestHeaderFieldsTooLargeHttpException extends KernelHttpException {
  constructor(message = 'Request Header Fields Too Large', cause?: unknown, headers: Record<string, string> = {}) {
    super(431, message, cause, headers);
  }
}
