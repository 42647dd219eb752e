import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { KernelListener } from '../kernel-listener.decorator.js';
import { KernelEvents, type RequestEvent } from '../kernel.events.js';
import { KernelLogger } from '../logging/kernel-logger.js';
import { LogLevel } from '../logging/log-level.js';

/**
 * Debug setup, on the first request (Symfony's DebugHandlersListener::configure): in debug mode, deeper stack
 * traces for the error page, and Node's process warnings (deprecations above all) routed into the logs of the
 * request during which they were emitted (channel `deprecation`, or `php`'s Node counterpart `node`), so that a
 * deprecated API called by a controller shows up in that request's error page and profile. The process listener
 * is removed when the application closes (several applications in one process, as in the tests, would otherwise
 * pile up listeners and record each warning once per application ever started).
 */
@Injectable()
export class DebugHandlersListener implements OnModuleDestroy {
  private configured = false;
  private onWarning?: (warning: Error & { code?: string }) => void;

  constructor(
    private readonly config: AppConfig,
    private readonly logger: KernelLogger,
  ) {}

  @KernelListener(KernelEvents.REQUEST, { priority: 2048 })
  configure(_event: RequestEvent): void {
    if (this.configured) return;
    this.configured = true;
    if (!this.config.debug) return;
    if (Error.stackTraceLimit < 50) Error.stackTraceLimit = 50;
    this.onWarning = (warning) => {
      const deprecation = warning.name === 'DeprecationWarning';
      this.logger.record(
        deprecation ? LogLevel.INFO : LogLevel.WARNING,
        deprecation ? 'deprecation' : 'node',
        '{name}: {message}',
        {
          name: warning.name,
          message: warning.message,
          code: warning.code ?? null,
        },
      );
    };
    process.on('warning', this.onWarning);
  }

  onModuleDestroy(): void {
    if (this.onWarning) process.off('warning', this.onWarning);
    this.onWarning = undefined;
  }
}
