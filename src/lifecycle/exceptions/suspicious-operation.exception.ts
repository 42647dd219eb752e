import { RequestException } from './request.exception.js';

/** The request claims something that cannot be true or must not be believed (an invalid or untrusted Host). */
export class SuspiciousOperationException extends RequestException {}
