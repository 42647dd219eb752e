import type { NestExpressApplication } from '@nestjs/platform-express';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, valid, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import type { LogEntry } from '../src/lifecycle/logging/log-entry.js';
import { HUGE_LOG_ENTRIES } from './fixtures/error-fixtures.controller.js';
import { ErrorFixturesModule } from './fixtures/error-fixtures.module.js';
import { KernelFixturesModule } from './fixtures/kernel-fixtures.module.js';
import { KernelProbe } from './fixtures/kernel-probe.listener.js';
import { createTestApp } from './support/create-test-app.js';
import { requestLog } from '../src/lifecycle/traceable-event-dispatcher.js';

const HOST = 'shop.test';
const VIEWS = fileURLToPath(new URL('../views', import.meta.url));
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();

/** The page DebugErrorRenderer falls back to when the debug page cannot be rendered. */
const minimalPage = (statusLine: string): string =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${statusLine}</title></head><body><h1>${statusLine}</h1>` +
  '<p>The error page could not be rendered; the error is in the logs.</p></body></html>\n';

const describeEntry = (e: LogEntry): string => `${e.levelName} ${e.channel} ${e.message}`;

describe('A debug template that throws while rendering (e2e)', () => {
  let app: NestExpressApplication;
  let probe: KernelProbe;
  let projectDir: string;

  beforeAll(async () => {
    // The app reads its views from config.projectDir: a copy of the project's views whose debug page calls a
    // helper that does not exist. Handlebars compiles it (at start) and throws `Missing helper` when rendering.
    projectDir = await mkdtemp(join(tmpdir(), 'shopkernel-broken-views-'));
    await cp(VIEWS, join(projectDir, 'views'), { recursive: true });
    const template = join(projectDir, 'views', 'error', 'debug.hbs');
    const source = await readFile(template, 'utf8');
    expect(source).toContain('<section id="logs">');
    await writeFile(template, source.replace('<section id="logs">', '<section id="logs">{{formatLogs logs}}'));
    // Without the profiler, whose toolbar would be injected before </body>: the page is exactly the renderer's.
    app = await createTestApp({
      imports: [KernelFixturesModule, ErrorFixturesModule],
      env: { PROFILER_ENABLED: '0' },
      config: { projectDir },
    });
    probe = app.get(KernelProbe);
  });

  afterAll(async () => {
    await app.close();
    await rm(projectDir, { recursive: true, force: true });
  });

  it.each([
    {
      what: 'an unmatched path',
      method: 'get',
      path: '/nope',
      status: 404,
      statusLine: '404 Not Found',
      original: 'NotFoundHttpException: "No route found for "GET http://shop.test/nope""',
    },
    {
      what: 'a controller error',
      method: 'get',
      path: '/errors/controller',
      status: 500,
      statusLine: '500 Internal Server Error',
      original: 'Error: "The stock ledger is out of balance"',
    },
    {
      what: 'a wrong method',
      method: 'put',
      path: '/fixture/items',
      status: 405,
      statusLine: '405 Method Not Allowed',
      original:
        'MethodNotAllowedHttpException: "No route found for "PUT http://shop.test/fixture/items": Method Not Allowed (Allow: GET, POST)"',
    },
  ] as const)(
    'answers $what with its status and the minimal page, and logs both errors',
    async ({ method, path, status, statusLine, original }) => {
      const res = await request(app.getHttpServer())[method](path).set('Host', HOST);
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-robots-tag']).toBe('noindex');
      expect(res.headers['content-security-policy']).toBeUndefined();
      if (status === 405) expect(res.headers.allow).toBe('GET, POST');
      expect(res.text).toBe(minimalPage(statusLine));
      expect(valid(res.text)).toBe(true);
      const logs = (await probe.lastTerminated()).logs.map(describeEntry);
      const uncaught = logs.findIndex((l) =>
        l.startsWith(`${status >= 500 ? 'CRITICAL' : 'ERROR'} request Uncaught Exception ${original} at `),
      );
      const failed = logs.indexOf(
        'CRITICAL request The error page could not be rendered: Error: Missing helper: "formatLogs"',
      );
      expect(uncaught).toBeGreaterThanOrEqual(0);
      expect(failed).toBeGreaterThan(uncaught);
    },
  );

  it('still answers JSON clients with the debug problem+json (no template involved)', async () => {
    const res = await request(app.getHttpServer())
      .get('/errors/controller')
      .set('Host', HOST)
      .set('Accept', 'application/json')
      .expect(500);
    expect(res.body).toMatchObject({
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      detail: 'The stock ledger is out of balance',
    });
    const logs = (await probe.lastTerminated()).logs.map((e) => e.message);
    expect(logs.filter((m) => m.startsWith('The error page could not be rendered'))).toEqual([]);
  });
});

describe('Log contexts the error page must survive (e2e)', () => {
  let app: NestExpressApplication;
  let probe: KernelProbe;

  beforeAll(async () => {
    app = await createTestApp({ imports: [KernelFixturesModule, ErrorFixturesModule] });
    probe = app.get(KernelProbe);
  });

  afterAll(async () => {
    await app.close();
  });

  it('renders a cyclic context object, cycles marked', async () => {
    const res = await request(app.getHttpServer()).get('/errors/cyclic-log').set('Host', HOST).expect(500);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(valid(res.text)).toBe(true);
    const page = parse(res.text);
    expect(text(page.querySelector('#exceptions .trace .message'))).toBe('Failed after logging a cyclic context');
    const rows = page.querySelectorAll('#logs tbody tr').filter((r) => text(r.querySelectorAll('td')[1]) === 'fixture');
    expect(rows).toHaveLength(1);
    const cells = rows[0].querySelectorAll('td');
    expect(text(cells[0].querySelector('.level'))).toBe('WARNING');
    // The placeholder of a cyclic value prints it with its cycles marked, as the context does.
    expect(
      text(cells[2]).startsWith(
        'Basket basket-1 references itself: {"id":"basket-1","lines":[{"sku":"TEA-1","basket":"[circular]"}],"self":"[circular]"}',
      ),
    ).toBe(true);
    expect(JSON.parse(cells[2].querySelector('.context')!.text)).toEqual({
      id: 'basket-1',
      basket: { id: 'basket-1', lines: [{ sku: 'TEA-1', basket: '[circular]' }], self: '[circular]' },
    });
    expect(text(page.querySelector('#logs .counts'))).toMatch(/^Errors 1 · Warnings 1 · Deprecations 0 · Debug \d+$/);
    const logs = (await probe.lastTerminated()).logs.map((e) => e.message);
    expect(logs.filter((m) => m.startsWith('The error page could not be rendered'))).toEqual([]);
  });

  it(`renders a huge log (${HUGE_LOG_ENTRIES} entries of 1 KB): counts over all of it, its beginning and its end shown`, async () => {
    const res = await request(app.getHttpServer()).get('/errors/huge-log').set('Host', HOST).expect(500);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(valid(res.text)).toBe(true);
    const context = await probe.lastTerminated();
    // The page shows the log as it was when rendered: up to the uncaught exception's entry (the entries of
    // kernel.exception's own notifications, kernel.response and after come later).
    const log = requestLog(context);
    const uncaught = log.findIndex((e) => e.message.startsWith('Uncaught Exception Error: "Failed after a huge log"'));
    const shown = log.slice(0, uncaught + 1);
    const total = shown.length;
    expect(total).toBeGreaterThan(HUGE_LOG_ENTRIES);
    const debug = shown.filter((e) => e.levelName === 'DEBUG').length;
    const page = parse(res.text);
    expect(text(page.querySelector('#exceptions .trace .message'))).toBe('Failed after a huge log');
    expect(text(page.querySelector('#logs h2'))).toBe(`Logs ${total}`);
    expect(text(page.querySelector('#logs .counts'))).toBe(`Errors 1 · Warnings 0 · Deprecations 0 · Debug ${debug}`);
    // One row per entry shown and the omitted row; the debug entries' group rows (one per kernel event) apart.
    const all = page.querySelectorAll('#logs tbody tr');
    const rows = all.filter((r) => !r.classList.contains('log-group'));
    expect(rows.length).toBe(1001);
    expect(all.length - rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.classList.contains('omitted')).map((r) => text(r))).toEqual([
      `… ${total - 1000} entries omitted …`,
    ]);
    expect(rows[500].classList.contains('omitted')).toBe(true);
    // The first entry of the request and its last, the uncaught exception, are both on the page.
    expect(text(rows[0].querySelectorAll('td')[2]).startsWith(shown[0].message)).toBe(true);
    const last = rows[rows.length - 1].querySelectorAll('td');
    expect(text(last[0].querySelector('.level'))).toBe('CRITICAL');
    expect(text(last[2]).startsWith('Uncaught Exception Error: "Failed after a huge log" at ')).toBe(true);
    expect(
      context.logs.map((e) => e.message).filter((m) => m.startsWith('The error page could not be rendered')),
    ).toEqual([]);
  });
});

describe('Debug handlers across applications (e2e)', () => {
  it('removes the process warning listener of the first request when the app closes', async () => {
    const before = process.listenerCount('warning');
    const app = await createTestApp({ imports: [KernelFixturesModule] });
    try {
      await request(app.getHttpServer()).get('/fixture/items').set('Host', HOST).expect(200);
      expect(process.listenerCount('warning')).toBe(before + 1);
    } finally {
      await app.close();
    }
    expect(process.listenerCount('warning')).toBe(before);
  });
});
