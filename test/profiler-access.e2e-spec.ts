import Database from 'better-sqlite3';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { KernelFixturesModule } from './fixtures/kernel-fixtures.module.js';
import { ProfilerFixturesModule } from './fixtures/profiler-fixtures.module.js';
import { createTestApp, type TestAppOptions } from './support/create-test-app.js';
import { storedProfiles } from './support/profiler.js';

const HOST = 'shop.test';

/** The generic error page: the status and nothing else. */
function genericPage(status: number): string {
  const heading = `${status} ${STATUS_CODES[status]}`;
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex,nofollow">' +
    `<title>${heading}</title></head><body><h1>${heading}</h1><ul><li>The server returned a "${heading}".</li></ul></body></html>\n`
  );
}

/** What a debug page or header would give away: exception classes, messages, stack frames, the profiler itself. */
const DEBUG_DETAILS = [
  'Exception',
  'Error:',
  'No route found',
  'Boom from a controller',
  ' at ',
  'src/',
  '.ts:',
  'node_modules',
  'Stack',
  'sk-toolbar',
  '_profiler',
  'Profile',
];

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
  async function expectNoDebugDetails(
    server: NestExpressApplication,
    headers: Record<string, string> = {},
  ): Promise<void> {
    const http = () => request(server.getHttpServer());
    const page = await http().get('/').set('Host', HOST).set(headers).expect(200);
    expect(page.headers['x-debug-token']).toBeUndefined();
    expect(page.headers['x-debug-token-link']).toBeUndefined();
    expect(page.text).not.toContain('sk-toolbar');
    const [profile] = (await storedProfiles(server)).rows;
    // Still recorded, for the developers who may look.
    expect(profile.url).toBe(`http://${HOST}/`);
    for (const path of [
      '/_profiler/',
      '/_profiler/search?limit=10',
      '/_profiler/latest',
      `/_profiler/${profile.token}`,
      `/_profiler/${profile.token}.json`,
    ]) {
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
    await http()
      .get(`/_profiler/${allowed.headers['x-debug-token']}`)
      .set('Host', HOST)
      .set('X-Forwarded-For', '10.1.2.3')
      .expect(200);
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

  it('shows nothing of the profiler with APP_DEBUG off: no toolbar, no token headers, plain 404s for its routes (a stored profile too), generic error pages', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shopkernel-debug-off-'));
    const running = new Set<NestExpressApplication>();
    const start = async (options: TestAppOptions) => {
      const started = await createTestApp(options);
      running.add(started);
      return started;
    };
    const stop = async (started: NestExpressApplication) => {
      running.delete(started);
      await started.close();
    };
    try {
      // A profile recorded while debug was on, in the store the debug-off instance is given: it must not be served.
      const file = join(dir, 'profiles.sqlite');
      const on = await start({ env: { PROFILER_DSN: `sqlite:${file}` } });
      const recorded = await request(on.getHttpServer()).get('/').set('Host', HOST).expect(200);
      const token: string = recorded.headers['x-debug-token'];
      expect(token).toMatch(/^[0-9a-f]{6}$/);
      expect((await storedProfiles(on)).total).toBe(1);
      await stop(on);
      const storedTokens = () => {
        const db = new Database(file, { readonly: true, fileMustExist: true });
        try {
          return (db.prepare('SELECT token FROM profile').all() as { token: string }[]).map((r) => r.token);
        } finally {
          db.close();
        }
      };
      expect(storedTokens()).toEqual([token]);

      const off = await start({
        env: { APP_DEBUG: '0', PROFILER_DSN: `sqlite:${file}` },
        imports: [KernelFixturesModule, ProfilerFixturesModule],
      });
      const http = () => request(off.getHttpServer());

      for (const path of ['/', '/pfx/page']) {
        const page = await http().get(path).set('Host', HOST).expect(200);
        expect(page.headers['content-type']).toMatch(/^text\/html/);
        expect(page.text).toContain('</body>');
        expect(page.text).not.toContain('sk-toolbar');
        expect(page.text).not.toContain('_profiler');
        expect(page.headers['x-debug-token']).toBeUndefined();
        expect(page.headers['x-debug-token-link']).toBeUndefined();
        expect(page.headers['content-security-policy'] ?? '').not.toMatch(/nonce-/);
      }

      for (const path of [
        `/_profiler/${token}.json`,
        `/_profiler/${token}`,
        '/_profiler/latest',
        '/_profiler/search',
        '/_profiler/search?limit=10',
        '/_profiler/',
      ]) {
        const html = await http().get(path).set('Host', HOST).expect(404);
        expect({ path, body: html.text }).toEqual({ path, body: genericPage(404) });
        expect(html.headers['x-debug-token']).toBeUndefined();
        expect(html.headers['x-debug-token-link']).toBeUndefined();
        expect(html.headers['x-debug-exception']).toBeUndefined();
        const json = await http().get(path).set('Host', HOST).set('Accept', 'application/json').expect(404);
        expect({ path, body: json.body }).toEqual({
          path,
          body: { type: 'about:blank', title: 'Not Found', status: 404, detail: 'Not Found' },
        });
        for (const detail of DEBUG_DETAILS)
          expect({ path, detail, found: html.text.includes(detail) || json.text.includes(detail) }).toEqual({
            path,
            detail,
            found: false,
          });
      }

      const error = await http().get('/fixture/boom').set('Host', HOST).expect(500);
      expect(error.text).toBe(genericPage(500));
      expect(Object.keys(error.headers).filter((name) => name.startsWith('x-debug'))).toEqual([]);
      for (const detail of DEBUG_DETAILS)
        expect({ detail, found: error.text.includes(detail) }).toEqual({ detail, found: false });
      const jsonError = await http()
        .get('/fixture/boom')
        .set('Host', HOST)
        .set('Accept', 'application/json')
        .expect(500);
      expect(jsonError.body).toEqual({
        type: 'about:blank',
        title: 'Internal Server Error',
        status: 500,
        detail: 'Internal Server Error',
      });

      // Nothing was recorded either.
      await stop(off);
      expect(storedTokens()).toEqual([token]);
    } finally {
      for (const started of running) await started.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start with a malformed PROFILER_ALLOWED_IPS', async () => {
    await expect(app({ PROFILER_ALLOWED_IPS: '10.0.0.0/99' })).rejects.toThrow(
      /^PROFILER_ALLOWED_IPS: must be addresses or CIDR ranges/,
    );
  });
});
