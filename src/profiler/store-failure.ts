import { classOf, messageOf } from '../lifecycle/errors/exception-status.js';
import type { KernelLogger } from '../lifecycle/logging/kernel-logger.js';
import { LogLevel } from '../lifecycle/logging/log-level.js';

/** How a failure of the profile store is reported wherever it happens: logged, never thrown at a request. */
export function logStoreFailure(logger: KernelLogger, error: unknown): void {
  logger.record(LogLevel.ERROR, 'profiler', 'The profile store failed: {message}', {
    message: `${classOf(error)}: ${messageOf(error)}`,
    exception: error,
  });
}
