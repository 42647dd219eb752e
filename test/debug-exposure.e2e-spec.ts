import type { NestExpressApplication } from '@nestjs/platform-express';
import escapeHtml from 'escape-html';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createTestApp } from './support/create-test-app.js';
import { settle, storedProfiles } from './support/profiler.js';
import { rawRequest } from './support/raw-http.js';

/** Every kind of profiler path: the home and its 301, the search, latest, a panel, an export, unknown tokens and paths. */
const PROFILER_PATHS = [
  '/_profiler',
  '/_profiler/',
  '/_profiler/search',
  '/_profiler/search?limit=10&url=%2F',
  '/_profiler/latest',
  '/_profiler/abc123',
  '/_profiler/abc123?panel=config',
  '/_profiler/abc123.json',
  '/_profiler/ABC123',
  '/_profiler/not-a-token',
  '/_profiler/abc123/extra',
  '/_profiler//search',
  '/_profiler/search/',
  '/_profiler/mcp',
  '/_profiler/mcp/',
  '/_profiler/compare?token=abc123&token=def456',
  '/_profiler/abc123/compare/def456',
  '/_profiler/abc123/compare/previous',
  '/_profiler/abc123/replay',
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** An unknown path of the same length, so that bodies naming the path compare byte for byte once renamed. */
const unknownTwin = (path: string) => path.replace('/_profiler', '/_qrofiler');

type Probe = { method: (typeof METHODS)[number]; headers?: Record<string, string> };
const PROBES: Probe[] = [
  ...METHODS.map((method) => ({ method })),
  ...METHODS.map((method) => ({ method, headers: { Accept: 'application/json' } })),
  { method: 'GET', headers: { Origin: 'http://evil.example' } },
  { method: 'OPTIONS', headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'GET' } },
  {
    method: 'OPTIONS',
    headers: {
      Origin: 'http://evil.example',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type',
    },
  },
];

/** What a client can tell from an answer: status, header names and values (but the date), body. */
function answer(
  res: request.Response,
  rename = (s: string) => s,
): { status: number; headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) if (name !== 'date') headers[name] = rename(String(value));
  return { status: res.status, headers, body: rename(res.text ?? '') };
}

function send(app: NestExpressApplication, probe: Probe, path: string, host: string): request.Test {
  const method = probe.method.toLowerCase() as 'get';
  const agent = request(app.getHttpServer());
  return agent[method](path)
    .set('Host', host)
    .set(probe.headers ?? {});
}

describe.each([
  // LOG_LEVEL=none: production logs every 404 at ERROR, and this suite asks for hundreds.
  ['debug mode off', { APP_ENV: 'prod', APP_DEBUG: '0', LOG_LEVEL: 'none' }, 'shop.test'],
  ['a client whose address is not allowed', { PROFILER_ALLOWED_IPS: '10.0.0.0/8' }, 'shop.test'],
  ['a Host the debug tools do not answer (DNS rebinding)', {}, 'rebind.attacker.example'],
  ['a Host spelled like a loopback name but not one', {}, 'localhost.attacker.example:3000'],
])('The profiler cannot be told apart from a missing path: %s (e2e)', (_title, env, host) => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    app = await createTestApp({ env: { CORS_ALLOW_ORIGINS: '*', ...env } });
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers every method on every profiler path exactly as on an unknown path (status, headers, body)', async () => {
    let compared = 0;
    for (const path of PROFILER_PATHS) {
      for (const probe of PROBES) {
        const profiler = answer(await send(app, probe, path, host));
        const unknown = answer(await send(app, probe, unknownTwin(path), host), (s) =>
          s.replaceAll('/_qrofiler', '/_profiler'),
        );
        const label = `${probe.method} ${path} ${JSON.stringify(probe.headers ?? {})}`;
        expect({ label, ...profiler }).toEqual({ label, ...unknown });
        expect([label, profiler.status]).not.toEqual([label, 301]);
        expect([label, profiler.status]).not.toEqual([label, 405]);
        expect(profiler.headers['x-debug-token']).toBeUndefined();
        compared++;
      }
    }
    expect(compared).toBe(PROFILER_PATHS.length * PROBES.length);
  });

  it('gives an HTML page neither toolbar nor token', async () => {
    const res = await request(app.getHttpServer()).get('/').set('Host', host).expect(200);
    expect(res.text).not.toContain('sk-toolbar');
    expect(res.headers['x-debug-token']).toBeUndefined();
    expect(res.headers['x-debug-token-link']).toBeUndefined();
  });
});

describe('The profiler shares nothing with other origins, and answers only its hosts (e2e)', () => {
  let app: NestExpressApplication;
  let token: string;
  const server = () => app.getHttpServer();
  const port = () => (server().address() as AddressInfo).port;

  beforeAll(async () => {
    app = await createTestApp({
      env: { CORS_ALLOW_ORIGINS: '*', CORS_ALLOW_CREDENTIALS: '0', PROFILER_ALLOWED_HOSTS: 'shop.test,.team.example' },
    });
    await app.listen(0, '127.0.0.1');
    token = (await request(server()).get('/').set('Host', 'shop.test').expect(200)).headers['x-debug-token'];
    await settle();
  });

  afterAll(async () => {
    await app.close();
  });

  const pages = () => [
    '/_profiler/search?limit=10',
    `/_profiler/${token}`,
    `/_profiler/${token}?panel=config`,
    `/_profiler/${token}?panel=request`,
    `/_profiler/${token}.json`,
    '/_profiler/latest',
    '/_profiler/',
    '/_profiler',
  ];

  it('sends no CORS header from any profiler route, to any origin, for any method, preflights included', async () => {
    for (const path of pages()) {
      for (const origin of ['http://evil.example', 'null', 'http://localhost:5173', 'http://shop.test']) {
        const own = origin === 'http://shop.test';
        const res = await request(server()).get(path).set('Host', 'shop.test').set('Origin', origin);
        // Another origin's page gets no debug data at all: for it the profiler's routes do not exist.
        expect([path, origin, own ? res.status < 400 : res.status]).toEqual([path, origin, own ? true : 404]);
        for (const name of Object.keys(res.headers))
          expect([path, origin, name.startsWith('access-control-')]).toEqual([path, origin, false]);
        for (const method of ['GET', 'POST', 'DELETE']) {
          const preflight = await request(server())
            .options(path)
            .set('Host', 'shop.test')
            .set('Origin', origin)
            .set('Access-Control-Request-Method', method);
          for (const name of Object.keys(preflight.headers))
            expect([path, method, name.startsWith('access-control-')]).toEqual([path, method, false]);
          // Not a preflight answer: the router's own, 405 (Allow: GET) or 404 where no route takes the path without its
          // slash, or where the route is hidden from another origin.
          expect([path, method, preflight.status]).toEqual([path, method, path === '/_profiler' || !own ? 404 : 405]);
        }
      }
    }
  });

  it('still shares the application with the allowed origins, and its pages then carry no toolbar', async () => {
    const shared = await request(server())
      .get('/')
      .set('Host', 'shop.test')
      .set('Origin', 'http://evil.example')
      .expect(200);
    expect(shared.headers['access-control-allow-origin']).toBe('*');
    expect(shared.text).not.toContain('sk-toolbar');
    const own = await request(server()).get('/').set('Host', 'shop.test').expect(200);
    expect(own.headers['access-control-allow-origin']).toBeUndefined();
    expect(own.text).toContain('sk-toolbar');
    const preflight = await request(server())
      .options('/api/cart')
      .set('Host', 'shop.test')
      .set('Origin', 'http://evil.example')
      .set('Access-Control-Request-Method', 'GET')
      .expect(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
  });

  it.each([
    'localhost',
    'localhost:3000',
    'LOCALHOST',
    'shop.localhost:3000',
    '127.0.0.1',
    '127.0.0.1:3000',
    '[::1]:3000',
    '192.168.1.20:3000',
    'shop.test',
    'Shop.Test:8080',
    'team.example',
    'dev.team.example',
  ])('opens the profiler for Host %s', async (host) => {
    const res = await request(server()).get(`/_profiler/${token}`).set('Host', host).expect(200);
    expect(res.text).toContain(token);
    expect(res.headers['x-debug-token']).toMatch(/^[0-9a-f]{6}$/);
  });

  it.each([
    'rebind.attacker.example',
    'attacker.example:3000',
    'localhost.attacker.example',
    'shop.test.attacker.example',
    'team.example.attacker.example',
    'xteam.example',
    '127.0.0.1.nip.io',
    'evil',
  ])('answers the plain 404 of a missing path for Host %s, and hides the debug error page too', async (host) => {
    const profile = await request(server())
      .get(`/_profiler/${token}`)
      .set('Host', host)
      .set('Accept', 'application/json')
      .expect(404);
    const missing = await request(server())
      .get(`/_qrofiler/${token}`)
      .set('Host', host)
      .set('Accept', 'application/json')
      .expect(404);
    expect(profile.body).toEqual(missing.body);
    expect(profile.body).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'Not Found' });
    const error = await request(server()).get('/fixture-free/nowhere').set('Host', host).expect(404);
    expect(error.text).not.toContain('No route found');
    expect(error.text).not.toContain('Stack Trace');
  });

  it.each(['bad host!!', 'a b', 'x<script>y', '[::1', 'evil.example:8o'])(
    'states the message of a malformed Host "%s" (the client\'s own input), escaped, and withholds every other debug detail',
    async (host) => {
      const message = `Invalid Host "${host}".`;
      const heading = '400 Bad Request';
      const html = await rawRequest(port(), `GET / HTTP/1.1\r\nHost: ${host}\r\nAccept: text/html\r\n\r\n`, {
        readBody: true,
        timeoutMs: 60_000,
      });
      expect(html.status).toBe(400);
      expect(html.body).toBe(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex,nofollow">' +
          `<title>${heading}</title></head><body><h1>${heading}</h1><ul><li>${escapeHtml(message)}</li></ul></body></html>\n`,
      );
      const json = await rawRequest(port(), `GET / HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\n\r\n`, {
        readBody: true,
        timeoutMs: 60_000,
      });
      expect(json.status).toBe(400);
      expect(JSON.parse(json.body)).toEqual({
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: message,
      });
      for (const res of [html, json])
        expect(Object.keys(res.headers).filter((name) => name.startsWith('x-debug'))).toEqual([]);
    },
  );

  it('profiles the hidden requests, and their Routing panel replays the matching as that client saw it', async () => {
    await request(server()).post('/_profiler/search').set('Host', 'rebind.attacker.example').expect(404);
    await settle();
    const { rows } = await storedProfiles(app, { url: 'rebind.attacker.example/_profiler/search' });
    expect(rows.map((r) => [r.method, r.statusCode])).toEqual([['POST', 404]]);
    const panel = await request(server())
      .get(`/_profiler/${rows[0].token}?panel=routing`)
      .set('Host', 'shop.test')
      .expect(200);
    const text = panel.text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain('_profiler_search /_profiler/search GET Debug route, hidden from this client');
    expect(text).not.toContain('Method does not match');
    expect(text).not.toContain('Route matches!');
  });
});
