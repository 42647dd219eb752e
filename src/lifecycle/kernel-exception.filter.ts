import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { HttpKernel } from './http-kernel.js';
import { contextOf } from './kernel-symbols.js';

/**
 * Sends every exception Nest catches (from guards, interceptors, pipes, handlers, rendering) back into the
 * kernel, so that it passes kernel.exception and then kernel.response like an error from any other phase.
 */
@Catch()
export class KernelExceptionFilter implements ExceptionFilter {
  constructor(private readonly kernel: HttpKernel) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const res = host.switchToHttp().getResponse<Response>();
    const context = contextOf(res);
    if (context) {
      this.kernel.handleThrowable(exception, context);
      return;
    }
    if (!res.headersSent) res.status(500).type('text/plain').send('Internal Server Error\n');
  }
}
