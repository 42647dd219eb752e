import type { NestExpressApplication } from '@nestjs/platform-express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { PROJECT_DIR } from '../src/config/app-config.js';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../src/database/shop-db.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';

const HOST = 'shop.test';
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();

/** The line of a project file that holds `needle` (1-based). */
function lineOf(file: string, needle: string): number {
  const at = readFileSync(join(PROJECT_DIR, file), 'utf8')
    .split('\n')
    .findIndex((line) => line.includes(needle));
  if (at === -1) throw new Error(`"${needle}" is not in ${file}`);
  return at + 1;
}

const ROUTER = 'src/lifecycle/listeners/router.listener.ts';
const THROW_LINE = lineOf(ROUTER, 'throw new NotFoundHttpException(noRouteMessage(request), error)');

/** Every file:line of the error page and the panels leads to the editor, or to the profiler's source view (issue 31, point 2). */
describe('Editor links (e2e)', () => {
  describe('with PROFILER_EDITOR=vscode and a path map', () => {
    let app: NestExpressApplication;
    const editor = (file: string, line: number, column = 1) => `vscode://file/home/me/shop/${file}:${line}:${column}`;

    beforeAll(async () => {
      app = await createTestApp({
        env: { PROFILER_EDITOR: 'vscode', PROFILER_EDITOR_PATH_MAP: `${PROJECT_DIR}:/home/me/shop` },
      });
      await seedCatalogue(app.get(ShopDb));
    });

    afterAll(async () => {
      await app.close();
    });

    it("links the error page's excerpt, frames and logged exception to the editor, mapped; Node's own frames stay text", async () => {
      const res = await request(app.getHttpServer())
        .get('/no/such/page')
        .set('Host', HOST)
        .set('Accept', 'text/html')
        .expect(404);
      const page = parse(res.text);
      const outer = page.querySelector('#trace-box-2')!;
      expect(outer.querySelector('.excerpt-file a')!.getAttribute('href')).toBe(editor(ROUTER, THROW_LINE));
      const links = outer.querySelectorAll('.frame a.loc');
      expect(links[0].getAttribute('href')).toMatch(
        new RegExp(`^vscode://file/home/me/shop/${ROUTER.replace(/\./g, '\\.')}:${THROW_LINE}:\\d+$`),
      );
      expect(links.every((a) => a.getAttribute('href')!.startsWith('vscode://file/home/me/shop/'))).toBe(true);
      expect(outer.querySelectorAll('.frame span.loc').map(text)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^node:/)]),
      );
      const logged = page.querySelector('#logs tr.level-row-error a.file-link')!;
      expect(text(logged)).toBe(ROUTER);
      expect(logged.getAttribute('href')).toBe(editor(ROUTER, THROW_LINE));
      // The profile's Exception panel shows the same frames, linked the same way.
      const token = res.headers['x-debug-token'];
      await storedProfile(app, token);
      const panel = parse(
        (await request(app.getHttpServer()).get(`/_profiler/${token}?panel=exception`).set('Host', HOST).expect(200))
          .text,
      );
      expect(panel.querySelector('.excerpt-file a')!.getAttribute('href')).toBe(editor(ROUTER, THROW_LINE));
      const logs = parse(
        (await request(app.getHttpServer()).get(`/_profiler/${token}?panel=logs`).set('Host', HOST).expect(200)).text,
      );
      const uncaught = logs.querySelectorAll('tr.level-row-error a.file-link');
      expect(uncaught.map((a) => [text(a), a.getAttribute('href')])).toEqual([[ROUTER, editor(ROUTER, THROW_LINE)]]);
    });

    it('links the controller, the listeners, the templates and the queries of a product list to their source', async () => {
      const res = await request(app.getHttpServer()).get('/products').set('Host', HOST).expect(200);
      const token = res.headers['x-debug-token'];
      await storedProfile(app, token);
      const panel = async (name: string) =>
        parse(
          (await request(app.getHttpServer()).get(`/_profiler/${token}?panel=${name}`).set('Host', HOST).expect(200))
            .text,
        );

      const controller = (await panel('request')).querySelector('.metric .value a.file-link')!;
      expect(text(controller)).toBe('CatalogueController::products');
      expect(controller.getAttribute('href')).toBe(
        editor(
          'src/shop/catalogue/catalogue.controller.ts',
          lineOf('src/shop/catalogue/catalogue.controller.ts', 'async products('),
        ),
      );

      const listener = (await panel('events'))
        .querySelectorAll('table.called a.file-link')
        .find((a) => text(a) === 'RouterListener::onKernelRequest')!;
      expect(listener.getAttribute('href')).toBe(editor(ROUTER, lineOf(ROUTER, 'onKernelRequest(')));

      const templates = (await panel('templates')).querySelectorAll('table.templates a.file-link');
      expect(templates.map((a) => [text(a), a.getAttribute('href')])).toEqual(
        expect.arrayContaining([['shop/catalogue/list', editor('views/shop/catalogue/list.hbs', 1)]]),
      );

      const callers = (await panel('database')).querySelectorAll('td.caller a.file-link');
      expect(callers.length).toBeGreaterThan(0);
      for (const a of callers) {
        const [, file, line] = /^(.+):(\d+)$/.exec(text(a))!;
        expect(a.getAttribute('href')).toBe(editor(file, Number(line)));
      }
    });
  });

  describe('without an editor: the source view', () => {
    let app: NestExpressApplication;
    const get = (path: string) => request(app.getHttpServer()).get(path).set('Host', HOST);

    beforeAll(async () => {
      app = await createTestApp();
    });

    afterAll(async () => {
      await app.close();
    });

    it('links the error page to /_profiler/open, which shows the file highlighted with its lines numbered and anchored', async () => {
      const page = parse((await get('/no/such/page').set('Accept', 'text/html').expect(404)).text);
      const href = page.querySelector('#trace-box-2 .excerpt-file a')!.getAttribute('href')!;
      expect(href).toBe(`/_profiler/open?file=${ROUTER}#L${THROW_LINE}`);
      const res = await get(href.replace(/#.*$/, '')).expect(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'nonce-/);
      const view = parse(res.text);
      expect(text(view.querySelector('title'))).toBe(`${ROUTER} · Shopkernel Profiler`);
      expect(text(view.querySelector('h1'))).toBe(ROUTER);
      const line = view.querySelector(`li#L${THROW_LINE}`)!;
      expect(text(line.querySelector('.num'))).toBe(String(THROW_LINE));
      expect(text(line)).toContain('throw new NotFoundHttpException(noRouteMessage(request), error);');
      expect(line.querySelectorAll('i.k').map(text)).toEqual(expect.arrayContaining(['throw', 'new']));
      expect(view.querySelectorAll('ol.excerpt li')).toHaveLength(
        readFileSync(join(PROJECT_DIR, ROUTER), 'utf8').split('\n').length,
      );
      // A line asked for is marked as the current one, and named in the title.
      const marked = parse((await get(`/_profiler/open?file=${ROUTER}&line=${THROW_LINE}`).expect(200)).text);
      expect(marked.querySelectorAll('li.current').map((li) => li.getAttribute('id'))).toEqual([`L${THROW_LINE}`]);
      expect(text(marked.querySelector('title'))).toBe(`${ROUTER}:${THROW_LINE} · Shopkernel Profiler`);
    });

    it('opens templates too, and escapes what it shows', async () => {
      const view = parse((await get('/_profiler/open?file=views/layouts/main.hbs').expect(200)).text);
      expect(text(view.querySelector('li#L1'))).toBe('1<!DOCTYPE html>');
      expect(view.querySelectorAll('li script')).toHaveLength(0);
    });

    it.each([
      ['../../etc/passwd'],
      ['/etc/passwd'],
      ['src/../../etc/hostname'],
      ['.env'],
      ['.git/config'],
      ['src/.hidden/x.ts'],
      ['var/shop.sqlite'],
      ['src/no/such/file.ts'],
      ['src'],
      ['<script>alert(1)</script>.ts'],
    ])('answers 404 for %s: outside the project, hidden, data, missing or not a file', async (file) => {
      const res = await get(`/_profiler/open?file=${encodeURIComponent(file)}`)
        .set('Accept', 'application/json')
        .expect(404);
      expect(res.body.detail).toBe(`The file "${file}" cannot be opened.`);
    });

    it('answers 404 without a file, and escapes the name on the error page', async () => {
      expect((await get('/_profiler/open').set('Accept', 'application/json').expect(404)).body.detail).toBe(
        'The file "" cannot be opened.',
      );
      const html = (
        await get(`/_profiler/open?file=${encodeURIComponent('<b>x</b>.ts')}`)
          .set('Accept', 'text/html')
          .expect(404)
      ).text;
      expect(html).not.toContain('<b>x</b>');
      expect(html).toContain('The file &quot;&lt;b&gt;x&lt;/b&gt;.ts&quot; cannot be opened.');
    });
  });

  it('has neither the source view nor links to it when the profiler is off', async () => {
    const app = await createTestApp({ env: { PROFILER_ENABLED: '0' } });
    try {
      const res = await request(app.getHttpServer())
        .get(`/_profiler/open?file=${ROUTER}`)
        .set('Host', HOST)
        .set('Accept', 'application/json')
        .expect(404);
      expect(res.body.detail).toBe(`No route found for "GET http://${HOST}/_profiler/open?file=${ROUTER}"`);
      const page = parse(
        (
          await request(app.getHttpServer())
            .get('/no/such/page')
            .set('Host', HOST)
            .set('Accept', 'text/html')
            .expect(404)
        ).text,
      );
      expect(page.querySelectorAll('#trace-box-2 a.loc, #trace-box-2 .excerpt-file a')).toHaveLength(0);
      expect(text(page.querySelector('#trace-box-2 .excerpt-file'))).toBe(`${ROUTER}:${THROW_LINE}`);
    } finally {
      await app.close();
    }
  });
});
