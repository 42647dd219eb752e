import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { KernelFixturesModule } from './fixtures/kernel-fixtures.module.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfiles } from './support/profiler.js';

const HOST = 'shop.test';
const OWN = `http://${HOST}`;

/** What a page of another origin sends, as browsers do (or as one could make them do). */
const FOREIGN: Array<Record<string, string>> = [
  { Origin: 'https://evil.example' },
  { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors' },
  { Origin: 'null' },
  { Origin: 'null', 'Sec-Fetch-Site': 'cross-site' },
  { 'Sec-Fetch-Site': 'cross-site' },
  { Origin: `${OWN}:8080` },
  { Origin: `https://${HOST}` },
  { Origin: `http://admin.${HOST}`, 'Sec-Fetch-Site': 'same-site' },
  { Origin: 'http://partner.example' },
  // Framed by another site's page: a navigation, but not a top-level one.
  { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'iframe' },
];

/** What the developer's own pages and tools send. */
const OWN_PAGES: Array<Record<string, string>> = [
  {},
  { Origin: OWN },
  { Origin: OWN, 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'cors' },
  { 'Sec-Fetch-Site': 'none' },
  // A form post of its own page under Referrer-Policy: no-referrer.
  { Origin: 'null', 'Sec-Fetch-Site': 'same-origin' },
];

interface Probe {
  name: string;
  send: (app: NestExpressApplication, token: string) => request.Test;
  /** The status for the developer's own pages. */
  status: number;
  /** A debug route: for another origin it does not exist. */
  debugRoute?: boolean;
  /** What the developer's own answer shows that no other origin may see. */
  debugText?: string;
}

const get = (app: NestExpressApplication, path: string) => request(app.getHttpServer()).get(path).set('Host', HOST);

const PROBES: Probe[] = [
  { name: 'an unknown path', send: (app) => get(app, '/nowhere'), status: 404, debugText: 'NotFoundHttpException' },
  {
    name: 'an unknown path, in JSON',
    send: (app) => get(app, '/nowhere').set('Accept', 'application/json'),
    status: 404,
    debugText: 'NotFoundHttpException',
  },
  {
    name: 'a failing route',
    send: (app) => get(app, '/fixture/boom'),
    status: 500,
    debugText: 'Boom from a controller',
  },
  {
    name: 'a failing route, in JSON',
    send: (app) => get(app, '/fixture/boom').set('Accept', 'application/json'),
    status: 500,
    debugText: 'Boom from a controller',
  },
  {
    name: 'a method the route does not take',
    send: (app) => request(app.getHttpServer()).put('/fixture/items').set('Host', HOST),
    status: 405,
    debugText: 'MethodNotAllowedHttpException',
  },
  {
    name: 'a malformed JSON body',
    send: (app) =>
      request(app.getHttpServer())
        .post('/fixture/items')
        .set('Host', HOST)
        .set('Content-Type', 'application/json')
        .send('{"name":'),
    status: 400,
    debugText: 'BadRequestHttpException',
  },
  {
    name: 'a JSON API error',
    send: (app) => get(app, '/api/orders/NOPE').set('Accept', 'application/json'),
    status: 401,
    debugText: 'xception',
  },
  { name: 'an HTML page', send: (app) => get(app, '/'), status: 200, debugText: 'sk-toolbar' },
  { name: 'the profiler home', send: (app) => get(app, '/_profiler/'), status: 302, debugRoute: true },
  { name: 'the search', send: (app) => get(app, '/_profiler/search?limit=10'), status: 200, debugRoute: true },
  {
    name: 'a profile',
    send: (app, token) => get(app, `/_profiler/${token}`),
    status: 200,
    debugRoute: true,
    debugText: 'Boom from a controller',
  },
  {
    name: 'a profile as JSON',
    send: (app, token) => get(app, `/_profiler/${token}.json`),
    status: 200,
    debugRoute: true,
  },
  {
    name: 'the toolbar',
    send: (app, token) => get(app, '/_profiler/toolbar').set('X-Debug-Toolbar-Of', token),
    status: 200,
    debugRoute: true,
  },
  { name: 'the latest profile', send: (app) => get(app, '/_profiler/latest'), status: 302, debugRoute: true },
  { name: "Symfony's toolbar path", send: (app, token) => get(app, `/_wdt/${token}`), status: 404 },
  {
    name: 'the MCP endpoint',
    send: (app) =>
      request(app.getHttpServer())
        .post('/_profiler/mcp')
        .set('Host', HOST)
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    status: 200,
    debugRoute: true,
    debugText: 'search_profiles',
  },
];

const PLAIN_404 = '<h1>404 Not Found</h1><ul><li>The server returned a "404 Not Found".</li></ul>';

/** Markers of the debug error page, the debug problem+json and the toolbar. */
const DEBUG_MARKERS = ['xception', 'Stack Trace', 'trace-box', 'id="logs"', 'sk-toolbar', 'Boom from a controller'];

function debugHeaders(res: request.Response): string[] {
  const names = Object.keys(res.headers).filter((name) => name.startsWith('x-debug-'));
  const exposed = res.headers['access-control-expose-headers'] ?? '';
  if (/x-debug/i.test(exposed)) names.push(`access-control-expose-headers: ${exposed}`);
  return names;
}

describe.each([
  ['CORS_ALLOW_ORIGINS=*', { CORS_ALLOW_ORIGINS: '*' }],
  ['CORS_ALLOW_ORIGINS=*, with credentials', { CORS_ALLOW_ORIGINS: '*', CORS_ALLOW_CREDENTIALS: '1' }],
  [
    'CORS_ALLOW_ORIGINS naming origins, debug headers exposed',
    {
      CORS_ALLOW_ORIGINS: `https://evil.example,null,${OWN}:8080,https://${HOST},http://partner.example`,
      CORS_EXPOSE_HEADERS: 'X-Debug-Token,X-Debug-Token-Link,X-Total-Count',
    },
  ],
])('Debug data is never shared with another origin: %s (e2e)', (_title, env) => {
  let app: NestExpressApplication;
  let token: string;

  beforeAll(async () => {
    app = await createTestApp({ env, imports: [KernelFixturesModule] });
    token = (await get(app, '/fixture/boom').expect(500)).headers['x-debug-token'];
    expect(token).toMatch(/^[0-9a-f]{6}$/);
    await storedProfiles(app);
  });

  afterAll(async () => {
    await app.close();
  });

  it.each(PROBES.map((p) => [p.name, p] as const))(
    'answers %s from another origin without debug data',
    async (_name, probe) => {
      for (const headers of FOREIGN) {
        const res = await probe.send(app, token).set(headers);
        const label = `${probe.name} ${JSON.stringify(headers)}`;
        expect([label, res.status]).toEqual([label, probe.debugRoute ? 404 : probe.status]);
        expect([label, debugHeaders(res)]).toEqual([label, []]);
        const body = res.text ?? '';
        for (const marker of DEBUG_MARKERS)
          expect([label, marker, body.includes(marker)]).toEqual([label, marker, false]);
        if (probe.debugRoute) {
          // The plain 404 of an unknown path, as a production instance answers, and no CORS header at all.
          if (res.type === 'application/problem+json')
            expect([label, res.body]).toEqual([
              label,
              { type: 'about:blank', title: 'Not Found', status: 404, detail: 'Not Found' },
            ]);
          else expect([label, body]).toEqual([label, expect.stringContaining(PLAIN_404)]);
          for (const name of Object.keys(res.headers))
            expect([label, name, name.startsWith('access-control-')]).toEqual([label, name, false]);
        }
      }
    },
  );

  it.each(PROBES.map((p) => [p.name, p] as const))(
    'still answers %s from the developer’s own origin with debug data',
    async (_name, probe) => {
      for (const headers of OWN_PAGES) {
        const res = await probe.send(app, token).set(headers);
        const label = `${probe.name} ${JSON.stringify(headers)}`;
        expect([label, res.status]).toEqual([label, probe.status]);
        if (!probe.debugRoute) {
          expect([label, res.headers['x-debug-token']]).toEqual([label, expect.stringMatching(/^[0-9a-f]{6}$/)]);
          expect([label, res.headers['x-debug-token-link']]).toEqual([
            label,
            `${OWN}/_profiler/${res.headers['x-debug-token']}`,
          ]);
        }
        if (probe.debugText) expect([label, (res.text ?? '').includes(probe.debugText)]).toEqual([label, true]);
        // Its own origin needs no CORS header: none may let another page read what it carries.
        for (const name of Object.keys(res.headers))
          expect([label, name, name.startsWith('access-control-')]).toEqual([label, name, false]);
      }
    },
  );

  it("opens a profile's link and the debug error page followed from another site (a top-level page no site reads)", async () => {
    const link = { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' };
    const profile = await get(app, `/_profiler/${token}`).set(link).expect(200);
    expect(profile.text).toContain(token);
    const error = await get(app, '/fixture/boom').set(link).expect(500);
    expect(error.headers['x-debug-token']).toMatch(/^[0-9a-f]{6}$/);
    for (const name of Object.keys(error.headers)) expect(name.startsWith('access-control-')).toBe(false);
    // The same link read by a page's fetch() is another origin's request.
    await get(app, `/_profiler/${token}`)
      .set({ ...link, 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty' })
      .expect(404);
  });

  it('shares the plain answers with the allowed origins, naming no debug header', async () => {
    const res = await get(app, '/fixture/boom').set('Origin', 'https://evil.example').expect(500);
    expect(res.headers['access-control-allow-origin']).toBeDefined();
    expect(res.headers['access-control-expose-headers'] ?? '').not.toMatch(/debug/i);
    expect(res.text).toContain('The server returned a "500 Internal Server Error".');
  });

  it('keeps the profile of a request from another origin, for the developer to open from their own', async () => {
    await get(app, '/fixture/boom?from=evil').set('Origin', 'https://evil.example').expect(500);
    const { rows } = await storedProfiles(app, { url: 'from=evil' });
    expect(rows.map((r) => [r.method, r.statusCode])).toEqual([['GET', 500]]);
    const page = await get(app, `/_profiler/${rows[0].token}?panel=exception`).expect(200);
    expect(page.text).toContain('Boom from a controller');
  });
});
