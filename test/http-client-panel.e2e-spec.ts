import type { NestExpressApplication } from '@nestjs/platform-express';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { PROJECT_DIR } from '../src/config/app-config.js';
import type { OutgoingCalls } from '../src/profiler/http-client/outgoing-call.js';
import { CALLED_FROM, HttpClientFixturesModule } from './fixtures/http-client-fixtures.module.js';
import { startTestServer } from './support/browser.js';
import { createTestApp } from './support/create-test-app.js';
import { startStubService, type StubService } from './support/stub-service.js';
import { storedProfile } from './support/profiler.js';

const HOST = 'shop.test';
const FIXTURE = 'test/fixtures/http-client-fixtures.module.ts';
const text = (element: HTMLElement | null) => (element?.text ?? '').replace(/\s+/g, ' ').trim();

describe('The HTTP Client panel (e2e)', () => {
  let app: NestExpressApplication;
  /** A Shopkernel called by the first one: its answers carry X-Debug-Token. */
  let other: NestExpressApplication;
  let otherBase: string;
  let stub: StubService;
  let stubBase: string;
  const received: IncomingMessage[] = [];
  const get = (path: string) => request(app.getHttpServer()).get(path).set('Host', HOST);

  beforeAll(async () => {
    stub = await startStubService((req, res) => {
      received.push(req);
      if (req.url?.startsWith('/slow')) return;
      const body = JSON.stringify({ rate: 490 });
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(body)),
        'Set-Cookie': 'stub_session=SECRET-STUB-COOKIE',
      });
      res.end(body);
    });
    stubBase = stub.base;
    ({ app: other, baseUrl: otherBase } = await startTestServer());
    app = await createTestApp({ imports: [HttpClientFixturesModule] });
  });

  afterAll(async () => {
    await app?.close();
    await other?.close();
    await stub?.close();
  });

  async function profiled(path: string): Promise<{ token: string; calls: OutgoingCalls }> {
    const res = await get(path).expect(200);
    const token = res.headers['x-debug-token'];
    const profile = await storedProfile(app, token);
    return { token, calls: profile.data.http_client as OutgoingCalls };
  }

  it('records each call of fetch and node:http with its status, timing, masked headers and caller', async () => {
    const fetched = `${stubBase}/rates?country=FR&api_key=SECRET-KEY-1`;
    const { calls } = await profiled(
      `/fixture-http/both?fetch=${encodeURIComponent(fetched)}&http=${encodeURIComponent(`${stubBase}/ping`)}`,
    );
    expect(calls.dropped).toBe(0);
    expect(calls.calls.map((c) => [c.client, c.method, c.url, c.status])).toEqual([
      ['fetch', 'GET', `${stubBase}/rates?country=FR&api_key=******`, 200],
      ['http', 'GET', `${stubBase}/ping`, 200],
    ]);
    const [first, second] = calls.calls;
    expect(first.requestHeaders.authorization).toBe('******');
    expect(first.requestHeaders.accept).toBe('application/json');
    expect(first.responseHeaders['set-cookie']).toBe('******');
    expect(first.responseBytes).toBe(12);
    for (const call of [first, second]) {
      expect(call.start).toBeGreaterThan(0);
      expect(call.duration).toBeGreaterThanOrEqual(call.waited!);
      expect(call.error).toBeNull();
    }
    expect(second.start).toBeGreaterThanOrEqual(first.start + first.duration!);
    expect(JSON.stringify(calls)).not.toMatch(/SECRET/);
    // The stub received the real values: only the profile masks them.
    expect(received.at(-2)!.headers.authorization).toBe('Bearer SECRET-HTTP-CLIENT');
    expect([first.caller!.file, first.caller!.line]).toEqual([join(PROJECT_DIR, FIXTURE), CALLED_FROM.fetch]);
    expect([second.caller!.file, second.caller!.line]).toEqual([join(PROJECT_DIR, FIXTURE), CALLED_FROM.http]);
  });

  it('shows the calls in the panel, with their caller, headers and cURL command, as bars on the timeline and in the toolbar', async () => {
    const { token } = await profiled(
      `/fixture-http/both?fetch=${encodeURIComponent(`${stubBase}/rates?api_key=SECRET-KEY-2`)}&http=${encodeURIComponent(`${stubBase}/ping`)}`,
    );
    const page = parse((await get(`/_profiler/${token}?panel=http_client`).expect(200)).text);
    expect(text(page.querySelector('nav.menu a[data-panel="http_client"] .badge'))).toBe('2');
    const rows = page.querySelectorAll('table.http-calls tbody tr').map((tr) => tr.querySelectorAll('td').map(text));
    expect(rows.map((r) => r.slice(0, 4))).toEqual([
      ['1', 'GET', `${stubBase}/rates?api_key=******`, '200'],
      ['2', 'GET', `${stubBase}/ping`, '200'],
    ]);
    expect([rows[0][5], rows[1][5]]).toEqual([`${FIXTURE}:${CALLED_FROM.fetch}`, `${FIXTURE}:${CALLED_FROM.http}`]);
    const curl = text(page.querySelector('pre#curl-1'));
    expect(curl).toContain(`# Masked by the profiler (put the real values back): authorization, ?api_key`);
    expect(curl).toContain(`curl '${stubBase}/rates?api_key=******'`);
    expect(curl).toContain(`-H 'authorization: ******'`);
    expect(page.querySelector('section.panel')!.text).not.toContain('SECRET');
    const timeline = parse((await get(`/_profiler/${token}?panel=performance`).expect(200)).text);
    expect(timeline.querySelectorAll('svg.timeline g.tl-http title').map(text)).toEqual([
      expect.stringMatching(
        new RegExp(`^GET ${stubBase.replace(/\./g, '\\.')}/rates\\?api_key=\\*{6}: [\\d.]+ m?s at [\\d.]+ m?s$`),
      ),
      expect.stringMatching(/^GET http:\/\/127\.0\.0\.1:\d+\/ping: /),
    ]);
    const toolbar = parse((await get('/_profiler/toolbar').set('X-Debug-Toolbar-Of', token).expect(200)).text);
    expect(text(toolbar.querySelector('.sk-block-http_client .sk-value'))).toMatch(/^http 2 in [\d.]+ m?s$/);
  });

  it("links a call to another Shopkernel to that instance's profile of it", async () => {
    const { token, calls } = await profiled(
      `/fixture-http/both?fetch=${encodeURIComponent(`${otherBase}/products`)}&http=${encodeURIComponent(`${otherBase}/no/such`)}`,
    );
    const [fetched, got] = calls.calls;
    expect([fetched.status, got.status]).toEqual([200, 404]);
    expect(fetched.debugToken).toMatch(/^[0-9a-f]{6}$/);
    expect(fetched.debugLink).toBe(`${otherBase}/_profiler/${fetched.debugToken}`);
    const theirs = await storedProfile(other, fetched.debugToken!);
    expect(theirs.url).toBe(`${otherBase}/products`);
    const page = parse((await get(`/_profiler/${token}?panel=http_client`).expect(200)).text);
    const links = page.querySelectorAll('table.http-calls tbody tr td:last-child a');
    expect(links.map((a) => [a.getAttribute('href'), text(a)])).toEqual([
      [`${otherBase}/_profiler/${fetched.debugToken}`, fetched.debugToken],
      [`${otherBase}/_profiler/${got.debugToken}`, got.debugToken],
    ]);
    expect(text(page.querySelector('nav.menu a[data-panel="http_client"] .badge'))).toBe('2');
  });

  it('records a call that failed or timed out, and the request still answers', async () => {
    // A port nothing listens on (not port 1: fetch refuses the spec's "bad ports" before any connection).
    const closed = await startStubService(() => undefined);
    await closed.close();
    const port = closed.port;
    const refused = await profiled(`/fixture-http/failing?url=${encodeURIComponent(`http://127.0.0.1:${port}/down`)}`);
    expect(refused.calls.calls).toHaveLength(1);
    expect(refused.calls.calls[0]).toMatchObject({ status: null, timedOut: false });
    expect(refused.calls.calls[0].error).toMatch(/ECONNREFUSED/);
    const slow = await profiled(`/fixture-http/failing?url=${encodeURIComponent(`${stubBase}/slow`)}&timeout=200`);
    expect(slow.calls.calls[0]).toMatchObject({ status: null, timedOut: true });
    const page = parse((await get(`/_profiler/${slow.token}?panel=http_client`).expect(200)).text);
    expect(text(page.querySelector('nav.menu a[data-panel="http_client"] .badge'))).toBe('1');
    expect(page.querySelector('nav.menu a[data-panel="http_client"] .badge.error')).not.toBeNull();
  });

  it('records nothing for a request that calls no other service', async () => {
    const res = await get('/').expect(200);
    const profile = await storedProfile(app, res.headers['x-debug-token']);
    expect(profile.data.http_client).toBeUndefined();
  });
});
