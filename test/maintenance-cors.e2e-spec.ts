import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { MaintenanceMode } from '../src/lifecycle/maintenance/maintenance-mode.js';
import { KernelFixturesModule } from './fixtures/kernel-fixtures.module.js';
import { KernelProbe } from './fixtures/kernel-probe.listener.js';
import { createTestApp } from './support/create-test-app.js';

describe('Maintenance mode (e2e)', () => {
  let app: NestExpressApplication;
  let dir: string;
  let flag: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shopkernel-maintenance-'));
    flag = join(dir, 'maintenance');
    app = await createTestApp({
      imports: [KernelFixturesModule],
      env: { MAINTENANCE_FILE: flag, MAINTENANCE_RETRY_AFTER: '120' },
    });
  });

  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After while the maintenance file exists, and not after', async () => {
    await request(app.getHttpServer()).get('/fixture/items').expect(200);
    await writeFile(flag, '');
    expect(await app.get(MaintenanceMode).refresh()).toBe(true);
    const res = await request(app.getHttpServer()).get('/fixture/items').set('Accept', 'application/json').expect(503);
    expect(res.headers['retry-after']).toBe('120');
    expect(res.body).toMatchObject({
      status: 503,
      title: 'Service Unavailable',
      detail: 'The shop is closed for maintenance. Please come back in a few minutes.',
    });
    const html = await request(app.getHttpServer()).get('/').expect(503);
    expect(html.headers['retry-after']).toBe('120');
    expect(html.text).toContain('503 Service Unavailable');
    const last = app
      .get(KernelProbe)
      .last.listenerCalls.filter((c) => c.event === 'kernel.request')
      .pop();
    expect(last?.listener).toBe('MaintenanceListener::onKernelRequest');
    await rm(flag);
    expect(await app.get(MaintenanceMode).refresh()).toBe(false);
    await request(app.getHttpServer()).get('/fixture/items').expect(200);
  });

  it('keeps the profiler routes reachable', async () => {
    await writeFile(flag, '');
    await app.get(MaintenanceMode).refresh();
    const search = await request(app.getHttpServer()).get('/_profiler/search?limit=10').expect(200);
    expect(search.text).toContain('<h1>Profile Search</h1>');
    await request(app.getHttpServer()).get('/fixture/items').expect(503);
    await rm(flag);
    await app.get(MaintenanceMode).refresh();
  });
});

describe('Maintenance from configuration (e2e)', () => {
  it('answers 503 when MAINTENANCE is on', async () => {
    const app = await createTestApp({ imports: [KernelFixturesModule], env: { MAINTENANCE: '1' } });
    try {
      const res = await request(app.getHttpServer()).get('/fixture/items').expect(503);
      expect(res.headers['retry-after']).toBe('300');
    } finally {
      await app.close();
    }
  });
});

describe('CORS (e2e)', () => {
  let app: NestExpressApplication;
  const ORIGIN = 'https://front.example';

  beforeAll(async () => {
    app = await createTestApp({
      imports: [KernelFixturesModule],
      env: { CORS_ALLOW_ORIGINS: ORIGIN, CORS_MAX_AGE: '600' },
    });
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers a preflight from configuration during kernel.request, through kernel.response', async () => {
    const res = await request(app.getHttpServer())
      .options('/fixture/items')
      .set('Origin', ORIGIN)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type')
      .expect(204);
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': ORIGIN,
      'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE',
      'access-control-allow-headers': 'content-type',
      'access-control-max-age': '600',
      vary: 'Origin',
      'x-robots-tag': 'noindex',
    });
    const context = await app.get(KernelProbe).lastTerminated();
    const events = [...new Set(context.listenerCalls.map((c) => c.event))];
    expect(events).toEqual(['kernel.request', 'kernel.response', 'kernel.finish_request', 'kernel.terminate']);
    expect(context.logs.map((l) => l.message)).toContain(
      'Listener "CorsListener::onKernelRequest" stopped propagation of the event "kernel.request".',
    );
  });

  it('refuses a preflight from an unknown origin or for a header not allowed', async () => {
    const refused = await request(app.getHttpServer())
      .options('/fixture/items')
      .set('Origin', 'https://evil.example')
      .set('Access-Control-Request-Method', 'POST')
      .expect(403);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    await request(app.getHttpServer())
      .options('/fixture/items')
      .set('Origin', ORIGIN)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'x-secret')
      .expect(400);
  });

  it('adds Access-Control-Allow-Origin to actual requests from an allowed origin only', async () => {
    const allowed = await request(app.getHttpServer()).get('/fixture/items').set('Origin', ORIGIN).expect(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(ORIGIN);
    // A response shared with another origin carries no debug token, so none is exposed by default.
    expect(allowed.headers['access-control-expose-headers']).toBeUndefined();
    expect(allowed.headers['x-debug-token']).toBeUndefined();
    const other = await request(app.getHttpServer())
      .get('/fixture/items')
      .set('Origin', 'https://evil.example')
      .expect(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('Debug off (e2e)', () => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    app = await createTestApp({ imports: [KernelFixturesModule], env: { APP_DEBUG: '0' } });
  });

  afterAll(async () => {
    await app.close();
  });

  it('shows neither class names nor messages, with the same status and headers', async () => {
    const html = await request(app.getHttpServer()).get('/nope').set('Referer', 'http://x/<b>').expect(404);
    expect(html.text).toContain('The server returned a "404 Not Found".');
    expect(html.text).not.toContain('NotFoundHttpException');
    expect(html.text).not.toContain('No route found');
    const json = await request(app.getHttpServer()).put('/fixture/items').set('Accept', 'application/json').expect(405);
    expect(json.headers.allow).toBe('GET, POST');
    expect(json.body).toEqual({
      type: 'about:blank',
      title: 'Method Not Allowed',
      status: 405,
      detail: 'Method Not Allowed',
    });
  });
});
