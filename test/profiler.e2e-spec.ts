import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { ProfilerService } from '../src/profiler/profiler.service.js';
import { ProfilerStorage } from '../src/profiler/storage/profiler-storage.js';
import { KernelFixturesModule } from './fixtures/kernel-fixtures.module.js';
import { ProfilerFixturesModule } from './fixtures/profiler-fixtures.module.js';
import { FailingCollectorModule } from './fixtures/failing-collector.module.js';
import { createTestApp } from './support/create-test-app.js';
import { settle, storedProfile, storedProfiles } from './support/profiler.js';

const HOST = 'shop.test';
const TOKEN = /^[0-9a-f]{6}$/;
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();
const LIST_TIME = /^\d{2}-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{4} \d{2}:\d{2}:\d{2}$/;

describe('Request profiler (e2e)', () => {
  let app: NestExpressApplication;
  const get = (path: string) => request(app.getHttpServer()).get(path).set('Host', HOST);

  beforeEach(async () => {
    app = await createTestApp({ imports: [KernelFixturesModule, ProfilerFixturesModule] });
  });

  afterEach(async () => {
    await app.close();
  });

  describe('profiles', () => {
    it('records exactly one profile per request of every kind, with the list columns', async () => {
      const cases: [() => request.Test, number, string, string][] = [
        [() => get('/'), 200, 'GET', 'http://shop.test/'],
        [() => get('/this/does/not/exist'), 404, 'GET', 'http://shop.test/this/does/not/exist'],
        [
          () => request(app.getHttpServer()).post('/fixture/dir/').set('Host', HOST),
          405,
          'POST',
          'http://shop.test/fixture/dir/',
        ],
        [
          () => request(app.getHttpServer()).get('/fixture/items').set('Host', 'bad host!'),
          400,
          'GET',
          'http://bad host!/fixture/items',
        ],
        [() => get('/_profiler'), 301, 'GET', 'http://shop.test/_profiler'],
        [() => get('/fixture/boom'), 500, 'GET', 'http://shop.test/fixture/boom'],
        [() => get('/_profiler/search?limit=10'), 200, 'GET', 'http://shop.test/_profiler/search?limit=10'],
      ];
      const tokens: string[] = [];
      for (const [send, status, , url] of cases) {
        const res = await send().expect(status);
        // The debug tools answer only for allowed hosts: an invalid Host's request is profiled, its token not sent.
        if (url.includes('bad host!')) expect(res.headers['x-debug-token']).toBeUndefined();
        else expect(res.headers['x-debug-token']).toMatch(TOKEN);
        tokens.push(res.headers['x-debug-token']);
      }
      const { total, rows } = await storedProfiles(app);
      expect(total).toBe(cases.length);
      const badHost = cases.findIndex(([, , , url]) => url.includes('bad host!'));
      tokens[badHost] = rows.find((r) => r.url === cases[badHost][3])!.token;
      // newest first
      expect(rows.map((r) => r.token)).toEqual([...tokens].reverse());
      for (const [i, [, status, method, url]] of cases.entries()) {
        const row = rows.find((r) => r.token === tokens[i])!;
        expect({ status: row.statusCode, method: row.method, url: row.url, parent: row.parent }).toEqual({
          status,
          method,
          url,
          parent: null,
        });
        expect(['127.0.0.1', '::1']).toContain(row.ip);
      }
      expect(new Set(tokens).size).toBe(tokens.length);
    });

    it('opens a profile the moment its request has terminated, its batch of late collectors run on demand, as it stood at kernel.terminate', async () => {
      const res = await get('/').expect(200);
      await settle();
      const profiler = app.get(ProfilerService);
      const profile = await profiler.load(res.headers['x-debug-token']);
      expect(profile).not.toBeNull();
      for (const name of ['request', 'response', 'routing', 'logs', 'events', 'performance', 'memory', 'config'])
        expect(profile!.data[name]).toBeDefined();
      const called = (profile!.data.events as { called: { event: string }[] }).called.map((c) => c.event);
      expect([...new Set(called)]).toEqual([
        'kernel.request',
        'kernel.controller',
        'kernel.controller_arguments',
        'kernel.response',
        'kernel.finish_request',
      ]);
      const notified = (profile!.data.logs as { entries: { context: { event?: string } }[] }).entries
        .map((e) => e.context?.event)
        .filter(Boolean);
      expect(notified.length).toBe(called.length);
      expect(notified).not.toContain('kernel.terminate');
      // Stored as it was opened.
      await profiler.flush();
      expect((await storedProfile(app, res.headers['x-debug-token'])).data.events).toEqual(profile!.data.events);
      expect((await profiler.stats()).pending).toBe(0);
    });

    it("logs a late collector's failure in its own profile, which is stored with the other collectors' data", async () => {
      await app.close();
      app = await createTestApp({ imports: [KernelFixturesModule, ProfilerFixturesModule, FailingCollectorModule] });
      const failed = await get('/pfx/page?collector=fail').expect(200);
      const fine = await get('/pfx/page').expect(200);
      await app.get(ProfilerService).flush();
      const profile = await storedProfile(app, failed.headers['x-debug-token']);
      expect(profile.data.failing).toBeUndefined();
      expect(profile.data.request).toBeDefined();
      const entries = (
        profile.data.logs as {
          entries: { level: number; channel: string; message: string; context: Record<string, unknown> }[];
        }
      ).entries;
      const failure = entries.filter((e) => e.channel === 'profiler');
      expect(failure).toHaveLength(1);
      expect(failure[0]).toMatchObject({
        message: 'Collector "{collector}" failed: {message}',
        context: { collector: 'failing', message: 'Error: Collector fixture failed on purpose' },
      });
      expect((profile.data.logs as { counts: { errors: number } }).counts.errors).toBe(1);
      const other = await storedProfile(app, fine.headers['x-debug-token']);
      expect(other.data.failing).toEqual({ ok: true });
      expect(
        (other.data.logs as { entries: { channel: string }[] }).entries.some((e) => e.channel === 'profiler'),
      ).toBe(false);
    });

    it('sends X-Debug-Token and an absolute X-Debug-Token-Link, none for a Host the debug tools do not answer', async () => {
      const res = await get('/fixture/items').expect(200);
      const token = res.headers['x-debug-token'];
      expect(token).toMatch(TOKEN);
      expect(res.headers['x-debug-token-link']).toBe(`http://shop.test/_profiler/${token}`);
      for (const host of ['bad host!', 'rebind.attacker.example']) {
        const other = await request(app.getHttpServer()).get('/fixture/items').set('Host', host);
        expect([other.headers['x-debug-token'], other.headers['x-debug-token-link']]).toEqual([undefined, undefined]);
      }
    });

    it('honours TRUSTED_PROXIES for the client IP', async () => {
      await app.close();
      app = await createTestApp({ env: { TRUSTED_PROXIES: '127.0.0.1,::1' } });
      const res = await get('/').set('X-Forwarded-For', '203.0.113.7').expect(200);
      // A public client is not told the token (see profiler-access.e2e-spec.ts), but its request is profiled.
      expect(res.headers['x-debug-token']).toBeUndefined();
      const [profile] = (await storedProfiles(app)).rows;
      expect(profile.ip).toBe('203.0.113.7');
    });

    it('does not profile excluded paths', async () => {
      await app.close();
      app = await createTestApp({ env: { PROFILER_EXCLUDED_PATHS: '^/fixture/' }, imports: [KernelFixturesModule] });
      const skipped = await get('/fixture/items').expect(200);
      expect(skipped.headers['x-debug-token']).toBeUndefined();
      await get('/').expect(200);
      expect((await storedProfiles(app)).total).toBe(1);
    });

    it('is off without debug: no profile, no headers, and the profiler routes do not exist', async () => {
      await app.close();
      app = await createTestApp({ env: { APP_DEBUG: '0' } });
      const res = await get('/').expect(200);
      expect(res.headers['x-debug-token']).toBeUndefined();
      const profiler = await get('/_profiler/search').expect(404);
      expect(profiler.text).toContain('The server returned a "404 Not Found".');
      expect(profiler.text).not.toContain('Profile Search');
      await get('/_profiler/abcdef').expect(404);
    });
  });

  describe('pages', () => {
    it('/_profiler answers 301 to /_profiler/, which redirects to the search page', async () => {
      const first = await get('/_profiler').expect(301);
      expect(first.headers.location).toBe('http://shop.test/_profiler/');
      const second = await get('/_profiler/').expect(302);
      expect(second.headers.location).toBe('/_profiler/search?limit=10');
      const page = await get(second.headers.location).expect(200);
      const html = parse(page.text);
      expect(text(html.querySelector('h1'))).toBe('Profile Search');
      // The 301 and the 302 are both recorded: left out of the default list, and counted there.
      expect(text(html.querySelector('#results'))).toBe('0 results found');
      expect(text(html.querySelector('.left-out'))).toBe('2 left out: 2 profiler requests.');
      expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'nonce-[0-9a-f]{32}'/);
      expect(page.headers['cache-control']).toBe('no-store');
      // A URL search lists them, in the specification's six columns, then Duration and Route.
      const found = parse((await get('/_profiler/search?limit=10&url=%2F_profiler%2F').expect(200)).text);
      expect(found.querySelectorAll('table.results thead th').map(text)).toEqual([
        'Status',
        'IP',
        'Method',
        'URL',
        'Time',
        'Token',
        'Duration',
        'Route',
      ]);
      const rows = found.querySelectorAll('table.results tbody tr').map((tr) => tr.querySelectorAll('td').map(text));
      // (The search page seen before waits for its batch: a profiler page does not write its own kind first.)
      expect(rows.map((r) => [r[0], r[2], r[3], r[7]])).toEqual([
        ['302', 'GET', 'http://shop.test/_profiler/', '_profiler_home'],
      ]);
      const redirect = parse((await get('/_profiler/search?limit=10&url=%2F_profiler').expect(200)).text);
      expect(
        redirect
          .querySelectorAll('table.results tbody tr')
          .map((tr) => [text(tr.querySelectorAll('td')[0]), text(tr.querySelectorAll('td')[3])]),
      ).toContainEqual(['301', 'http://shop.test/_profiler']);
    });

    it('searches by each filter and their combinations, counts every match and shows at most the limit, newest first', async () => {
      for (let i = 0; i < 12; i++) await get(`/fixture/items/${i}`).expect(200);
      await get('/nope-1').expect(404);
      await get('/nope-2').set('Referer', 'http://shop.test/').expect(404);
      await request(app.getHttpServer())
        .post('/fixture/items')
        .set('Host', HOST)
        .send({ name: 'x', quantity: 1 })
        .expect(201);
      await request(app.getHttpServer()).put('/fixture/items').set('Host', HOST).expect(405);
      const search = async (query: string) => {
        const res = await get(`/_profiler/search?${query}`).expect(200);
        const html = parse(res.text);
        const rows = html.querySelectorAll('table.results tbody tr').map((tr) => tr.querySelectorAll('td').map(text));
        return { heading: text(html.querySelector('#results')), rows };
      };
      const latest = await search('limit=10');
      expect(latest.heading).toBe('16 results found');
      expect(latest.rows).toHaveLength(10);
      expect(latest.rows[0].slice(0, 4)).toEqual(['405', latest.rows[0][1], 'PUT', 'http://shop.test/fixture/items']);
      expect(latest.rows[0][4]).toMatch(LIST_TIME);
      expect(latest.rows[0][5]).toMatch(TOKEN);
      expect((await search('')).rows).toHaveLength(10);
      // The two searches before are profiles too, written with their batch (a page does not write the profiler's
      // own pages first), and listed when asked.
      await app.get(ProfilerService).flush();
      expect((await search('limit=50')).rows).toHaveLength(16);
      expect((await search('limit=50&profiler=1')).rows).toHaveLength(18);
      expect((await search('status_code=404')).heading).toBe('2 results found');
      expect((await search('status_code=4')).heading).toBe('3 results found');
      expect((await search('method=post')).rows.map((r) => r[2])).toEqual(['POST']);
      expect((await search('url=%2Fnope-')).rows.map((r) => r[3])).toEqual([
        'http://shop.test/nope-2',
        'http://shop.test/nope-1',
      ]);
      expect((await search('url=items%2F1&method=GET&status_code=200')).heading).toBe('3 results found'); // 1, 10, 11
      expect((await search('ip=10.')).heading).toBe('0 results found');
      const all = await storedProfiles(app, { limit: 1 });
      const token = all.rows[0].token;
      expect((await search(`token=${token}`)).rows.map((r) => r[5])).toEqual([token]);
      const future = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      expect((await search(`start=${future}`)).heading).toBe('0 results found');
      expect((await search(`end=${future}&url=nope-1`)).heading).toBe('1 results found');
    });

    it('answers 400 with the reason for an invalid filter, never 500', async () => {
      for (const query of [
        'limit=abc',
        'limit=7',
        'status_code=abc',
        'token=XYZ',
        'start=yesterday',
        'start=2026-02-31',
        'ip=<script>',
      ]) {
        const res = await get(`/_profiler/search?${query}`).set('Accept', 'application/json').expect(400);
        expect(res.body.status).toBe(400);
      }
    });

    it('opens a profile with a menu of panels and renders every panel with real data', async () => {
      const res = await get('/').expect(200);
      const token = res.headers['x-debug-token'];
      await storedProfile(app, token);
      const page = await get(`/_profiler/${token}`).expect(200);
      const html = parse(page.text);
      expect(text(html.querySelector('.summary .token'))).toBe(token);
      expect(text(html.querySelector('.panel h1'))).toBe('Request');
      const menu = html.querySelectorAll('nav.menu a').map((a) => a.getAttribute('data-panel'));
      // The core's panels, in their order; a feature module's collector may add its own among them.
      const core = [
        'request',
        'response',
        'exception',
        'logs',
        'events',
        'routing',
        'performance',
        'memory',
        'templates',
        'database',
        'security',
        'session',
        'cart',
        'config',
      ];
      expect(menu.filter((panel) => core.includes(panel!))).toEqual(core);
      const panels: Record<string, string[]> = {
        request: ['Query Parameters', 'HomeController::home', 'shop_home'],
        response: ['text/html; charset=utf-8', 'Response Headers', 'x-debug-token'],
        exception: ['No exception was thrown while handling this request.'],
        logs: [
          'Matched route "shop_home".',
          'Notified event "kernel.request" to listener "RouterListener::onKernelRequest".',
        ],
        events: [
          'Called Listeners',
          'RouterListener::onKernelRequest',
          'Not Called Listeners',
          'ErrorListener::onKernelException',
        ],
        routing: ['Route matches!', 'shop_home'],
        performance: ['Total execution time', '<svg class="timeline"', 'HomeController::home', 'shop/home'],
        memory: ['Heap used', 'Peak resident set size'],
        templates: ['shop/home'],
        security: [
          'Not logged in. Firewall: public path: no rule applies.',
          'No access decision was made for this request.',
        ],
        session: ['nothing stored (no session)', 'The session holds no attribute.'],
        cart: ['This request did not look at a cart'],
        config: ['NestJS', '12.5.1', process.version, 'ProfilerModule'],
      };
      for (const [panel, expected] of Object.entries(panels)) {
        const body = (await get(`/_profiler/${token}?panel=${panel}`).expect(200)).text;
        const shown = parse(body).text;
        for (const fragment of expected)
          expect({ panel, fragment, found: shown.includes(fragment) || body.includes(fragment) }).toEqual({
            panel,
            fragment,
            found: true,
          });
      }
    });

    it('shows the Matched route "_profiler". entry with its context and the events of all five events in order', async () => {
      const first = await get('/').expect(200);
      const viewing = await get(`/_profiler/${first.headers['x-debug-token']}`).expect(200);
      const own = viewing.headers['x-debug-token'];
      const profile = await storedProfile(app, own);
      const logs = profile.data.logs as {
        entries: { message: string; channel: string; level: number; context: Record<string, unknown> }[];
      };
      const matched = logs.entries.find((e) => e.message === 'Matched route "{route}".')!;
      expect(matched.channel).toBe('request');
      expect(matched.context).toEqual({
        route: '_profiler',
        route_parameters: {
          _route: '_profiler',
          _controller: 'ProfilerController::panel',
          token: first.headers['x-debug-token'],
        },
        request_uri: `http://shop.test/_profiler/${first.headers['x-debug-token']}`,
        method: 'GET',
      });
      const page = parse((await get(`/_profiler/${own}?panel=logs`).expect(200)).text);
      const messages = page.querySelectorAll('table.logs td.message').map((td) => td.childNodes[0].text.trim());
      expect(messages).toContain('Matched route "_profiler".');
      const events = messages
        .filter((m) => m.startsWith('Notified event'))
        .map((m) => /Notified event "([^"]+)"/.exec(m)![1]);
      const order = [...new Set(events)];
      expect(order).toEqual([
        'kernel.request',
        'kernel.controller',
        'kernel.controller_arguments',
        'kernel.response',
        'kernel.finish_request',
      ]);
      const context = page
        .querySelectorAll('table.logs td.message')
        .find((td) => td.text.includes('Matched route'))!
        .querySelector('pre')!.text;
      expect(JSON.parse(context).route).toBe('_profiler');
    });

    it('defaults to the exception panel for a failed request and renders the chain like the error page', async () => {
      const res = await get('/this/does/not/exist').expect(404);
      const token = res.headers['x-debug-token'];
      await storedProfile(app, token);
      const html = parse((await get(`/_profiler/${token}`).expect(200)).text);
      expect(text(html.querySelector('.panel h1'))).toBe('Exception');
      expect(html.querySelectorAll('.trace .label').map(text)).toEqual(['[2/2]', '[1/2]']);
      expect(html.querySelectorAll('.trace .message').map(text)).toEqual([
        'No route found for "GET http://shop.test/this/does/not/exist"',
        'No routes found for "/this/does/not/exist/".',
      ]);
      expect(text(html.querySelector('#trace-box-2 .excerpt-file'))).toMatch(
        /^src\/lifecycle\/listeners\/router\.listener\.ts:\d+$/,
      );
      const menu = html.querySelector('nav.menu a[data-panel="exception"] .badge');
      expect(text(menu)).toBe('2');
      const logsBadge = html.querySelector('nav.menu a[data-panel="logs"] .badge');
      expect(logsBadge?.classList.contains('error')).toBe(true);
      const routing = (await get(`/_profiler/${token}?panel=routing`).expect(200)).text;
      expect(routing).toContain('Why no route matched');
      expect(routing).toContain('Path does not match');
    });

    it('links the debug error page to the request profile', async () => {
      const res = await get('/nope').expect(404);
      const link = parse(res.text).querySelector('header a.profile');
      expect(link?.getAttribute('href')).toBe(`/_profiler/${res.headers['x-debug-token']}`);
      expect(text(link)).toBe(`Profile ${res.headers['x-debug-token']}`);
    });

    it('links the previous and next profiles', async () => {
      const a = (await get('/fixture/items/1')).headers['x-debug-token'];
      const b = (await get('/fixture/items/2')).headers['x-debug-token'];
      const c = (await get('/fixture/items/3')).headers['x-debug-token'];
      await storedProfile(app, c);
      const html = parse((await get(`/_profiler/${b}`).expect(200)).text);
      expect(html.querySelector('a[rel="prev"]')?.getAttribute('href')).toBe(`/_profiler/${a}`);
      expect(html.querySelector('a[rel="next"]')?.getAttribute('href')).toBe(`/_profiler/${c}`);
    });

    it("writes the waiting profiles before reading the store, except the profiler's own pages after the newest other one", async () => {
      await app.close();
      // Profiles wait a minute for their batch here: whatever is written, a page wrote.
      app = await createTestApp({
        imports: [KernelFixturesModule, ProfilerFixturesModule],
        env: { PROFILER_FLUSH_INTERVAL_MS: '60000' },
      });
      const storage = app.get(ProfilerStorage);
      const writes: string[][] = [];
      const write = storage.write.bind(storage);
      storage.write = async (profiles) => {
        writes.push(profiles.map((p) => p.token));
        return write(profiles);
      };
      const next = (html: string) => parse(html).querySelector('a[rel="next"]')?.getAttribute('href') ?? null;
      const a = (await get('/fixture/items/1').expect(200)).headers['x-debug-token'];
      await settle();
      const first = await get(`/_profiler/${a}`).expect(200);
      expect(writes).toEqual([[a]]);
      expect(next(first.text)).toBeNull();
      await settle();
      const second = await get(`/_profiler/${a}`).expect(200);
      // Only the first view waited: left to its batch, so not linked yet.
      expect(writes).toEqual([[a]]);
      expect(next(second.text)).toBeNull();
      await settle();
      const b = (await get('/fixture/items/2').expect(200)).headers['x-debug-token'];
      await settle();
      const third = await get(`/_profiler/${a}`).expect(200);
      // Everything up to the application's profile, in order, the views before it included.
      expect(writes).toEqual([[a], [first.headers['x-debug-token'], second.headers['x-debug-token'], b]]);
      // Next skips the profiler's own page views: the application's next request.
      expect(next(third.text)).toBe(`/_profiler/${b}`);
      // The profiler's redirects are written like the application's requests: the search page lists the /_profiler
      // 301 that led to it, and the page views before it.
      await settle();
      const redirect = (await get('/_profiler').expect(301)).headers['x-debug-token'];
      await settle();
      const search = parse((await get('/_profiler/search?limit=10&profiler=1').expect(200)).text);
      expect(writes[2]).toEqual([third.headers['x-debug-token'], redirect]);
      expect(text(search.querySelector('#results'))).toBe('6 results found');
    });

    it('filters the logs panel by level and channel, and masks secrets in contexts', async () => {
      const token = (await get('/pfx/logs').expect(200)).headers['x-debug-token'];
      await storedProfile(app, token);
      const html = parse((await get(`/_profiler/${token}?panel=logs&level=warning`).expect(200)).text);
      const rows = html.querySelectorAll('table.logs tbody tr');
      expect(rows.map((r) => text(r.querySelector('.level')))).toEqual(['WARNING', 'ERROR']);
      const byChannel = parse((await get(`/_profiler/${token}?panel=logs&channel=shop`).expect(200)).text);
      expect(byChannel.querySelectorAll('table.logs td.message').map((td) => td.childNodes[0].text.trim())).toEqual([
        'Stock low for TEA-1',
        'Payment p-9 failed',
      ]);
      const page = (await get(`/_profiler/${token}?panel=logs`).expect(200)).text;
      expect(page).not.toContain('hunter2');
      expect(page).not.toContain('4111111111111111');
      expect(page).toContain('******');
      const json = JSON.stringify((await get(`/_profiler/${token}.json`).expect(200)).body);
      expect(json).not.toContain('hunter2');
    });

    it('masks secrets in the log messages and contexts of the debug error page', async () => {
      const res = await get('/pfx/secret-boom')
        .set('X-Test-Password', 'hunter2')
        .set('X-Test-Key', 'k-123')
        .expect(500);
      expect(res.text).toContain('Login failed for ada with ******');
      expect(res.text).not.toContain('hunter2');
      expect(res.text).not.toContain('k-123');
    });

    it('masks credentials and cookies in the request panel and the stored profile', async () => {
      const res = await request(app.getHttpServer())
        .post('/pfx/login')
        .set('Host', HOST)
        .set('Authorization', 'Bearer s3cr3t-token')
        .set('Cookie', 'session=abc123; theme=dark')
        .send({ username: 'ada', password: 'correct horse' })
        .expect(200);
      const token = res.headers['x-debug-token'];
      const stored = JSON.stringify(await storedProfile(app, token));
      for (const secret of ['s3cr3t-token', 'abc123', 'correct horse']) expect(stored).not.toContain(secret);
      const page = (await get(`/_profiler/${token}?panel=request`).expect(200)).text;
      for (const secret of ['s3cr3t-token', 'abc123', 'correct horse']) expect(page).not.toContain(secret);
      expect(page).toContain('ada');
      expect(page).toContain('theme');
    });

    it('answers 404 for an unknown panel, token or malformed token, never 500', async () => {
      const token = (await get('/').expect(200)).headers['x-debug-token'];
      await storedProfile(app, token);
      const panel = await get(`/_profiler/${token}?panel=nope`).expect(404);
      expect(panel.text).toContain(`Panel &quot;nope&quot; is not available for token &quot;${token}&quot;.`);
      const unknown = token === 'abcdef' ? '123456' : 'abcdef';
      const missing = await get(`/_profiler/${unknown}`).expect(404);
      expect(text(parse(missing.text).querySelector('h1'))).toBe('Token not found');
      expect(missing.text).toContain(`Token &quot;${unknown}&quot; not found.`);
      for (const bad of ['ABCDEF', 'abc', '1234567', '..%2F..%2Fetc', '%3Cscript%3E']) {
        const res = await get(`/_profiler/${bad}`).expect(404);
        expect(res.text).not.toContain('<script>');
      }
      await get(`/_profiler/${unknown}.json`).expect(404);
    });

    it('redirects /_profiler/latest to the newest profile', async () => {
      const empty = await get('/_profiler/latest').expect(200);
      expect(empty.text).toContain('There are no profiles');
      const token = (await get('/fixture/items').expect(200)).headers['x-debug-token'];
      await settle();
      const res = await get('/_profiler/latest?panel=logs').expect(302);
      expect(res.headers.location).toBe(`/_profiler/${token}?panel=logs`);
    });

    it('exports a profile as JSON', async () => {
      const token = (await get('/fixture/items/7').expect(200)).headers['x-debug-token'];
      await storedProfile(app, token);
      const res = await get(`/_profiler/${token}.json`).expect(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toMatchObject({
        token,
        method: 'GET',
        url: 'http://shop.test/fixture/items/7',
        statusCode: 200,
        parent: null,
      });
      expect(Object.keys(res.body.collectors)).toEqual(
        expect.arrayContaining([
          'request',
          'response',
          'logs',
          'events',
          'routing',
          'performance',
          'memory',
          'config',
          'templates',
        ]),
      );
      expect(res.body.collectors.routing.route).toBe('fixture_item');
      expect(res.body.collectors.routing.params).toEqual({ id: '7' });
    });
  });

  describe('limits of a profile', () => {
    it('caps what it keeps (log entries, context depth, long strings, body excerpt) and says so', async () => {
      const body = `note=${'y'.repeat(3000)}`;
      const res = await request(app.getHttpServer())
        .post('/pfx/flood')
        .set('Host', HOST)
        .type('form')
        .send(body)
        .expect(200);
      const token = res.headers['x-debug-token'];
      const profile = await storedProfile(app, token);
      const logs = profile.data.logs as {
        entries: Array<{ message: string; context: Record<string, unknown> }>;
        truncated: number;
      };
      expect(logs.entries).toHaveLength(2000);
      expect(logs.truncated).toBeGreaterThan(500);
      const deep = logs.entries.find((e) => e.message === 'Deep context')!;
      expect(JSON.stringify(deep.context)).toContain('[object Object, depth limit]');
      expect(deep.context.long).toBe(`${'x'.repeat(2000)}… (3000 more characters, truncated)`);
      const page = await get(`/_profiler/${token}?panel=logs`).expect(200);
      expect(page.text).toContain(`<strong>${logs.truncated} more not recorded (truncated)</strong>`);
      const requestPanel = await get(`/_profiler/${token}?panel=request`).expect(200);
      expect(requestPanel.text).toContain('(1000 more characters, truncated)');
    });

    it('keeps of a body each parsed value cut at 2,000 characters, 100 keys a level, 6 levels, and of a body it does not parse only type and length', async () => {
      const wide: Record<string, string> = {};
      for (let i = 0; i < 150; i++) wide[`k${i}`] = 'v';
      const json = {
        long: 'y'.repeat(2500),
        other: 'z'.repeat(2500),
        wide,
        deep: { a: { b: { c: { d: { e: { f: 'bottom' } } } } } },
      };
      const parsed = await request(app.getHttpServer()).post('/pfx/flood').set('Host', HOST).send(json).expect(200);
      const body = (
        (await storedProfile(app, parsed.headers['x-debug-token'])).data.request as {
          body: { parsed: Record<string, unknown> };
        }
      ).body;
      expect(body.parsed.long).toBe(`${'y'.repeat(2000)}… (500 more characters, truncated)`);
      expect(body.parsed.other).toBe(`${'z'.repeat(2000)}… (500 more characters, truncated)`);
      expect(Object.keys(body.parsed.wide as object)).toHaveLength(101);
      expect((body.parsed.wide as Record<string, string>)['…']).toBe('50 more keys, truncated');
      expect(JSON.stringify(body.parsed.deep)).toContain('depth limit');
      expect(JSON.stringify(body.parsed.deep)).not.toContain('bottom');

      // Plain text is not parsed (the API refuses it: 415): nothing of it is kept.
      const plain = await request(app.getHttpServer())
        .post('/api/login')
        .set('Host', HOST)
        .set('Content-Type', 'text/plain')
        .send(`password=hunter2&note=${'q'.repeat(100)}`)
        .expect(415);
      const profile = await storedProfile(app, plain.headers['x-debug-token']);
      expect((profile.data.request as { body: unknown }).body).toEqual({
        contentType: 'text/plain',
        length: 122,
        parsed: null,
        excerpt: null,
      });
      expect(JSON.stringify(profile.data)).not.toContain('hunter2');
    });
  });

  describe('retention', () => {
    it('keeps the newest PROFILER_MAX_PROFILES profiles', async () => {
      await app.close();
      app = await createTestApp({ env: { PROFILER_MAX_PROFILES: '3' } });
      const tokens: string[] = [];
      for (let i = 0; i < 6; i++) tokens.push((await get(`/?n=${i}`).expect(200)).headers['x-debug-token']);
      await storedProfiles(app);
      await app.get(ProfilerService).prune();
      const { total, rows } = await storedProfiles(app);
      expect(total).toBe(3);
      expect(rows.map((r) => r.token)).toEqual(tokens.slice(3).reverse());
      await get(`/_profiler/${tokens[0]}`).expect(404);
    });
  });
});
