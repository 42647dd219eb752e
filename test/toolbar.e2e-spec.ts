import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { KernelFixturesModule } from './fixtures/kernel-fixtures.module.js';
import { ProfilerFixturesModule } from './fixtures/profiler-fixtures.module.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';

const HOST = 'shop.test';
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();
const version = (file: string) =>
  createHash('sha256')
    .update(readFileSync(new URL(`../views/profiler/assets/${file}`, import.meta.url)))
    .digest('hex')
    .slice(0, 12);
/** The rows of a block's details: label → text. */
const rows = (block: HTMLElement | null) =>
  Object.fromEntries(
    (block?.querySelectorAll('.sk-info dl > div') ?? []).map((d) => [
      text(d.querySelector('dt')),
      text(d.querySelector('dd')),
    ]),
  );

describe('Debug toolbar (e2e)', () => {
  let app: NestExpressApplication;
  const get = (path: string) => request(app.getHttpServer()).get(path).set('Host', HOST);
  const toolbarOf = async (token: string) =>
    parse((await get('/_profiler/toolbar').set('X-Debug-Toolbar-Of', token).expect(200)).text);

  beforeAll(async () => {
    app = await createTestApp({ imports: [KernelFixturesModule, ProfilerFixturesModule] });
  });

  afterAll(async () => {
    await app.close();
  });

  describe('the loader injected into a page', () => {
    it('is a placeholder, the stylesheet and the script, before the last </body>, with the profile link for pages without script', async () => {
      const res = await get('/pfx/page').expect(200);
      const token = res.headers['x-debug-token'];
      expect(res.text).toBe(
        '<!DOCTYPE html><html><head><title>Fixture</title></head><body><h1>Fixture page</h1>' +
          `<!-- Shopkernel debug toolbar: profile ${token} -->\n` +
          `<div id="sk-toolbar-${token}" class="sk-toolbar sk-loading" data-token="${token}"><noscript><a class="sk-noscript" href="/_profiler/${token}">Profile ${token}</a></noscript></div>\n` +
          `<link rel="stylesheet" href="/_profiler/toolbar.css?v=${version('toolbar.css')}">\n` +
          `<script src="/_profiler/toolbar.js?v=${version('toolbar.js')}" data-token="${token}"></script>\n` +
          '</body></html>',
      );
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    });

    it('is spliced into long pages Express has already encoded, whatever the characters before it and the case of the tag', async () => {
      const res = await get('/pfx/long-page').expect(200);
      expect(
        res.text.startsWith(
          `<!DOCTYPE html><html><body><p>${'Prix : 12,50 € → réduit. '.repeat(60)}</p><!-- Shopkernel debug toolbar: profile ${res.headers['x-debug-token']} -->`,
        ),
      ).toBe(true);
      expect(res.text.endsWith('</script>\n</body></html>')).toBe(true);
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));

      const upper = await get('/pfx/long-page-upper').expect(200);
      const at = upper.text.indexOf('<!-- Shopkernel debug toolbar');
      expect(upper.text.slice(0, at)).toBe(`<!DOCTYPE html><HTML><BODY><p>${'Größe → XL. '.repeat(100)}</p>`);
      expect(upper.text.endsWith('</script>\n</BODY><!-- </body in a comment --></HTML>')).toBe(true);
      expect(Number(upper.headers['content-length'])).toBe(Buffer.byteLength(upper.text));
    });

    it('is not injected for XHR, redirects, JSON, attachments, pages without </body>, pictures or the profiler', async () => {
      const hasToolbar = (html: string | undefined) => (html ?? '').includes('class="sk-toolbar');
      expect(hasToolbar((await get('/pfx/page').set('X-Requested-With', 'XMLHttpRequest').expect(200)).text)).toBe(
        false,
      );
      expect(hasToolbar((await get('/pfx/attachment').expect(200)).text)).toBe(false);
      expect(hasToolbar((await get('/pfx/no-body-tag').expect(200)).text)).toBe(false);
      expect(String((await get('/pfx/picture.svg').expect(200)).body)).not.toContain('sk-toolbar');
      expect(hasToolbar((await get('/fixture/items').expect(200)).text)).toBe(false);
      expect(hasToolbar((await get('/_profiler').expect(301)).text)).toBe(false);
      expect(hasToolbar((await get('/_profiler/search').expect(200)).text)).toBe(false);
      expect(hasToolbar((await get('/_profiler/nope/deeper').expect(404)).text)).toBe(false);
      // Not the profiler's: the application's 404 page, with its toolbar.
      expect(hasToolbar((await get('/_profilerx').expect(404)).text)).toBe(true);
    });

    it("widens a page's Content-Security-Policy by one nonce for the toolbar's script and stylesheet", async () => {
      const res = await get('/pfx/csp-page').expect(200);
      const csp = res.headers['content-security-policy'];
      const nonce = /'nonce-([0-9a-f]{32})'/.exec(csp)![1];
      expect(csp).toBe(
        `default-src 'self'; script-src 'self' 'nonce-${nonce}'; img-src *; style-src 'self' 'nonce-${nonce}'`,
      );
      expect(res.text).toContain(
        `<link rel="stylesheet" href="/_profiler/toolbar.css?v=${version('toolbar.css')}" nonce="${nonce}">`,
      );
      expect(res.text).toContain(`data-token="${res.headers['x-debug-token']}" nonce="${nonce}"></script>`);

      const strict = await get('/pfx/strict-csp-page').expect(200);
      const strictNonce = /'nonce-([0-9a-f]{32})'/.exec(strict.headers['content-security-policy'])![1];
      expect(strict.headers['content-security-policy']).toBe(
        `default-src 'none'; script-src 'nonce-pagenonce' 'nonce-${strictNonce}'; style-src 'nonce-pagenonce' 'nonce-${strictNonce}'; connect-src 'self'`,
      );
    });
  });

  describe('the toolbar and its assets', () => {
    it('serves the script and the stylesheet, cached for good under their versioned URL', async () => {
      const script = await get(`/_profiler/toolbar.js?v=${version('toolbar.js')}`).expect(200);
      expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(script.headers['cache-control']).toBe('private, max-age=31536000, immutable');
      expect(script.headers['x-content-type-options']).toBe('nosniff');
      expect(script.text).toContain("var PROFILER = '/_profiler/';");
      const css = await get('/_profiler/toolbar.css').expect(200);
      expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
      // Another or no version: the browser asks again each time.
      expect(css.headers['cache-control']).toBe('no-cache');
      expect(css.text).toContain('.sk-toolbar .sk-info');
    });

    it('answers 404 with an empty body for a token it does not have, one that is not a token, and none', async () => {
      const none = await get('/_profiler/toolbar').expect(404);
      expect(none.text).toBe('');
      for (const token of ['abcdef', 'nope', '']) {
        const res = await get('/_profiler/toolbar').set('X-Debug-Toolbar-Of', token).expect(404);
        expect(res.text).toBe('');
        expect(res.headers['cache-control']).toBe('no-store');
      }
    });

    it("renders a page's blocks in order, each with its details and a link to its panel", async () => {
      const page = await get('/pfx/page').expect(200);
      const token = page.headers['x-debug-token'];
      // Asked at once: the toolbar waits for the page's profile instead of answering 404.
      const res = await get('/_profiler/toolbar').set('X-Debug-Toolbar-Of', token).expect(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.vary).toBe('X-Debug-Toolbar-Of');
      expect(res.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
      // Recorded as the profiler's, under one URL for every page's toolbar.
      const own = await storedProfile(app, res.headers['x-debug-token']);
      expect([own.url, own.kind, own.route]).toEqual([
        'http://shop.test/_profiler/toolbar',
        'profiler',
        '_profiler_toolbar',
      ]);
      const html = parse(res.text);
      const blocks = html
        .querySelectorAll('.sk-bar > .sk-block')
        .map((b) => b.classList.value.find((c) => c.startsWith('sk-block-')));
      // The core's blocks, in their order; a feature module's collector may add its own among them.
      const core = [
        'sk-block-request',
        'sk-block-performance',
        'sk-block-memory',
        'sk-block-logs',
        'sk-block-database',
        'sk-block-security',
        'sk-block-session',
        'sk-block-ajax',
      ];
      expect(blocks.filter((block) => core.includes(block!))).toEqual(core);
      for (const name of ['request', 'performance', 'memory', 'logs', 'database', 'security', 'session']) {
        const block = html.querySelector(`.sk-block-${name}`)!;
        expect(block.querySelector('a.sk-value')!.getAttribute('href')).toBe(`/_profiler/${token}?panel=${name}`);
        expect(block.querySelector('.sk-info a.sk-more')!.getAttribute('href')).toBe(
          `/_profiler/${token}?panel=${name}`,
        );
      }
      const requestBlock = html.querySelector('.sk-block-request')!;
      expect(text(requestBlock.querySelector('a.sk-value'))).toBe('200 @ profiler_fixtures_page');
      expect(rows(requestBlock)).toEqual({
        'HTTP status': '200 OK',
        Method: 'GET',
        Route: 'profiler_fixtures_page',
        Controller: 'ProfilerFixturesController::page',
      });
      expect(text(html.querySelector('.sk-block-performance a.sk-value'))).toMatch(/^\d+ ms$/);
      expect(Object.keys(rows(html.querySelector('.sk-block-performance')))).toEqual([
        'Total time',
        'Until the response',
        'Controller',
        'Slow from',
      ]);
      expect(rows(html.querySelector('.sk-block-performance'))['Slow from']).toBe('500 ms (PROFILER_SLOW_MS)');
      expect(text(html.querySelector('.sk-block-memory a.sk-value'))).toMatch(/^\d+\.\d MiB heap$/);
      expect(text(html.querySelector('.sk-block-memory .sk-note'))).toBe(
        "The process's figures when this request ended: Node shares one heap between all requests, so this is not the request's own allocation.",
      );
      expect(rows(html.querySelector('.sk-block-logs'))).toEqual({
        Errors: '0',
        Warnings: '0',
        Deprecations: '0',
        Entries: expect.stringMatching(/^\d+$/),
      });
      expect(text(html.querySelector('.sk-block-security a.sk-value'))).toBe('user anon.');
      expect(rows(html.querySelector('.sk-block-security'))).toEqual({
        User: 'anonymous',
        Roles: '(none)',
        'Authenticated by': '(not authenticated)',
        Firewall: 'public path: no rule applies',
      });
      expect(html.querySelector('.sk-block-ajax')!.getAttribute('hidden')).toBe('');
      expect(html.querySelector('.sk-end a.sk-profile')!.getAttribute('href')).toBe(`/_profiler/${token}`);
      expect(html.querySelector('button.sk-hide')!.getAttribute('aria-label')).toBe('Hide the debug toolbar');
    });

    it('colours a failing request: the status, the logs with their counts linked to the filtered Logs panel', async () => {
      const res = await get('/this/does/not/exist').expect(404);
      const html = await toolbarOf(res.headers['x-debug-token']);
      expect(html.querySelector('.sk-block-request .sk-status')!.classList.contains('sk-error')).toBe(true);
      const logs = html.querySelector('.sk-block-logs')!;
      expect(logs.classList.contains('sk-error')).toBe(true);
      expect(text(logs.querySelector('a.sk-value'))).toBe('logs 1');
      expect(logs.querySelector('.sk-value .sk-count.sk-error')!.text).toBe('1');
      expect(logs.querySelector('.sk-info dd.sk-error a')!.getAttribute('href')).toBe(
        `/_profiler/${res.headers['x-debug-token']}?panel=logs&level=error`,
      );
    });
  });

  describe('redirects followed', () => {
    it('labels the request a redirect led to, both ways, and removes the cookie once followed', async () => {
      const agent = request.agent(app.getHttpServer());
      const post = await agent.post('/pfx/go').set('Host', HOST).expect(303);
      const from = post.headers['x-debug-token'];
      const cookie = (post.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('sk_redirect='))!;
      expect(cookie).toMatch(/^sk_redirect=[A-Za-z0-9_-]+; Max-Age=60; Path=\/; HttpOnly; SameSite=Lax$/);
      expect(
        JSON.parse(Buffer.from(cookie.slice('sk_redirect='.length, cookie.indexOf(';')), 'base64url').toString()),
      ).toEqual({
        token: from,
        method: 'POST',
        path: '/pfx/go',
        status: 303,
        route: 'profiler_fixtures_go',
        target: '/pfx/page?from=go',
      });

      // A request in between (a picture of the page) leaves the cookie alone.
      const between = await agent.get('/pfx/picture.svg').set('Host', HOST).expect(200);
      expect(between.headers['set-cookie']).toBeUndefined();

      const page = await agent.get('/pfx/page?from=go').set('Host', HOST).expect(200);
      const to = page.headers['x-debug-token'];
      expect(page.headers['set-cookie']).toEqual([
        'sk_redirect=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax',
      ]);
      const toolbar = await toolbarOf(to);
      expect(text(toolbar.querySelector('.sk-block-request .sk-redirect'))).toBe('↪ 303');
      expect(rows(toolbar.querySelector('.sk-block-request'))['Redirected from']).toBe(`POST /pfx/go (${from}, 303)`);
      expect(toolbar.querySelector('.sk-block-request dd a')!.getAttribute('href')).toBe(`/_profiler/${from}`);
      expect((await storedProfile(app, to)).redirectedFrom).toBe(from);

      const target = parse((await get(`/_profiler/${to}`).expect(200)).text);
      expect(text(target.querySelector('.redirect-from'))).toBe(`Redirected from POST /pfx/go (${from}, 303)`);
      expect(target.querySelector('.redirect-from a')!.getAttribute('href')).toBe(`/_profiler/${from}`);
      const origin = parse((await get(`/_profiler/${from}`).expect(200)).text);
      expect(text(origin.querySelector('.redirect-to'))).toBe(`Redirected to GET /pfx/page (${to}, 200)`);
      expect(origin.querySelector('.redirect-to a')!.getAttribute('href')).toBe(`/_profiler/${to}`);

      // Once followed, the next page is not labelled again.
      const again = await agent.get('/pfx/page?from=go').set('Host', HOST).expect(200);
      expect((await storedProfile(app, again.headers['x-debug-token'])).redirectedFrom).toBeNull();
    });

    it('leaves no cookie for a redirect to another site, nor for a client that may not see debug details', async () => {
      const away = await get('/pfx/away').expect(302);
      expect(away.headers['set-cookie']).toBeUndefined();
      const stranger = await request(app.getHttpServer()).post('/pfx/go').set('Host', 'evil.example').expect(303);
      expect(stranger.headers['set-cookie']).toBeUndefined();
    });

    it('believes no forged cookie: a value that is not one it wrote labels nothing', async () => {
      const forged = Buffer.from(
        JSON.stringify({
          token: '<b>x</b>',
          method: 'POST',
          path: '/x',
          status: 303,
          route: null,
          target: '/pfx/page',
        }),
      ).toString('base64url');
      for (const value of [forged, 'not-base64!', Buffer.from('[]').toString('base64url')]) {
        const res = await get('/pfx/page').set('Cookie', `sk_redirect=${value}`).expect(200);
        expect((await storedProfile(app, res.headers['x-debug-token'])).redirectedFrom).toBeNull();
      }
    });
  });
});
