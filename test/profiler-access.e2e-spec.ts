import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createTestApp } from './support/create-test-app.js';
import { storedProfiles } from './support/profiler.js';

const HOST = 'shop.test';

describe('Who may see the profiler and debug details (e2e)', () => {
  const apps: NestExpressApplication[] = [];
  async function app(env: Record<string, string>): Promise<NestExpressApplication> {
    const created = await createTestApp({ env });
    apps.push(created);
    return created;
  }

  afterAll(async () => {
    for (const created of apps) await created.close();
  });

  /** What a client not allowed to see debug details gets: the profiler's routes do not exist; errors are generic. */
  async function expectNoDebugDetails(server: NestExpressApplication, headers: Record<string, string> = {}): Promise<void> {
    const http = () => request(server.getHttpServer());
    const page = await http().get('/').set('Host', HOST).set(headers).expect(200);
    expect(page.headers['x-debug-token']).toBeUndefined();
    expect(page.headers['x-debug-token-link']).toBeUndefined();
    expect(page.text).not.toContain('sk-toolbar');
    const [profile] = (await storedProfiles(server)).rows;
    // Still recorded, for the developers who may look.
    expect(profile.url).toBe(`http://${HOST}/`);
    for (const path of ['/_profiler/', '/_profiler/search?limit=10', '/_profiler/latest', `/_profiler/${profile.token}`, `/_profiler/${profile.token}.json`]) {
      const res = await http().get(path).set('Host', HOST).set('Accept', 'application/json').set(headers).expect(404);
      expect(res.body).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'Not Found' });
    }
    const error = await http().get('/nowhere').set('Host', HOST).set(headers).expect(404);
    expect(error.headers['x-debug-exception']).toBeUndefined();
    expect(error.text).toContain('The server returned a "404 Not Found".');
    expect(error.text).not.toContain('NotFoundHttpException');
    expect(error.text).not.toContain('No route found');
  }

  it('answers nothing of the profiler to a client outside PROFILER_ALLOWED_IPS, and shows it generic error pages', async () => {
    const server = await app({ PROFILER_ALLOWED_IPS: '10.0.0.0/8,192.0.2.7' });
    await expectNoDebugDetails(server);
  });

  it('is not fooled by a forged X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const server = await app({ PROFILER_ALLOWED_IPS: '10.0.0.0/8' });
    await expectNoDebugDetails(server, { 'X-Forwarded-For': '10.1.2.3' });
  });

  it('believes X-Forwarded-For from a trusted proxy: an allowed client through it gets the profiler, a public one does not', async () => {
    const server = await app({ PROFILER_ALLOWED_IPS: '10.0.0.0/8', TRUSTED_PROXIES: 'loopback' });
    const http = () => request(server.getHttpServer());
    const allowed = await http().get('/').set('Host', HOST).set('X-Forwarded-For', '10.1.2.3').expect(200);
    expect(allowed.headers['x-debug-token']).toMatch(/^[0-9a-f]{6}$/);
    expect(allowed.text).toContain('sk-toolbar');
    await http().get('/_profiler/').set('Host', HOST).set('X-Forwarded-For', '10.1.2.3').expect(302);
    await http().get(`/_profiler/${allowed.headers['x-debug-token']}`).set('Host', HOST).set('X-Forwarded-For', '10.1.2.3').expect(200);
    const debugPage = await http().get('/nowhere').set('Host', HOST).set('X-Forwarded-For', '10.1.2.3').expect(404);
    expect(debugPage.headers['x-debug-exception']).toBeDefined();
    await http().get('/_profiler/').set('Host', HOST).set('X-Forwarded-For', '203.0.113.9').expect(404);
  });

  it('allows loopback and private ranges by default, and nobody without APP_DEBUG', async () => {
    const server = await app({ TRUSTED_PROXIES: 'loopback' });
    const http = () => request(server.getHttpServer());
    await http().get('/_profiler/').set('Host', HOST).expect(302);
    for (const ip of ['10.9.8.7', '172.16.0.1', '192.168.1.20', 'fd00::1']) {
      await http().get('/_profiler/').set('Host', HOST).set('X-Forwarded-For', ip).expect(302);
    }
    for (const ip of ['8.8.8.8', '2001:db8::1']) {
      await http().get('/_profiler/').set('Host', HOST).set('X-Forwarded-For', ip).expect(404);
    }
    const off = await app({ APP_DEBUG: '0' });
    const res = await request(off.getHttpServer()).get('/_profiler/').set('Host', HOST).expect(404);
    expect(res.headers['x-debug-token']).toBeUndefined();
  });

  it('refuses to start with a malformed PROFILER_ALLOWED_IPS', async () => {
    await expect(app({ PROFILER_ALLOWED_IPS: '10.0.0.0/99' })).rejects.toThrow(/PROFILER_ALLOWED_IPS: invalid/);
  });
});
