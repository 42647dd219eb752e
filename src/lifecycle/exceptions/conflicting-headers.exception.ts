import { RequestException } from './request.exception.js';

/** A trusted proxy sent both Forwarded and X-Forwarded-For, and they disagree on the client. */
export class ConflictingHeadersException extends RequestException {}
