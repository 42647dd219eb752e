import { AsyncLocalStorage } from 'node:async_hooks';
import type { Response } from 'express';
import type { LogEntry } from './logging/log-entry.js';
import type { KernelRequest } from './http/kernel-request.js';

/** One listener notification, as the profiler's Events and Performance panels show it. */
export interface ListenerCall {
  readonly event: string;
  readonly listener: string;
  readonly priority: number;
  /** Milliseconds since the request entered the kernel. */
  start: number;
  duration: number;
  stoppedPropagation: boolean;
  /** The listener's row in `KernelEventDispatcher.table()` when the call was made (a compact reference to store). */
  tableIndex: number;
  /**
   * Its `Notified event` log entry, which the traced dispatcher does not write (requestLog makes it when read): its
   * place in `KernelContext.logs` (before the entry at that index) and its time, in milliseconds after `startedAt`.
   * -1: none.
   */
  notifiedAt: number;
  notifiedTime: number;
}

declare const valueType: unique symbol;

/**
 * A key for per-request data that carries its value's type: `context.get(CART_PROFILE)` is typed where the key is
 * declared, not at each call site. At run time it is a plain symbol.
 */
export type ContextKey<T> = symbol & { readonly [valueType]: T };

/** A plain symbol: the caller names the type (`context.get<T>(KEY)`); a typed key never passes as one. */
type UntypedKey = symbol & { readonly [valueType]?: never };

export function contextKey<T>(description: string): ContextKey<T> {
  return Symbol(description) as ContextKey<T>;
}

/** Where the response of a request stands, so that every phase runs exactly once. */
export enum ResponsePhase {
  Pending = 0,
  /** kernel.response is running or has run: the response is being finalised. */
  Committing = 1,
  Committed = 2,
}

/**
 * Everything the kernel knows about one request in flight. Lives in AsyncLocalStorage (never in a singleton
 * field), so any code running for the request, however deep and however asynchronous, reaches it.
 */
export class KernelContext {
  /** performance.now() when the request entered the kernel. */
  readonly start: number;
  /** Date.now() at the same moment. */
  readonly startedAt: number;
  readonly logs: LogEntry[] = [];
  readonly listenerCalls: ListenerCall[] = [];
  request!: KernelRequest;
  phase = ResponsePhase.Pending;
  /** The throwable that decided the response, once kernel.exception has run. */
  exception: unknown = undefined;
  /** Locale of the request being handled, for locale-aware services (formatters, translations). */
  locale: string;
  terminated = false;
  /** Bytes of the response body as written, when it was written whole (undefined when streamed). */
  responseSize: number | undefined = undefined;
  /** Per-request data of other modules (profiler, shop), keyed by a symbol (or a typed `ContextKey`) each owns. */
  private readonly extensions = new Map<symbol, unknown>();

  constructor(
    readonly res: Response,
    defaultLocale: string,
  ) {
    this.start = performance.now();
    this.startedAt = Date.now();
    this.locale = defaultLocale;
  }

  /**
   * Milliseconds since the request entered the kernel, to the microsecond: finer digits are noise at this scale,
   * and a profile stores dozens of these times, which JSON writes several times faster as 0.734 than as
   * 0.7344460000003892.
   */
  elapsed(): number {
    return Math.round((performance.now() - this.start) * 1000) / 1000;
  }

  /** Milliseconds from `start`, an `elapsed()` of this request, until now: to the microsecond, as elapsed(). */
  since(start: number): number {
    return Math.round((this.elapsed() - start) * 1000) / 1000;
  }

  get<T>(key: ContextKey<T>): T | undefined;
  get<T>(key: UntypedKey): T | undefined;
  get(key: symbol): unknown {
    return this.extensions.get(key);
  }

  set<T>(key: ContextKey<T>, value: T): void;
  set<T>(key: UntypedKey, value: T): void;
  set(key: symbol, value: unknown): void {
    this.extensions.set(key, value);
  }
}

export const kernelContextStorage = new AsyncLocalStorage<KernelContext>();

export function currentKernelContext(): KernelContext | undefined {
  return kernelContextStorage.getStore();
}
