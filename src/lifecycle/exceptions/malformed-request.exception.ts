import { RequestException } from './request.exception.js';

/** The request cannot be read: invalid percent-encoding in the path, a body that does not parse. */
export class MalformedRequestException extends RequestException {}
