import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { ShopDb } from '../src/database/shop-db.js';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { RouteTable } from '../src/lifecycle/routing/route-table.js';
import { PasswordHasher } from '../src/security/password-hasher.js';
import { UserRepository } from '../src/users/user.repository.js';
import { createTestApp } from './support/create-test-app.js';

const HOST = 'shop.test';
const OWN = `http://${HOST}`;
const PASSWORD = 'correct horse battery';
const UNSAFE = ['POST', 'PUT', 'PATCH', 'DELETE'];

type Method = 'post' | 'put' | 'patch' | 'delete';
type Call = { method: Method; path: string; body: Record<string, unknown> };

/** A JSON body each route takes as valid (so that only the rule under test can refuse it). */
const BODIES: Record<string, Record<string, unknown>> = {
  '/api/login': { email: 'nobody@example.com', password: 'irrelevant' },
  '/api/cart/lines': { productId: 1, quantity: 1 },
  '/api/cart/lines/1': { quantity: 1 },
  '/api/checkout': { name: 'Ada', street: '1 Main St', postcode: '12345', city: 'Paris', country: 'FR' },
};

const setCookies = (res: request.Response): string[] => ([] as string[]).concat(res.headers['set-cookie'] ?? []);

describe('The JSON API refuses cross-site requests (e2e)', () => {
  let app: NestExpressApplication;
  /** Every route under /api/ with a method that may change something, as the router knows them. */
  let unsafeRoutes: Call[];
  /** A logged-in customer's browser: a forged request carries the victim's cookies (and /api/checkout needs a user). */
  let victim: ReturnType<typeof request.agent>;

  beforeAll(async () => {
    app = await createTestApp();
    await app.get(UserRepository).create('customer@example.com', await app.get(PasswordHasher).hash(PASSWORD));
    victim = request.agent(app.getHttpServer());
    await victim
      .post('/api/login')
      .set('Host', HOST)
      .send({ email: 'customer@example.com', password: PASSWORD })
      .expect(200);
    unsafeRoutes = app
      .get(RouteTable)
      .routes.all()
      .filter((route) => route.path.startsWith('/api/'))
      .flatMap((route) =>
        route.methods.filter((m) => UNSAFE.includes(m)).map((m) => ({ route, method: m.toLowerCase() as Method })),
      )
      .map(({ route, method }) => {
        const path = route.path.replace(/:[A-Za-z]+/g, '1');
        return { method, path, body: BODIES[path] ?? {} };
      });
  });

  afterAll(async () => {
    await app?.close();
  });

  const server = () => app.getHttpServer();
  const call = ({ method, path }: Call) => victim[method](path).set('Host', HOST).set('Accept', 'application/json');
  const expectProblem = (res: request.Response, status: number, detail: string | RegExp) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.status).toBe(status);
    if (typeof detail === 'string') expect(res.body.detail).toBe(detail);
    else expect(res.body.detail).toMatch(detail);
  };

  it("knows every state-changing route of the API (a feature module's are checked here too)", () => {
    expect(unsafeRoutes.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort()).toEqual(
      expect.arrayContaining([
        'DELETE /api/cart/lines/1',
        'PATCH /api/cart/lines/1',
        'POST /api/cart/lines',
        'POST /api/checkout',
        'POST /api/login',
        'POST /api/logout',
      ]),
    );
  });

  // Why each is refused is foreignSiteReason's (request-origin.spec.ts); the page that sent it learns only the
  // status, as from a production instance: debug details never go to another origin.
  const foreignOrigins: Array<[string, Record<string, string>]> = [
    ['another site', { Origin: 'https://evil.example' }],
    ['an opaque origin (sandboxed frame, data: page)', { Origin: 'null' }],
    ['the same host over another scheme', { Origin: `https://${HOST}` }],
    ['the same host on another port', { Origin: `${OWN}:8080` }],
    ['a subdomain', { Origin: `http://evil.${HOST}` }],
    ['a host that starts like this one', { Origin: `${OWN}.evil.example` }],
    ['a cross-site fetch', { 'Sec-Fetch-Site': 'cross-site' }],
    ['a same-site fetch (a sibling subdomain)', { 'Sec-Fetch-Site': 'same-site', Origin: `http://blog.${HOST}` }],
    ['a cross-site fetch claiming this origin', { 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' }],
    ['an unknown Sec-Fetch-Site', { 'Sec-Fetch-Site': 'cross-galaxy' }],
  ];

  it.each(foreignOrigins)(
    'answers a JSON request from %s with a plain 403 problem on every state-changing route',
    async (_, headers) => {
      for (const route of unsafeRoutes) {
        const res = await call(route).set(headers).send(route.body);
        expectProblem(res, 403, 'Forbidden');
        expect(res.body.exceptions).toBeUndefined();
        expect(res.headers['x-debug-token']).toBeUndefined();
        expect(setCookies(res).filter((c) => c.startsWith('SHOPSESSID='))).toEqual([]);
      }
    },
  );

  const notJson: Array<[string, (req: request.Test) => request.Test, string]> = [
    [
      'a form (urlencoded)',
      (req) => req.type('form').send({ email: 'a@b.c', password: 'x' }),
      'not "application/x-www-form-urlencoded"',
    ],
    ['an empty form', (req) => req.type('form').send(''), 'not "application/x-www-form-urlencoded"'],
    ['a multipart form', (req) => req.field('email', 'a@b.c').field('password', 'x'), 'not "multipart/form-data"'],
    [
      'text/plain (a form with enctype text/plain)',
      (req) => req.set('Content-Type', 'text/plain').send('{"email":"a@b.c","password":"x"}'),
      'not "text/plain"',
    ],
    ['XML', (req) => req.set('Content-Type', 'application/xml').send('<login/>'), 'not "application/xml"'],
    [
      'a JSON look-alike',
      (req) => req.set('Content-Type', 'application/json-seq').send('{}'),
      'not "application/json-seq"',
    ],
    [
      'a body without a Content-Type',
      (req) => req.set('Content-Type', '').send(Buffer.from('{"email":"a@b.c"}')),
      'this body has no Content-Type',
    ],
  ];

  it.each(notJson)(
    'answers %s with a 415 problem on every state-changing route, from this site or from no browser at all',
    async (_, send, detail) => {
      for (const route of unsafeRoutes) {
        for (const origin of [{}, { Origin: OWN, 'Sec-Fetch-Site': 'same-origin' }]) {
          const res = await send(call(route).set(origin));
          expectProblem(
            res,
            415,
            new RegExp(
              `^The API takes JSON bodies only \\(Content-Type: application/json\\)[,;] ${detail.replace(/[()".+]/g, '\\$&')}\\.?$`,
            ),
          );
        }
      }
    },
  );

  it('leaves safe methods alone, whatever the origin', async () => {
    await request(server())
      .get('/api/csrf-token/cart')
      .set('Host', HOST)
      .set('Origin', 'https://evil.example')
      .set('Sec-Fetch-Site', 'cross-site')
      .expect(200);
    await request(server()).get('/api/cart').set('Host', HOST).set('Sec-Fetch-Site', 'cross-site').expect(200);
    await request(server())
      .options('/api/login')
      .set('Host', HOST)
      .set('Origin', 'https://evil.example')
      .expect((res) => expect([403, 415]).not.toContain(res.status));
  });

  it('gives another spelling of an API path no way around the rule: paths are case-sensitive, /API/login is no route', async () => {
    for (const path of ['/API/login', '/Api/Login', '/api/LOGIN', '/%61pi/login', '//api/login']) {
      const res = await request(server())
        .post(path)
        .set('Host', HOST)
        .set('Accept', 'application/json')
        .type('form')
        .send({ email: 'a@b.c', password: 'x' });
      expectProblem(res, 404, `No route found for "POST http://${HOST}${path}"`);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  describe('the login CSRF of the issue', () => {
    let address: string;

    beforeAll(async () => {
      address = 'victim-of-login-csrf@example.com';
      await app.get(UserRepository).create(address, await app.get(PasswordHasher).hash(PASSWORD));
    });

    const sessionsOfUser = async () => {
      const user = await app
        .get(ShopDb)
        .selectFrom('users')
        .select('id')
        .where('email', '=', address)
        .executeTakeFirstOrThrow();
      return app.get(ShopDb).selectFrom('sessions').select('id').where('user_id', '=', user.id).execute();
    };

    it.each([
      ['a modern browser', { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' }, 403],
      ['a browser without Sec-Fetch-Site', { Origin: 'https://evil.example' }, 403],
      ['a sandboxed frame', { Origin: 'null', 'Sec-Fetch-Site': 'cross-site' }, 403],
      ['a browser that sends no Origin', {}, 415],
    ])("logs nobody in from another site's form with the attacker's credentials (%s)", async (_, headers, status) => {
      for (const type of ['form', 'multipart', 'text']) {
        let req = request(server()).post('/api/login').set('Host', HOST).set(headers);
        if (type === 'form') req = req.type('form').send({ email: address, password: PASSWORD });
        else if (type === 'multipart') req = req.field('email', address).field('password', PASSWORD);
        else req = req.set('Content-Type', 'text/plain').send(`{"email":"${address}","password":"${PASSWORD}"}`);
        const res = await req;
        expect(res.status).toBe(status);
        expect(setCookies(res)).toEqual([]);
      }
      expect(await sessionsOfUser()).toEqual([]);
    });

    it('logs in a script of this site (JSON, same origin) and a client that is no browser', async () => {
      for (const headers of [
        { Origin: OWN, 'Sec-Fetch-Site': 'same-origin' },
        { 'Sec-Fetch-Site': 'same-origin' },
        { Origin: OWN },
        {},
      ]) {
        const res = await request(server())
          .post('/api/login')
          .set('Host', HOST)
          .set(headers)
          .send({ email: address, password: PASSWORD })
          .expect(200);
        expect(res.body.user.email).toBe(address);
        expect(setCookies(res).some((c) => c.startsWith('SHOPSESSID='))).toBe(true);
      }
    });

    it('keeps the HTML login form working with its CSRF token, and refuses it without one', async () => {
      const agent = request.agent(server());
      const form = await agent.get('/login').set('Host', HOST).expect(200);
      const token = /name="_csrf_token" value="([^"]+)"/.exec(form.text)![1];
      await agent
        .post('/login')
        .set('Host', HOST)
        .set('Origin', OWN)
        .type('form')
        .send({ _csrf_token: token, email: address, password: PASSWORD })
        .expect(303)
        .expect('Location', '/account');
      await request(server())
        .post('/login')
        .set('Host', HOST)
        .set('Origin', 'https://evil.example')
        .type('form')
        .send({ email: address, password: PASSWORD })
        .expect(403);
    });
  });

  describe('the documented API keeps working', () => {
    it('adds, changes and removes cart lines with JSON and X-CSRF-Token from this site', async () => {
      const agent = request.agent(server());
      const cart = await agent.get('/api/cart').set('Host', HOST).expect(200);
      const token = cart.body.csrfToken as string;
      await seedCatalogue(app.get(ShopDb));
      const product = await app
        .get(ShopDb)
        .selectFrom('products')
        .select('id')
        .where('stock', '>', 2)
        .executeTakeFirstOrThrow();
      const same = { Origin: OWN, 'Sec-Fetch-Site': 'same-origin', 'X-CSRF-Token': token };
      await agent
        .post('/api/cart/lines')
        .set('Host', HOST)
        .set(same)
        .send({ productId: product.id, quantity: 1 })
        .expect(201);
      await agent.patch(`/api/cart/lines/${product.id}`).set('Host', HOST).set(same).send({ quantity: 2 }).expect(200);
      await agent.delete(`/api/cart/lines/${product.id}`).set('Host', HOST).set(same).expect(200);
    });

    it('still needs the CSRF token where the handler asks for one: the same-origin rule adds to it', async () => {
      const res = await request(server())
        .post('/api/logout')
        .set('Host', HOST)
        .set('Origin', OWN)
        .set('Sec-Fetch-Site', 'same-origin');
      expectProblem(res, 403, 'Invalid CSRF token.');
    });
  });
});

describe('The JSON API with CORS_ALLOW_ORIGINS (e2e)', () => {
  let app: NestExpressApplication;

  afterEach(async () => {
    await app?.close();
  });

  it('takes JSON from an origin CORS allows, and only from it', async () => {
    app = await createTestApp({
      env: { CORS_ALLOW_ORIGINS: 'https://app.partner.example', CORS_ALLOW_CREDENTIALS: '1' },
    });
    const login = (headers: Record<string, string>) =>
      request(app.getHttpServer())
        .post('/api/login')
        .set('Host', HOST)
        .set(headers)
        .send({ email: 'nobody@example.com', password: 'wrong' });
    expect((await login({ Origin: 'https://app.partner.example', 'Sec-Fetch-Site': 'cross-site' })).status).toBe(401);
    expect((await login({ Origin: 'https://app.partner.example' })).status).toBe(401);
    expect((await login({ Origin: 'https://other.example', 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    // Form bodies stay out even from an allowed origin.
    const form = await request(app.getHttpServer())
      .post('/api/login')
      .set('Host', HOST)
      .set('Origin', 'https://app.partner.example')
      .type('form')
      .send({ email: 'a@b.c', password: 'x' });
    expect(form.status).toBe(415);
  });

  it('trusts no other site for CORS_ALLOW_ORIGINS=*', async () => {
    app = await createTestApp({ env: { CORS_ALLOW_ORIGINS: '*' } });
    const res = await request(app.getHttpServer())
      .post('/api/login')
      .set('Host', HOST)
      .set('Origin', 'https://evil.example')
      .send({ email: 'a@b.c', password: 'x' });
    expect(res.status).toBe(403);
  });
});
