import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse } from 'node-html-parser';
import request from 'supertest';
import type { RequestData } from '../src/profiler/collectors/request.collector.js';
import type { OutgoingCalls } from '../src/profiler/http-client/outgoing-call.js';
import { HttpClientFixturesModule } from './fixtures/http-client-fixtures.module.js';
import { startTestServer } from './support/browser.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';

const HOST = 'shop.test';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

/**
 * W3C Trace Context through two Shopkernel instances: the first records the incoming `traceparent` and sends one of
 * the same trace with each outgoing call, the second records the call's span as its parent.
 */
describe('traceparent in and out (e2e)', () => {
  let app: NestExpressApplication;
  let other: NestExpressApplication;
  let otherBase: string;

  beforeAll(async () => {
    ({ app: other, baseUrl: otherBase } = await startTestServer());
    app = await createTestApp({ imports: [HttpClientFixturesModule] });
  });
  afterAll(async () => {
    await app?.close();
    await other?.close();
  });

  async function chain(traceparent?: string) {
    const path = `/fixture-http/both?fetch=${encodeURIComponent(`${otherBase}/products`)}&http=${encodeURIComponent(`${otherBase}/`)}`;
    const call = request(app.getHttpServer()).get(path).set('Host', HOST);
    const res = await (traceparent ? call.set('traceparent', traceparent) : call).expect(200);
    const first = await storedProfile(app, res.headers['x-debug-token']);
    const calls = (first.data.http_client as OutgoingCalls).calls;
    const called = await Promise.all(calls.map((c) => storedProfile(other, c.debugToken!)));
    return {
      token: first.token,
      trace: (first.data.request as RequestData).trace!,
      calls,
      theirs: called.map((p) => (p.data.request as RequestData).trace!),
    };
  }

  it("records the caller's trace and parent span, and passes the trace on with a span per call", async () => {
    const { trace, calls, theirs } = await chain(`00-${TRACE_ID}-${PARENT}-01`);
    expect(trace).toEqual({
      traceId: TRACE_ID,
      parentSpanId: PARENT,
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
      sampled: true,
    });
    expect(calls).toHaveLength(2);
    for (const [i, call] of calls.entries()) {
      expect(call.requestHeaders.traceparent).toBe(`00-${TRACE_ID}-${call.spanId}-01`);
      expect(theirs[i]).toMatchObject({ traceId: TRACE_ID, parentSpanId: call.spanId });
      expect(theirs[i].spanId).not.toBe(call.spanId);
    }
    expect(new Set([trace.spanId, ...calls.map((c) => c.spanId)]).size).toBe(3);
  });

  it('starts a trace for a request that brings none, or a malformed one, and still passes it on', async () => {
    for (const header of [undefined, 'garbage', `00-${'0'.repeat(32)}-${PARENT}-01`]) {
      const { trace, calls, theirs } = await chain(header);
      expect([header, trace.traceId, trace.parentSpanId]).toEqual([
        header,
        expect.stringMatching(/^[0-9a-f]{32}$/),
        null,
      ]);
      expect(trace.traceId).not.toBe(TRACE_ID);
      expect(theirs.map((t) => t.traceId)).toEqual([trace.traceId, trace.traceId]);
      expect(theirs.map((t) => t.parentSpanId)).toEqual(calls.map((c) => c.spanId));
    }
  });

  it('shows the trace on the profile page and in the Request panel', async () => {
    const { token, trace } = await chain(`00-${TRACE_ID}-${PARENT}-00`);
    expect(trace.sampled).toBe(false);
    const page = parse(
      (await request(app.getHttpServer()).get(`/_profiler/${token}?panel=request`).set('Host', HOST).expect(200)).text,
    );
    expect(page.querySelector('.summary dd.trace')!.text).toBe(TRACE_ID);
    // Its requests recorded here, through full-text search.
    expect(page.querySelector('.summary dd.trace a')!.getAttribute('href')).toBe(
      `/_profiler/search?q=${TRACE_ID}&limit=10`,
    );
    const rows = Object.fromEntries(
      page
        .querySelectorAll('#panel-request table.kv tr')
        .map((tr) => [tr.querySelector('th')!.text, tr.querySelector('td')!.text]),
    );
    expect([rows['Trace id'], rows['Parent span id'], rows['Span id']]).toEqual([TRACE_ID, PARENT, trace.spanId]);
  });
});
