import { contextKey, type KernelContext } from '../../lifecycle/kernel-context.js';
import { randomHex } from './random-hex.js';

/** The request's place in a W3C trace: the trace, its own span, and the span of the caller that sent it. */
export interface TraceContext {
  traceId: string;
  spanId: string;
  /** The caller's span, from the incoming `traceparent`; null when the request started the trace. */
  parentSpanId: string | null;
  sampled: boolean;
}

export const TRACE = contextKey<TraceContext>('shopkernel.trace');

/** W3C Trace Context, version 00: `00-<trace id>-<parent span id>-<flags>`, lower-case hex. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO = /^0+$/;

export function newTraceId(): string {
  return randomHex(16);
}

export function newSpanId(): string {
  return randomHex(8);
}

/** The caller's trace from a `traceparent` header; null for a missing or malformed one (the spec's: start anew). */
export function parseTraceparent(
  header: string | undefined,
): { traceId: string; parentSpanId: string; sampled: boolean } | null {
  const match = TRACEPARENT.exec(header?.trim() ?? '');
  if (!match || ZERO.test(match[1]) || ZERO.test(match[2])) return null;
  return { traceId: match[1], parentSpanId: match[2], sampled: (parseInt(match[3], 16) & 1) === 1 };
}

export function traceparent(traceId: string, spanId: string, sampled: boolean): string {
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}

/**
 * The request's trace: the incoming `traceparent`'s, or a new one, with a span of the request's own; made once, the
 * first time something asks (the Request collector, an outgoing call).
 */
export function requestTrace(context: KernelContext): TraceContext {
  let trace = context.get(TRACE);
  if (!trace) {
    const parent = parseTraceparent(context.request.header('traceparent'));
    // One read of the random pool per request, for both ids: every profiled request makes a trace.
    const ids = randomHex(24);
    trace = {
      traceId: parent?.traceId ?? ids.slice(16),
      spanId: ids.slice(0, 16),
      parentSpanId: parent?.parentSpanId ?? null,
      sampled: parent?.sampled ?? true,
    };
    context.set(TRACE, trace);
  }
  return trace;
}
