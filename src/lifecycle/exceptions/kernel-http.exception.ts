import { HttpException } from '@nestjs/common';

/**
 * An exception that carries an HTTP status and headers, and optionally the exception that caused it.
 * It extends Nest's HttpException, so Nest's own machinery (and user code catching HttpException) recognises it.
 */
export class KernelHttpException extends HttpException {
  readonly statusCode: number;
  readonly headers: Record<string, string>;

  constructor(statusCode: number, message: string, cause?: unknown, headers: Record<string, string> = {}) {
    super(message, statusCode, cause === undefined ? undefined : { cause });
    this.statusCode = statusCode;
    this.headers = headers;
    this.name = new.target.name;
  }
}
