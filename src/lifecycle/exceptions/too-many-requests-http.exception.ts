import { KernelHttpException } from './kernel-http.exception.js';

/** 429; `retryAfter` (seconds) becomes the Retry-After header. */
export class TooManyRequestsHttpException extends KernelHttpException {
  constructor(
    readonly retryAfter: number | null = null,
    message = 'Too Many Requests',
    cause?: unknown,
    headers: Record<string, string> = {},
  ) {
    super(429, message, cause, retryAfter === null ? headers : { ...headers, 'Retry-After': String(retryAfter) });
  }
}
