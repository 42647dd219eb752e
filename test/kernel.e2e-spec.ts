import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import type { KernelContext } from '../src/lifecycle/kernel-context.js';
import { KernelProbe } from './fixtures/kernel-probe.listener.js';
import { KernelFixturesModule } from './fixtures/kernel-fixtures.module.js';
import { createTestApp } from './support/create-test-app.js';
import type { ExceptionJson } from './support/profile-data.js';
import { requestLog } from '../src/lifecycle/traceable-event-dispatcher.js';

const HOST = 'shop.test';
const PROBE = /^KernelProbe::/;

/** The exception chain of a debug problem+json, without the frames. */
const chain = (body: { exceptions: ExceptionJson[] }): ExceptionJson[] =>
  body.exceptions.map((e) => ({ class: e.class, message: e.message }));

/** The request's listener notifications, without the test probe's own. */
function calls(context: KernelContext): Array<[string, string]> {
  return context.listenerCalls.filter((c) => !PROBE.test(c.listener)).map((c) => [c.event, c.listener]);
}

function eventSequence(context: KernelContext): string[] {
  return context.listenerCalls.map((c) => c.event).filter((event, i, all) => i === 0 || all[i - 1] !== event);
}

describe('Kernel lifecycle (e2e)', () => {
  let app: NestExpressApplication;
  let probe: KernelProbe;

  beforeAll(async () => {
    // Any Host sees the debug details here: these tests read the kernel's messages for invalid and foreign hosts
    // (the debug tools' own host rule is tested in test/debug-exposure.e2e-spec.ts).
    app = await createTestApp({ imports: [KernelFixturesModule], env: { PROFILER_ALLOWED_HOSTS: '*' } });
    probe = app.get(KernelProbe);
  });

  afterAll(async () => {
    await app.close();
  });

  const http = () => request(app.getHttpServer());

  describe('a matched route', () => {
    it('passes every kernel event in order, kernel.terminate after the response', async () => {
      const res = await http().get('/fixture/items').set('Host', HOST).expect(200);
      expect(res.body).toEqual({ items: ['tea', 'coffee'] });
      const context = await probe.lastTerminated();
      expect(eventSequence(context)).toEqual([
        'kernel.request',
        'kernel.controller',
        'kernel.controller_arguments',
        'kernel.response',
        'kernel.finish_request',
        'kernel.terminate',
      ]);
    });

    it('notifies the kernel.request listeners in the spec order, with their priorities', async () => {
      await http().get('/fixture/items').set('Host', HOST).expect(200);
      const context = await probe.lastTerminated();
      const request = context.listenerCalls.filter((c) => c.event === 'kernel.request' && !PROBE.test(c.listener));
      expect(request.map((c) => [c.listener, c.priority])).toEqual([
        ['DebugHandlersListener::configure', 2048],
        ['ValidateRequestListener::onKernelRequest', 256],
        ['CorsListener::onKernelRequest', 250],
        ['SessionListener::onKernelRequest', 128],
        ['LocaleListener::setDefaultLocale', 100],
        ['RouterListener::onKernelRequest', 32],
        ['ShortCircuitListener::onKernelRequest', 20],
        ['LocaleListener::onKernelRequest', 16],
        ['FirewallListener::onKernelRequest', 8],
        ['PaginationListener::onKernelRequest', 4],
        ['MaintenanceListener::onKernelRequest', -16],
      ]);
      expect(
        calls(context)
          .filter(([event]) => event === 'kernel.response')
          .map(([, l]) => l),
      ).toEqual([
        'HttpCacheListener::onKernelResponse',
        'CorsListener::onKernelResponse',
        'ResponseListener::onKernelResponse',
        'ContextListener::onKernelResponse',
        'RememberMeListener::onKernelResponse',
        'ProfilerListener::onKernelResponse',
        'ErrorListener::removeCspHeader',
        'WebDebugToolbarListener::onKernelResponse',
        'DisallowRobotsIndexingListener::onResponse',
        'SessionListener::onKernelResponse',
      ]);
      expect(
        calls(context)
          .filter(([event]) => event === 'kernel.finish_request')
          .map(([, l]) => l),
      ).toEqual([
        'LocaleListener::onKernelFinishRequest',
        'RouterListener::onKernelFinishRequest',
        'SessionListener::onFinishRequest',
      ]);
    });

    it('writes one DEBUG event entry per listener notified, with the exact message and context, in order', async () => {
      await http().get('/fixture/items').set('Host', HOST).expect(200);
      const context = await probe.lastTerminated();
      // The request's log as the error page and the profiler read it: the notifications are made in their places.
      const eventLogs = requestLog(context).filter((l) => l.channel === 'event');
      expect(eventLogs).toHaveLength(context.listenerCalls.length);
      eventLogs.forEach((entry, i) => {
        const call = context.listenerCalls[i];
        expect(entry.levelName).toBe('DEBUG');
        expect(entry.message).toBe(`Notified event "${call.event}" to listener "${call.listener}".`);
        expect(entry.context).toEqual({ event: call.event, listener: call.listener });
      });
      expect(eventLogs.map((l) => l.message)).toContain(
        'Notified event "kernel.request" to listener "RouterListener::onKernelRequest".',
      );
    });

    it('logs the matched route at INFO on channel request with route, parameters, URI and method', async () => {
      const res = await http().get('/fixture/items/42?x=1').set('Host', HOST).expect(200);
      expect(res.body).toEqual({ id: '42', route: 'fixture_item' });
      const matched = probe.last.logs.filter((l) => l.channel === 'request');
      expect(matched).toHaveLength(1);
      expect(matched[0].levelName).toBe('INFO');
      expect(matched[0].message).toBe('Matched route "fixture_item".');
      expect(matched[0].context).toEqual({
        route: 'fixture_item',
        route_parameters: { _route: 'fixture_item', _controller: 'KernelFixturesController::item', id: '42' },
        request_uri: 'http://shop.test/fixture/items/42?x=1',
        method: 'GET',
      });
      expect(Object.keys(matched[0].context.route_parameters as object)).toEqual(['_route', '_controller', 'id']);
      // Matched route is logged inside the RouterListener, before the "Notified" entries of kernel.request.
      const log = requestLog(probe.last);
      const index = log.indexOf(matched[0]);
      expect(log.slice(0, index).every((l) => l.channel !== 'event')).toBe(true);
      expect(log.slice(index + 1).filter((l) => l.channel === 'event').length).toBeGreaterThan(0);
    });

    it('names undecorated routes after their controller and method', async () => {
      await http().get('/fixture/locale').set('Host', HOST).expect(200);
      expect(probe.last.request.attributes).toMatchObject({
        _route: 'kernel_fixtures_locale',
        _controller: 'KernelFixturesController::locale',
      });
    });

    it('answers HEAD on a GET route with headers and no body', async () => {
      const res = await http().head('/fixture/items').set('Host', HOST).expect(200);
      expect(res.text).toBeUndefined();
      expect(res.headers['content-length']).toBe(
        String(Buffer.byteLength(JSON.stringify({ items: ['tea', 'coffee'] }))),
      );
    });
  });

  describe('404', () => {
    it('is a NotFoundHttpException caused by a ResourceNotFoundException naming the path with a slash added', async () => {
      const res = await http()
        .get('/this/does/not/exist')
        .set('Host', HOST)
        .set('Accept', 'application/json')
        .expect(404);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.body).toMatchObject({
        title: 'Not Found',
        status: 404,
        detail: 'No route found for "GET http://shop.test/this/does/not/exist"',
      });
      expect(chain(res.body)).toEqual([
        { class: 'NotFoundHttpException', message: 'No route found for "GET http://shop.test/this/does/not/exist"' },
        { class: 'ResourceNotFoundException', message: 'No routes found for "/this/does/not/exist/".' },
      ]);
    });

    it('adds the Referer to the message', async () => {
      const res = await http()
        .get('/nope')
        .set('Host', HOST)
        .set('Referer', 'http://shop.test/products')
        .set('Accept', 'application/json')
        .expect(404);
      expect(res.body.detail).toBe('No route found for "GET http://shop.test/nope" (from "http://shop.test/products")');
    });

    it('names the path as requested for POST (no slash toggling)', async () => {
      const res = await http().post('/nope').set('Host', HOST).set('Accept', 'application/json').expect(404);
      expect(chain(res.body)).toEqual([
        { class: 'NotFoundHttpException', message: 'No route found for "POST http://shop.test/nope"' },
        { class: 'ResourceNotFoundException', message: 'No routes found for "/nope".' },
      ]);
    });

    it('names the path without its slash for a GET ending in a slash', async () => {
      const res = await http().get('/nope/?a=1').set('Host', HOST).set('Accept', 'application/json').expect(404);
      expect(res.body.exceptions[0].message).toBe('No route found for "GET http://shop.test/nope/?a=1"');
      expect(res.body.exceptions[1].message).toBe('No routes found for "/nope".');
    });

    it('raises the not-found exception during kernel.request: no controller event, the error logged, then kernel.response', async () => {
      await http().get('/this/does/not/exist').set('Host', HOST).expect(404);
      const context = await probe.lastTerminated();
      expect(eventSequence(context)).toEqual([
        'kernel.request',
        'kernel.exception',
        'kernel.response',
        'kernel.finish_request',
        'kernel.terminate',
      ]);
      const request = calls(context)
        .filter(([e]) => e === 'kernel.request')
        .map(([, l]) => l);
      expect(request[request.length - 1]).toBe('RouterListener::onKernelRequest');
      const error = context.logs.find((l) => l.levelName === 'ERROR');
      expect(error?.channel).toBe('request');
      expect(error?.message).toMatch(
        /^Uncaught Exception NotFoundHttpException: "No route found for "GET http:\/\/shop.test\/this\/does\/not\/exist"" at src\/lifecycle\/listeners\/router\.listener\.ts line \d+$/,
      );
    });

    it('still gets the kernel.response headers', async () => {
      const res = await http().get('/nope').set('Host', HOST).expect(404);
      expect(res.headers['x-robots-tag']).toBe('noindex');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    });
  });

  describe('trailing slash', () => {
    it('redirects 301 to the route with the slash removed, keeping the query string', async () => {
      const res = await http().get('/fixture/items/?page=2').set('Host', HOST).expect(301);
      expect(res.headers.location).toBe('http://shop.test/fixture/items?page=2');
      const matched = probe.last.logs.find((l) => l.message === 'Matched route "fixture_items".');
      expect(matched?.context.route_parameters).toEqual({
        _controller: 'RedirectController::urlRedirectAction',
        path: '/fixture/items',
        permanent: true,
        scheme: null,
        httpPort: 80,
        httpsPort: 443,
        _route: 'fixture_items',
      });
    });

    it('redirects 301 to the route with the slash added, through the controller events', async () => {
      const res = await http().get('/fixture/dir').set('Host', 'shop.test:8080').expect(301);
      expect(res.headers.location).toBe('http://shop.test:8080/fixture/dir/');
      const context = await probe.lastTerminated();
      expect(eventSequence(context)).toEqual([
        'kernel.request',
        'kernel.controller',
        'kernel.controller_arguments',
        'kernel.response',
        'kernel.finish_request',
        'kernel.terminate',
      ]);
      await http().get('/fixture/dir/').set('Host', HOST).expect(200, 'dir');
    });
  });

  describe('405', () => {
    it('answers with Allow and the exact message, caused by the routing exception', async () => {
      const res = await http().put('/fixture/items').set('Host', HOST).set('Accept', 'application/json').expect(405);
      expect(res.headers.allow).toBe('GET, POST');
      expect(res.body.detail).toBe(
        'No route found for "PUT http://shop.test/fixture/items": Method Not Allowed (Allow: GET, POST)',
      );
      expect(chain(res.body)).toEqual([
        {
          class: 'MethodNotAllowedHttpException',
          message: 'No route found for "PUT http://shop.test/fixture/items": Method Not Allowed (Allow: GET, POST)',
        },
        { class: 'MethodNotAllowedException', message: '' },
      ]);
    });
  });

  describe('400', () => {
    const problem = (res: request.Response) => ({
      status: res.status,
      detail: res.body.detail,
      classes: res.body.exceptions.map((e: ExceptionJson) => e.class),
    });

    it('for invalid percent-encoding in the path', async () => {
      const res = await http()
        .get('/fixture/items/%E0%A4%A')
        .set('Host', HOST)
        .set('Accept', 'application/json')
        .expect(400);
      expect(problem(res)).toEqual({
        status: 400,
        detail: 'The path "/fixture/items/%E0%A4%A" is not valid percent-encoded UTF-8.',
        classes: ['BadRequestHttpException', 'MalformedRequestException'],
      });
    });

    it('for a Host header that is not a valid host', async () => {
      const res = await http()
        .get('/fixture/items')
        .set('Host', 'bad host!')
        .set('Accept', 'application/json')
        .expect(400);
      expect(problem(res)).toEqual({
        status: 400,
        detail: 'Invalid Host "bad host!".',
        classes: ['BadRequestHttpException', 'SuspiciousOperationException'],
      });
    });

    it('answers a long host name ending in a bad character with a 400 at once (no exponential backtracking)', async () => {
      const host = `${'a'.repeat(200)}.${'b'.repeat(200)}/`;
      const res = await http().get('/fixture/items').set('Host', host).set('Accept', 'application/json').expect(400);
      expect(res.body.detail).toBe(`Invalid Host "${host}".`);
      await http().get('/fixture/items').set('Host', '[::1]:8080').expect(200);
      await http().get('/fixture/items').set('Host', 'shop_1.example-test.com').expect(200);
    });

    it('for a malformed JSON body', async () => {
      const res = await http()
        .post('/fixture/items')
        .set('Host', HOST)
        .set('Accept', 'application/json')
        .set('Content-Type', 'application/json')
        .send('{"name": "tea",')
        .expect(400);
      expect(res.body.exceptions[0].class).toBe('BadRequestHttpException');
      expect(res.body.exceptions[1].class).toBe('SyntaxError');
      expect(res.body.detail).toBe(`Malformed JSON body: ${res.body.exceptions[1].message}`);
      // V8 13 (Node 24) adds the line and column to JSON.parse's message.
      expect(res.body.detail).toMatch(
        /^Malformed JSON body: Expected double-quoted property name in JSON at position 15( \(line 1 column 16\))?$/,
      );
    });

    it('for a malformed JSON body, without the body text the parser quotes', async () => {
      const res = await http()
        .post('/fixture/items')
        .set('Host', HOST)
        .set('Accept', 'application/json')
        .set('Content-Type', 'application/json')
        .send('{"password":SEKRIT"}')
        .expect(400);
      expect(res.body.detail).toBe('Malformed JSON body: Unexpected token in JSON at position 12');
      expect(res.body.exceptions.map((e: { message: string }) => e.message)).toEqual([
        res.body.detail,
        'Unexpected token in JSON at position 12',
      ]);
      expect(res.text).not.toContain('SEKRIT');
    });

    it('for a body that fails validation, listing the violations', async () => {
      const res = await http()
        .post('/fixture/items')
        .set('Host', HOST)
        .set('Accept', 'application/json')
        .send({ name: '', quantity: 0, extra: 1 })
        .expect(400);
      expect(res.body.exceptions.map((e: ExceptionJson) => e.class)).toEqual([
        'BadRequestHttpException',
        'ValidationFailedException',
      ]);
      expect(res.body.violations).toEqual([
        { property: 'extra', messages: ['property extra should not exist'] },
        { property: 'name', messages: ['name must be longer than or equal to 1 characters'] },
        { property: 'quantity', messages: ['quantity must not be less than 1'] },
      ]);
      expect(res.body.detail).toBe(
        'Validation failed: property extra should not exist; name must be longer than or equal to 1 characters; quantity must not be less than 1.',
      );
    });

    it('but a valid body is accepted', async () => {
      await http()
        .post('/fixture/items')
        .set('Host', HOST)
        .send({ name: 'tea', quantity: 2 })
        .expect(201, { created: { name: 'tea', quantity: 2 } });
    });

    it('is a 404 when the path matches no route, whatever the body', async () => {
      await http().post('/nope').set('Host', HOST).set('Content-Type', 'application/json').send('{oops').expect(404);
    });
  });

  describe('errors from a controller', () => {
    it('answer 500 through kernel.exception and kernel.response', async () => {
      const res = await http().get('/fixture/boom').set('Host', HOST).set('Accept', 'application/json').expect(500);
      expect(chain(res.body)).toEqual([{ class: 'Error', message: 'Boom from a controller' }]);
      expect(res.headers['x-robots-tag']).toBe('noindex');
      const context = await probe.lastTerminated();
      expect(eventSequence(context)).toEqual([
        'kernel.request',
        'kernel.controller',
        'kernel.controller_arguments',
        'kernel.exception',
        'kernel.response',
        'kernel.finish_request',
        'kernel.terminate',
      ]);
      expect(
        context.logs.some(
          (l) =>
            l.levelName === 'CRITICAL' && l.message.startsWith('Uncaught Exception Error: "Boom from a controller"'),
        ),
      ).toBe(true);
    });

    it('lose the Content-Security-Policy the controller had set', async () => {
      const res = await http().get('/fixture/csp-boom').set('Host', HOST).expect(500);
      expect(res.headers['content-security-policy']).toBeUndefined();
      const ok = await http().get('/fixture/csp').set('Host', HOST).expect(200);
      expect(ok.headers['content-security-policy']).toBe("default-src 'self'");
    });
  });

  it('runs kernel.response on a streamed response, once, before the first byte', async () => {
    const res = await http().get('/fixture/stream').set('Host', HOST).expect(200);
    expect(res.text).toBe('one,two');
    expect(res.headers['x-robots-tag']).toBe('noindex');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    const context = await probe.lastTerminated();
    expect(calls(context).filter(([e]) => e === 'kernel.response')).toHaveLength(10);
  });

  describe('a Nest guard', () => {
    it('runs after kernel.controller and kernel.controller_arguments, as an access check on the arguments would in Symfony', async () => {
      await http().get('/fixture/guarded').set('Host', HOST).set('Accept', 'application/json').expect(403);
      const context = await probe.lastTerminated();
      expect(eventSequence(context)).toEqual([
        'kernel.request',
        'kernel.controller',
        'kernel.controller_arguments',
        'kernel.exception',
        'kernel.response',
        'kernel.finish_request',
        'kernel.terminate',
      ]);
    });
  });

  describe('a kernel.controller listener that replaces the controller', () => {
    it("answers with the replacement's KernelResponse, the handler not called", async () => {
      const res = await http()
        .get('/fixture/items')
        .set('Host', HOST)
        .set('X-Replace-Controller', 'response')
        .expect(203);
      expect(res.text).toBe('replaced');
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      const context = await probe.lastTerminated();
      expect(eventSequence(context)).toEqual([
        'kernel.request',
        'kernel.controller',
        'kernel.controller_arguments',
        'kernel.response',
        'kernel.finish_request',
        'kernel.terminate',
      ]);
      expect(context.request.attributes._controller).toBe('KernelFixturesController::list');
    });

    it("answers with any other result as JSON; the event carried the handler's method", async () => {
      const res = await http().get('/fixture/items').set('Host', HOST).set('X-Replace-Controller', 'value').expect(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toEqual({ replaced: 'list' });
    });

    it('waits for an async replacement', async () => {
      const res = await http().get('/fixture/items').set('Host', HOST).set('X-Replace-Controller', 'async').expect(200);
      expect(res.text).toBe('replaced later');
    });
  });

  describe('a kernel.request listener that sets a response', () => {
    it('ends the request phase; the response passes kernel.response and kernel.finish_request', async () => {
      const res = await http().get('/fixture/items').set('Host', HOST).set('X-Short-Circuit', '1').expect(202);
      expect(res.text).toBe('answered by a listener');
      expect(res.headers['x-robots-tag']).toBe('noindex');
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      const context = await probe.lastTerminated();
      expect(eventSequence(context)).toEqual([
        'kernel.request',
        'kernel.response',
        'kernel.finish_request',
        'kernel.terminate',
      ]);
      const request = calls(context)
        .filter(([e]) => e === 'kernel.request')
        .map(([, l]) => l);
      expect(request[request.length - 1]).toBe('ShortCircuitListener::onKernelRequest');
      expect(request).not.toContain('LocaleListener::onKernelRequest');
      expect(context.logs.map((l) => l.message)).toContain(
        'Listener "ShortCircuitListener::onKernelRequest" stopped propagation of the event "kernel.request".',
      );
    });
  });

  describe('locale', () => {
    it('comes from the _locale route parameter first', async () => {
      await http()
        .get('/fixture/fr/hello')
        .set('Host', HOST)
        .set('Accept-Language', 'de')
        .expect(200, { locale: 'fr' });
    });

    it('then from Accept-Language among the supported locales', async () => {
      const res = await http()
        .get('/fixture/locale')
        .set('Host', HOST)
        .set('Accept-Language', 'es;q=1, de-DE;q=0.9, fr;q=0.5')
        .expect(200);
      expect(res.body.locale).toBe('de');
    });

    it('then the default', async () => {
      expect((await http().get('/fixture/locale').set('Host', HOST).expect(200)).body.locale).toBe('en');
      expect(
        (await http().get('/fixture/locale').set('Host', HOST).set('Accept-Language', 'ja').expect(200)).body.locale,
      ).toBe('en');
    });

    it('an unsupported _locale is a 404', async () => {
      const res = await http().get('/fixture/xx/hello').set('Host', HOST).set('Accept', 'application/json').expect(404);
      expect(res.body.detail).toBe('The locale "xx" is not supported.');
    });

    it('is restored to the default at kernel.finish_request', async () => {
      await http().get('/fixture/fr/hello').set('Host', HOST).expect(200);
      const context = await probe.lastTerminated();
      expect(context.request.locale).toBe('fr');
      expect(context.locale).toBe('en');
    });

    it('renders into the shop home page', async () => {
      const res = await http().get('/').set('Host', HOST).set('Accept-Language', 'fr').expect(200);
      expect(res.text).toContain('<html lang="fr">');
      expect(res.text).toContain('<span id="locale">fr</span>');
    });
  });

  describe('without trusted proxies', () => {
    it('ignores X-Forwarded-* headers', async () => {
      const res = await http()
        .get('/fixture/locale')
        .set('Host', HOST)
        .set('X-Forwarded-For', '203.0.113.9')
        .set('X-Forwarded-Proto', 'https')
        .set('X-Forwarded-Host', 'evil.example')
        .expect(200);
      expect(res.body.uri).toBe('http://shop.test/fixture/locale');
      expect(res.body.clientIp).toBe('127.0.0.1');
    });
  });
});

describe("Kernel of an application that sets Express's trust proxy itself (e2e)", () => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    app = await createTestApp({ imports: [KernelFixturesModule] });
    // Without TRUSTED_PROXIES, as an application's main.ts may do: the kernel believes what Express believes.
    app.set('trust proxy', 'loopback');
  });

  afterAll(async () => {
    await app.close();
  });

  it('takes client IP, scheme and host from X-Forwarded-* as Express does', async () => {
    const res = await request(app.getHttpServer())
      .get('/fixture/locale')
      .set('X-Forwarded-For', '203.0.113.9')
      .set('X-Forwarded-Proto', 'https')
      .set('X-Forwarded-Host', 'shop.example')
      .expect(200);
    expect(res.body).toMatchObject({
      clientIp: '203.0.113.9',
      scheme: 'https',
      uri: 'https://shop.example/fixture/locale',
    });
  });
});

describe('Kernel behind a trusted proxy (e2e)', () => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    // The clients behind the proxy (documentation ranges) may see debug details, as developers on a private network.
    app = await createTestApp({
      imports: [KernelFixturesModule],
      env: {
        TRUSTED_PROXIES: '127.0.0.1,::1',
        PROFILER_ALLOWED_IPS: 'loopback,198.51.100.0/24,203.0.113.0/24',
        PROFILER_ALLOWED_HOSTS: 'shop.example',
      },
    });
  });

  afterAll(async () => {
    await app.close();
  });

  it('takes client IP, scheme and host from X-Forwarded-*', async () => {
    const res = await request(app.getHttpServer())
      .get('/fixture/locale')
      .set('X-Forwarded-For', '203.0.113.9')
      .set('X-Forwarded-Proto', 'https')
      .set('X-Forwarded-Host', 'shop.example')
      .expect(200);
    expect(res.body).toMatchObject({
      clientIp: '203.0.113.9',
      scheme: 'https',
      uri: 'https://shop.example/fixture/locale',
    });
  });

  it('puts the https URL into the 404 message', async () => {
    const res = await request(app.getHttpServer())
      .get('/missing')
      .set('X-Forwarded-Proto', 'https')
      .set('X-Forwarded-Host', 'shop.example')
      .set('Accept', 'application/json')
      .expect(404);
    expect(res.body.detail).toBe('No route found for "GET https://shop.example/missing"');
  });

  it('answers 400 when Forwarded and X-Forwarded-For disagree', async () => {
    const res = await request(app.getHttpServer())
      .get('/fixture/locale')
      .set('Forwarded', 'for=198.51.100.1')
      .set('X-Forwarded-For', '203.0.113.9')
      .set('Accept', 'application/json')
      .expect(400);
    expect(res.body.exceptions.map((e: ExceptionJson) => e.class)).toEqual([
      'BadRequestHttpException',
      'ConflictingHeadersException',
    ]);
    expect(res.body.detail).toMatch(
      /^The request has both a trusted "FORWARDED" header and a trusted "X_FORWARDED_FOR" header, conflicting each other\./,
    );
    await request(app.getHttpServer())
      .get('/fixture/locale')
      .set('Forwarded', 'for=203.0.113.9')
      .set('X-Forwarded-For', '203.0.113.9')
      .expect(200);
  });
});

describe('Trusted hosts (e2e)', () => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    app = await createTestApp({
      imports: [KernelFixturesModule],
      env: { TRUSTED_HOSTS: 'shop\\.test,127\\.0\\.0\\.1', PROFILER_ALLOWED_HOSTS: '*' },
    });
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers 400 for a host outside TRUSTED_HOSTS', async () => {
    await request(app.getHttpServer()).get('/fixture/items').set('Host', 'shop.test').expect(200);
    const res = await request(app.getHttpServer())
      .get('/fixture/items')
      .set('Host', 'other.example')
      .set('Accept', 'application/json')
      .expect(400);
    expect(res.body.detail).toBe('Untrusted Host "other.example".');
  });
});
