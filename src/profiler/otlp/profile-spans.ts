import {
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Attributes,
  type HrTime,
  type SpanContext,
} from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_CODE_FUNCTION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import { Redactor } from '../../lifecycle/redaction/redactor.js';
import type { OutgoingCalls } from '../http-client/outgoing-call.js';
import { partsOf } from '../profile-parts.js';
import type { ProfileRecord } from '../storage/profile-record.js';
import { newSpanId } from '../tracing/trace-context.js';

/** What every span of one export shares: the service (resource) and the instrumentation (scope). */
export interface SpanOrigin {
  resource: Resource;
  scope: InstrumentationScope;
}

/** Milliseconds since the epoch as OpenTelemetry's [seconds, nanoseconds]. */
function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/**
 * A stored profile as OTLP spans, named and attributed by the OpenTelemetry semantic conventions: the request
 * (SERVER, the trace's span of this request, child of the caller's), each kernel event and the controller
 * (INTERNAL), each query and each outgoing call (CLIENT; a call's span is the one its `traceparent` named).
 * Built from the stored, redacted data only.
 */
export function profileSpans(record: ProfileRecord, origin: SpanOrigin): ReadableSpan[] {
  const { request, performance, database } = partsOf(record);
  const trace = request?.trace;
  if (!trace) return [];
  const start = record.time;
  const end = start + (record.duration ?? performance?.total ?? 0);
  const context = (spanId: string): SpanContext => ({
    traceId: trace.traceId,
    spanId,
    traceFlags: trace.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
  });
  const parentOfRequest = trace.parentSpanId ? { ...context(trace.parentSpanId), isRemote: true } : undefined;
  const span = (
    spanId: string,
    parent: SpanContext | undefined,
    name: string,
    kind: SpanKind,
    from: number,
    to: number,
    attributes: Attributes,
    error: string | null = null,
  ): ReadableSpan => ({
    name,
    kind,
    spanContext: () => context(spanId),
    parentSpanContext: parent,
    startTime: hrTime(from),
    endTime: hrTime(Math.max(from, to)),
    duration: hrTime(Math.max(0, to - from)),
    status: error === null ? { code: SpanStatusCode.UNSET } : { code: SpanStatusCode.ERROR, message: error },
    attributes,
    links: [],
    events: [],
    ended: true,
    resource: origin.resource,
    instrumentationScope: origin.scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  });

  const own = context(trace.spanId);
  const spans = [
    span(
      trace.spanId,
      parentOfRequest,
      `${record.method} ${record.route ?? Redactor.url(request.path)}`,
      SpanKind.SERVER,
      start,
      end,
      {
        [ATTR_HTTP_REQUEST_METHOD]: record.method,
        [ATTR_URL_FULL]: Redactor.url(record.url),
        [ATTR_URL_PATH]: Redactor.url(request.path),
        [ATTR_HTTP_RESPONSE_STATUS_CODE]: record.statusCode,
        [ATTR_CLIENT_ADDRESS]: record.ip,
        [ATTR_SERVER_ADDRESS]: request.host,
        ...(record.route ? { [ATTR_HTTP_ROUTE]: record.route } : {}),
        'shopkernel.profile.token': record.token,
      },
      record.statusCode >= 500 ? String(record.statusCode) : null,
    ),
  ];
  for (const section of performance?.sections ?? []) {
    if (section.category !== 'event' && section.category !== 'controller') continue;
    const attributes: Attributes = section.category === 'controller' ? { [ATTR_CODE_FUNCTION_NAME]: section.name } : {};
    spans.push(
      span(
        newSpanId(),
        own,
        section.name,
        SpanKind.INTERNAL,
        start + section.start,
        start + section.start + section.duration,
        attributes,
      ),
    );
  }
  for (const query of database?.queries ?? []) {
    spans.push(
      span(
        newSpanId(),
        own,
        query.sql.trim().split(/\s+/, 1)[0].toUpperCase(),
        SpanKind.CLIENT,
        start + query.start,
        start + query.start + query.duration,
        {
          [ATTR_DB_SYSTEM_NAME]: database!.dialect === 'postgres' ? 'postgresql' : 'sqlite',
          [ATTR_DB_QUERY_TEXT]: query.sql,
          ...(query.error ? { [ATTR_ERROR_TYPE]: 'query_failed' } : {}),
        },
        query.error,
      ),
    );
  }
  for (const call of (record.data.http_client as OutgoingCalls | undefined)?.calls ?? []) {
    let server = '';
    try {
      server = new URL(call.url).hostname;
    } catch {
      // a URL recorded as sent but not parsed: the span goes without server.address
    }
    spans.push(
      span(
        call.spanId ?? newSpanId(),
        own,
        call.method,
        SpanKind.CLIENT,
        start + call.start,
        start + call.start + (call.duration ?? 0),
        {
          [ATTR_HTTP_REQUEST_METHOD]: call.method,
          [ATTR_URL_FULL]: Redactor.url(call.url),
          ...(server ? { [ATTR_SERVER_ADDRESS]: server } : {}),
          ...(call.status !== null ? { [ATTR_HTTP_RESPONSE_STATUS_CODE]: call.status } : {}),
          ...(call.error ? { [ATTR_ERROR_TYPE]: call.timedOut ? 'timeout' : 'request_failed' } : {}),
        },
        call.error ?? ((call.status ?? 0) >= 500 ? String(call.status) : null),
      ),
    );
  }
  return spans;
}
