import { KernelHttpException } from './kernel-http.exception.js';

/** 409: the request cannot be carried out in the resource's current state (the last unit was sold meanwhile). */
export class ConflictHttpException extends KernelHttpException {
  constructor(message = 'Conflict', cause?: unknown, headers: Record<string, string> = {}) {
    super(409, message, cause, headers);
  }
}
