import { SpanKind } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ProfileRecord } from '../storage/profile-record.js';
import { profileSpans } from './profile-spans.js';

const origin = { resource: resourceFromAttributes({ 'service.name': 'test' }), scope: { name: 'test' } };
const record = (data: Record<string, unknown>): ProfileRecord =>
  ({
    token: 'abc123',
    method: 'GET',
    url: 'http://shop.test/products?token=******',
    ip: '127.0.0.1',
    time: 1_800_000_000_123.5,
    duration: 12.25,
    statusCode: 503,
    route: null,
    data,
  }) as unknown as ProfileRecord;

describe('profileSpans', () => {
  it('makes nothing of a profile stored before traces were recorded', () => {
    expect(profileSpans(record({ request: { path: '/products' } }), origin)).toEqual([]);
  });

  it('makes the request span with its times to the nanosecond, an error status for a 5xx, and no parent of its own', () => {
    const [span] = profileSpans(
      record({
        request: {
          path: '/products',
          host: 'shop.test',
          trace: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), parentSpanId: null, sampled: true },
        },
      }),
      origin,
    );
    expect(span.name).toBe('GET /products');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.spanContext()).toEqual({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 });
    expect(span.startTime).toEqual([1_800_000_000, 123_500_000]);
    expect(span.endTime).toEqual([1_800_000_000, 135_750_000]);
    expect(span.status).toEqual({ code: 2, message: '503' });
    expect(span.attributes['url.full']).toBe('http://shop.test/products?token=******');
  });
});
