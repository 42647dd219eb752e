import { contextKey } from '../../lifecycle/kernel-context.js';

/** Where an outgoing call was made: a raw V8 position, mapped to the TypeScript source when the panel is opened. */
export interface CallPosition {
  file: string;
  line: number;
  column: number;
}

/** One HTTP call the application made while handling a request, as plain values (secrets masked). */
export interface OutgoingCall {
  /** `fetch` (undici) or `http` (node:http, node:https). */
  client: 'fetch' | 'http';
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  /** Bytes of the request body, when known. */
  requestBytes: number | null;
  status: number | null;
  responseHeaders: Record<string, string>;
  /** Bytes of the response body (its Content-Length), when known. */
  responseBytes: number | null;
  /** Milliseconds since the request entered the kernel, when the call started. */
  start: number;
  /** Until the response headers arrived. */
  waited: number | null;
  /** Until the whole response was read; null while it was still running when the request ended. */
  duration: number | null;
  error: string | null;
  timedOut: boolean;
  caller: CallPosition | null;
  /** The called service's profile, when it is a Shopkernel in debug mode (its X-Debug-Token and link). */
  debugToken: string | null;
  debugLink: string | null;
  /** The call's span in the request's trace (its `traceparent` names it as the called service's parent). */
  spanId: string;
}

/** A request's outgoing calls, and how many more it made than a profile keeps. */
export interface OutgoingCalls {
  calls: OutgoingCall[];
  dropped: number;
}

/** The request's outgoing calls, on its KernelContext (HttpClientRecorder writes, HttpClientCollector reads). */
export const OUTGOING_CALLS = contextKey<OutgoingCalls>('shopkernel.http-client');
