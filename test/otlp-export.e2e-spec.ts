import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../src/database/shop-db.js';
import type { OutgoingCalls } from '../src/profiler/http-client/outgoing-call.js';
import { OtlpProfileExporter } from '../src/profiler/otlp/otlp-profile-exporter.js';
import { HttpClientFixturesModule } from './fixtures/http-client-fixtures.module.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';
import { startStubService, type StubService } from './support/stub-service.js';

const HOST = 'shop.test';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** An OTLP/HTTP receiver: the JSON the OpenTelemetry exporter sends, decoded as the collector would. */
class Receiver {
  readonly spans: OtlpSpan[] = [];
  readonly services = new Set<string>();
  private service: StubService | undefined;
  port = 0;

  async start(port = 0): Promise<void> {
    this.service = await startStubService((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: Array<{
            resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
            scopeSpans: Array<{ spans: OtlpSpan[] }>;
          }>;
        };
        for (const resourceSpans of body.resourceSpans) {
          const name = resourceSpans.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
          if (name) this.services.add(name);
          for (const scope of resourceSpans.scopeSpans) this.spans.push(...scope.spans);
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    }, port);
    this.port = this.service.port;
  }

  async stop(): Promise<void> {
    await this.service?.close();
  }

  /** Waits until `check` holds (the exporter sends every half second). */
  async until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > end) throw new Error(`Timed out; received ${this.spans.length} spans`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value && (value.stringValue ?? value.intValue);
};

describe('Profiles exported as OTLP spans (e2e)', () => {
  let app: NestExpressApplication;
  let receiver: Receiver;
  let stub: StubService;

  beforeAll(async () => {
    receiver = new Receiver();
    await receiver.start();
    stub = await startStubService((_req, res) => res.writeHead(200, { 'Content-Length': '2' }).end('ok'));
    app = await createTestApp({
      imports: [HttpClientFixturesModule],
      env: { PROFILER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`, OTEL_SERVICE_NAME: 'shop-test' },
    });
    await seedCatalogue(app.get(ShopDb));
  });
  afterAll(async () => {
    await app?.close();
    await receiver.stop();
    await stub?.close();
  });

  it('sends the request, its kernel events, controller, queries and outgoing calls as one trace, parented as they ran', async () => {
    const res = await request(app.getHttpServer())
      .get(
        `/fixture-http/both?fetch=${encodeURIComponent(`${stub.base}/a`)}&http=${encodeURIComponent(`${stub.base}/b`)}`,
      )
      .set('Host', HOST)
      .set('traceparent', `00-${TRACE_ID}-${PARENT}-01`)
      .expect(200);
    const profile = await storedProfile(app, res.headers['x-debug-token']);
    const calls = (profile.data.http_client as OutgoingCalls).calls;
    await receiver.until(() => receiver.spans.some((s) => s.traceId === TRACE_ID && s.kind === 2));
    const spans = receiver.spans.filter((s) => s.traceId === TRACE_ID);
    const server = spans.find((s) => s.kind === 2)!;
    expect(server).toMatchObject({ name: 'GET http_client_fixtures_both', parentSpanId: PARENT });
    expect(attribute(server, 'http.request.method')).toBe('GET');
    expect(attribute(server, 'http.route')).toBe('http_client_fixtures_both');
    expect(Number(attribute(server, 'http.response.status_code'))).toBe(200);
    expect(attribute(server, 'shopkernel.profile.token')).toBe(profile.token);
    const children = spans.filter((s) => s !== server);
    expect(children.every((s) => s.parentSpanId === server.spanId)).toBe(true);
    expect(children.filter((s) => s.kind === 1).map((s) => s.name)).toEqual(
      expect.arrayContaining([
        'kernel.request',
        'kernel.controller',
        'HttpClientFixturesController::both',
        'kernel.response',
      ]),
    );
    const clients = children.filter((s) => s.kind === 3);
    expect(clients.map((s) => s.spanId)).toEqual(calls.map((c) => c.spanId));
    expect(clients.map((s) => attribute(s, 'url.full'))).toEqual([`${stub.base}/a`, `${stub.base}/b`]);
    expect(receiver.services).toEqual(new Set(['shop-test']));
  });

  it('names queries by the database conventions', async () => {
    const res = await request(app.getHttpServer()).get('/products').set('Host', HOST).expect(200);
    const profile = await storedProfile(app, res.headers['x-debug-token']);
    const traceId = (profile.data.request as { trace: { traceId: string } }).trace.traceId;
    await receiver.until(() => receiver.spans.some((s) => s.traceId === traceId && s.kind === 3));
    const queries = receiver.spans.filter((s) => s.traceId === traceId && s.kind === 3);
    expect(queries.map((s) => s.name)).toEqual(['SELECT', 'SELECT', 'SELECT']);
    expect(queries.map((s) => attribute(s, 'db.system.name'))).toEqual(['sqlite', 'sqlite', 'sqlite']);
    expect(attribute(queries[0], 'db.query.text')).toBe('select count(*) as "n" from "products"');
  });

  it('keeps answering while the collector is down, and sends what waited once it is back', async () => {
    const port = receiver.port;
    await receiver.stop();
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++)
      tokens.push((await request(app.getHttpServer()).get('/').set('Host', HOST).expect(200)).headers['x-debug-token']);
    const traces = await Promise.all(
      tokens.map(
        async (t) => ((await storedProfile(app, t)).data.request as { trace: { traceId: string } }).trace.traceId,
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(app.get(OtlpProfileExporter).dropped).toBe(0);
    await receiver.start(port);
    await receiver.until(() => traces.every((t) => receiver.spans.some((s) => s.traceId === t && s.kind === 2)));
    expect(app.get(OtlpProfileExporter).dropped).toBe(0);
  }, 30_000);
});
