import { KernelHttpException } from './kernel-http.exception.js';

/** 503; `retryAfter` (seconds) becomes the Retry-After header. */
export class ServiceUnavailableHttpException extends KernelHttpException {
  constructor(
    readonly retryAfter: number | null = null,
    message = 'Service Unavailable',
    cause?: unknown,
    headers: Record<string, string> = {},
  ) {
    super(503, message, cause, retryAfter === null ? headers : { ...headers, 'Retry-After': String(retryAfter) });
  }
}
