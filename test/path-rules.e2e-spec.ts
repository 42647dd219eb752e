import type { AddressInfo } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse } from 'node-html-parser';
import request from 'supertest';
import { AppConfig } from '../src/config/app-config.js';
import { RouteTable } from '../src/lifecycle/routing/route-table.js';
import type { Route } from '../src/lifecycle/routing/route.js';
import { PasswordHasher } from '../src/security/password-hasher.js';
import { UserRepository } from '../src/users/user.repository.js';
import { createTestApp } from './support/create-test-app.js';
import { rawRequest, type RawResponse } from './support/raw-http.js';

const PASSWORD = 'correct horse battery';
const REFERENCE = 'SK-ABCD2345';

/** A route's path with its parameters filled in. */
const concrete = (route: Route): string => route.path.replace(/:reference\b/, REFERENCE).replace(/:(\w+)/g, 'x');

/**
 * The same path spelled every way a client may try to get past a path rule: letter case, percent-encoded letters
 * (lower- and upper-case hex), duplicate and trailing slashes, dot segments (plain and encoded), encoded slashes.
 */
function variants(path: string): string[] {
  const segments = path.split('/').slice(1);
  const hex = (c: string, upper: boolean) =>
    `%${c.charCodeAt(0).toString(16)[upper ? 'toUpperCase' : 'toLowerCase']()}`;
  const lastLetter = path.search(/[a-z](?=[^a-z]*$)/);
  const out = [
    path.toUpperCase(),
    `/${segments.map((s) => s.charAt(0).toUpperCase() + s.slice(1)).join('/')}`,
    path.replace(/[a-z]/g, (c, i: number) => (i % 2 ? c.toUpperCase() : c)),
    path.replace(/[a-z]/, (c) => hex(c, false)),
    path.replace(/[a-z]/, (c) => hex(c, true)),
    path.replace(/[a-z]/g, (c) => hex(c, true)),
    `${path.slice(0, lastLetter)}${hex(path[lastLetter], false)}${path.slice(lastLetter + 1)}`,
    `/${path}`,
    `//${path}`,
    path.replace(/\/(?=[^/]*$)/, '//'),
    `${path}/`,
    `${path}//`,
    `${path.toUpperCase()}/`,
    `/${path.toUpperCase()}`,
    `/.${path}`,
    `/x/..${path}`,
    `/%2e${path}`,
    `/x/%2e%2e${path}`,
    `${path}/.`,
    `${path}/..${path}`,
    `/${segments.join('%2F')}`,
    `/${segments.join('%2f')}`,
    `${path};x=1`,
    `${path}%20`,
    `${path}.json`,
  ];
  return [...new Set(out)].filter((v) => v !== path);
}

describe('One path decides routing and every path rule (e2e)', () => {
  let app: NestExpressApplication;
  let port: number;
  let protectedRoutes: Route[];
  let userCookie: string;

  beforeAll(async () => {
    app = await createTestApp();
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
    const rules = app.get(AppConfig).security.accessControl;
    protectedRoutes = app
      .get(RouteTable)
      .routes.all()
      .filter((route) => rules.some((rule) => rule.path.test(concrete(route))));
    await app
      .get(UserRepository)
      .create('customer@example.com', await app.get(PasswordHasher).hash(PASSWORD), ['ROLE_USER']);
    const agent = request.agent(app.getHttpServer());
    const form = await agent.get('/login').expect(200);
    const token = parse(form.text).querySelector('input[name="_csrf_token"]')!.getAttribute('value')!;
    const login = await agent
      .post('/login')
      .type('form')
      .send({ _csrf_token: token, email: 'customer@example.com', password: PASSWORD })
      .expect(303);
    userCookie = ([] as string[])
      .concat(login.headers['set-cookie'] ?? [])
      .map((c) => c.split(';')[0])
      .join('; ');
  });

  afterAll(async () => {
    await app.close();
  });

  const send = (method: string, target: string, headers: Record<string, string> = {}): Promise<RawResponse> => {
    const lines = [
      `${method} ${target} HTTP/1.1`,
      'Host: shop.test',
      'Connection: close',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    const body = method === 'GET' || method === 'HEAD' ? '' : '{}';
    if (body) lines.push('Content-Type: application/json', `Content-Length: ${body.length}`);
    return rawRequest(port, `${lines.join('\r\n')}\r\n\r\n${body}`, { readBody: method !== 'HEAD' });
  };

  it('finds every protected route of the shop in the route table', () => {
    const names = protectedRoutes.map((r) => r.name);
    for (const name of [
      'account_overview',
      'api_account',
      'checkout_show',
      'checkout_place',
      'api_checkout',
      'orders_history',
      'orders_show',
      'api_orders',
      'api_order',
    ]) {
      expect(names).toContain(name);
    }
  });

  it('answers a logged-in user at the canonical path (the variants below are refused for what they are, not for want of a user)', async () => {
    const res = await send('GET', '/api/account', { Cookie: userCookie, Accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).user.email).toBe('customer@example.com');
  });

  it('never serves a protected route to an anonymous client under another spelling of its path: 401, 302 to the login, 403 or 404, never 200 nor 500', async () => {
    const outcomes = new Map<string, number>();
    for (const route of protectedRoutes) {
      const path = concrete(route);
      for (const method of route.methods.length ? route.methods : ['GET']) {
        for (const target of variants(path)) {
          for (const accept of ['application/json', 'text/html']) {
            const res = await send(method, target, { Accept: accept });
            const seen = `${method} ${target} (${accept}) → ${res.status} ${res.headers.location ?? ''}`;
            expect([seen, [301, 302, 400, 401, 403, 404].includes(res.status!)]).toEqual([seen, true]);
            if (res.status === 302) expect([seen, res.headers.location]).toEqual([seen, '/login']);
            if (res.status === 301) {
              // A canonical redirect: where it leads is protected too.
              const next = await send(method, res.headers.location!, { Accept: accept });
              expect([seen, next.status]).toEqual([seen, accept === 'application/json' ? 401 : 302]);
            }
            expect(res.body).not.toContain('customer@example.com');
            outcomes.set(String(res.status), (outcomes.get(String(res.status)) ?? 0) + 1);
          }
        }
      }
    }
    // Hundreds of requests, and the refusals are of the expected kinds.
    const total = [...outcomes.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(protectedRoutes.length * 40);
    expect(outcomes.get('404')).toBeGreaterThan(0);
    expect(outcomes.get('500')).toBeUndefined();
  });

  it('gives the logged-in user nothing more under those spellings: the router is case-sensitive and matches the path as sent', async () => {
    for (const target of [
      '/API/ACCOUNT',
      '/Api/Account',
      '/api/%61ccount',
      '/api/Account',
      '//api/account',
      '/api//account',
      '/x/../api/account',
      '/api%2Faccount',
    ]) {
      const res = await send('GET', target, { Cookie: userCookie, Accept: 'application/json' });
      expect([target, res.status]).toEqual([target, 404]);
    }
    // The trailing slash is the router's canonical redirect, to the route the user may open.
    const slash = await send('GET', '/api/account/', { Cookie: userCookie, Accept: 'application/json' });
    expect([slash.status, slash.headers.location]).toEqual([301, 'http://shop.test/api/account']);
  });

  it('names the case rule in the 404: the path as sent, no route found', async () => {
    const res = await send('GET', '/API/ACCOUNT', { Accept: 'application/json' });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body).detail).toBe('No route found for "GET http://shop.test/API/ACCOUNT"');
  });
});

describe('A handler that needs a user cannot be reached without one, whatever the access map says (e2e)', () => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    const defaults = AppConfig.fromEnv({ APP_ENV: 'test' });
    // No access map at all: only the handlers' own @IsGranted and requireUser() stand between a visitor and the data.
    app = await createTestApp({ config: { security: { ...defaults.security, accessControl: [] } } });
  });

  afterAll(async () => {
    await app.close();
  });

  const server = () => app.getHttpServer();

  it.each([
    ['/account'],
    ['/checkout'],
    ['/account/orders'],
    ['/account/orders?page=2'],
    [`/account/orders/${REFERENCE}`],
    ['/admin'],
  ])('sends an anonymous visitor of %s to the login page, and back there afterwards', async (path) => {
    const res = await request(server()).get(path).set('Host', 'shop.test').set('Accept', 'text/html').expect(302);
    expect(res.headers.location).toBe('/login');
    const session = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('SHOPSESSID='));
    expect(session).toBeDefined();
  });

  it.each([
    ['GET', '/api/account'],
    ['GET', '/api/orders'],
    ['GET', `/api/orders/${REFERENCE}`],
    ['GET', '/account'],
  ])('answers an anonymous script on %s %s with a 401 problem and the login challenge', async (method, path) => {
    const agent = request(server());
    const res = await agent[method.toLowerCase() as 'get'](path)
      .set('Host', 'shop.test')
      .set('Accept', 'application/json')
      .expect(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['www-authenticate']).toBe(
      'Cookie realm="Shopkernel", form-action="/login", cookie-name="SHOPSESSID"',
    );
    expect(res.body.detail).toBe('Full authentication is required to access this resource.');
  });

  it('refuses the unsafe ones before they run (CSRF first, as before), never with a 500', async () => {
    for (const path of ['/checkout', '/api/checkout']) {
      const res = await request(server())
        .post(path)
        .set('Host', 'shop.test')
        .set('Accept', 'application/json')
        .send({});
      expect([path, [401, 403].includes(res.status)]).toEqual([path, true]);
    }
  });
});
