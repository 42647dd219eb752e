import type { Response } from 'express';
import type { KernelContext } from './kernel-context.js';

/** Where the kernel keeps a request's context on the Express request and response objects. */
export const KERNEL_CONTEXT = Symbol.for('shopkernel.context');

interface CarriesContext {
  [KERNEL_CONTEXT]?: KernelContext;
}

/** Marks a request and its response as the kernel's: `contextOf` finds the context from either. */
export function attachContext(req: object, res: object, context: KernelContext): void {
  (req as CarriesContext)[KERNEL_CONTEXT] = context;
  (res as CarriesContext)[KERNEL_CONTEXT] = context;
}

/** The kernel's context of an Express request or response (Nest's `getRequest()`, a filter's response); undefined when the kernel never saw it. */
export function contextOf(message: object): KernelContext | undefined {
  return (message as CarriesContext)[KERNEL_CONTEXT];
}

export interface ResponseCommitter {
  /**
   * Runs kernel.response and kernel.finish_request; returns the body to write (unchanged when streamed), or a
   * promise of it when a listener waits (never for a streamed response).
   */
  commitResponse(
    context: KernelContext,
    res: Response,
    body: string | Buffer | undefined,
    streamed: boolean,
  ): string | Buffer | undefined | Promise<string | Buffer | undefined>;

  /** kernel.terminate, once the response has been written whole or its connection has gone (Node's `close`). */
  terminate(context: KernelContext): void;
}
