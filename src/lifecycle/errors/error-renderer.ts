import type { KernelRequest } from '../http/kernel-request.js';
import type { KernelResponse } from '../http/kernel-response.js';

/**
 * Turns a throwable into the response the client sees (the ErrorListener calls it in kernel.exception). An
 * abstract class as DI token: the LifecycleModule provides the basic renderer; in debug mode the ProfilerModule's
 * DebugErrorListener answers first (kernel.exception -96) with the debug page.
 * The status and the exception's headers are set by the kernel afterwards, the same in every renderer.
 */
export abstract class ErrorRenderer {
  abstract render(throwable: unknown, request: KernelRequest): KernelResponse;
}
