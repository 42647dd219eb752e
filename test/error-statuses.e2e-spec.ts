import type { NestExpressApplication } from '@nestjs/platform-express';
import escapeHtml from 'escape-html';
import { readFile } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { AppConfig } from '../src/config/app-config.js';
import { FIXTURE_CSP } from './fixtures/content-security-policy.listener.js';
import { FIXTURE_VIEWS } from './fixtures/error-fixtures.controller.js';
import { ErrorFixturesModule } from './fixtures/error-fixtures.module.js';
import { createTestApp } from './support/create-test-app.js';
import type { ExceptionJson } from './support/profile-data.js';

const HOST = 'shop.test';
const PROJECT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();

/** The 1-based number of the one line of a project file that contains `needle`. */
async function lineOf(file: string, needle: string): Promise<number> {
  const lines = (await readFile(`${PROJECT}/${file}`, 'utf8')).split('\n');
  const found = lines.flatMap((line, i) => (line.includes(needle) ? [i + 1] : []));
  expect(found).toHaveLength(1);
  return found[0];
}

/** The short page BasicErrorRenderer answers outside debug mode: the status, nothing else. */
function genericPage(status: number): string {
  const heading = `${status} ${STATUS_CODES[status]}`;
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex,nofollow">' +
    `<title>${heading}</title></head><body><h1>${heading}</h1><ul><li>The server returned a "${heading}".</li></ul></body></html>\n`
  );
}

interface ErrorCase {
  name: string;
  path: string;
  headers?: Record<string, string>;
  status: number;
  class: string;
  /** The outer exception's message (the views directory is known once the app exists). */
  message: (config: AppConfig) => string;
  /** Where the code excerpt must point: the throwing line of a fixture (absent when thrown in a dependency). */
  thrownAt?: { file: string; code: string; function: string };
  /** The first (vendor) frame, when the error comes out of a dependency. */
  vendorFrame?: RegExp;
}

const CASES: ErrorCase[] = [
  {
    name: '403 from a guard that returns false (Nest ForbiddenException)',
    path: '/errors/guarded',
    status: 403,
    class: 'ForbiddenException',
    message: () => 'Forbidden resource',
    vendorFrame: /node_modules\/@nestjs\/core\/router\/router-execution-context\.js:\d+:\d+$/,
  },
  {
    name: '403 thrown by a controller',
    path: '/errors/forbidden',
    status: 403,
    class: 'ForbiddenException',
    message: () => 'Only staff may open the stock ledger',
    thrownAt: {
      file: 'test/fixtures/error-fixtures.controller.ts',
      code: "throw new ForbiddenException('Only staff may open the stock ledger');",
      function: 'ErrorFixturesController.forbidden',
    },
  },
  {
    name: '500 thrown by a controller',
    path: '/errors/controller',
    status: 500,
    class: 'Error',
    message: () => 'The stock ledger is out of balance',
    thrownAt: {
      file: 'test/fixtures/error-fixtures.controller.ts',
      code: "throw new Error('The stock ledger is out of balance');",
      function: 'ErrorFixturesController.controller',
    },
  },
  {
    name: '500 thrown by a kernel.request listener',
    path: '/errors/ok',
    headers: { 'X-Explode-In-Request': '1' },
    status: 500,
    class: 'Error',
    message: () => 'The request listener exploded',
    thrownAt: {
      file: 'test/fixtures/exploding-request.listener.ts',
      code: "throw new Error('The request listener exploded');",
      function: 'ExplodingRequestListener.onKernelRequest',
    },
  },
  {
    name: '500 thrown by a pipe',
    path: '/errors/pipe/TEA-1',
    status: 500,
    class: 'Error',
    message: () => 'The SKU pipe exploded on "TEA-1"',
    thrownAt: {
      file: 'test/fixtures/exploding.pipe.ts',
      code: 'throw new Error(`The SKU pipe exploded on "${value}"`);',
      function: 'ExplodingPipe.transform',
    },
  },
  {
    name: '500 thrown by a guard',
    path: '/errors/guard',
    status: 500,
    class: 'Error',
    message: () => 'The access guard exploded',
    thrownAt: {
      file: 'test/fixtures/exploding.guard.ts',
      code: "throw new Error('The access guard exploded');",
      function: 'ExplodingGuard.canActivate',
    },
  },
  {
    name: '500 rendering a view that does not exist',
    path: '/errors/missing-view',
    status: 500,
    class: 'Error',
    message: (config) =>
      `Failed to lookup view "errors-fixture/does-not-exist" in views directory "${config.projectDir}/views"`,
    vendorFrame: /node_modules\/express\/lib\/application\.js:\d+:\d+$/,
  },
  {
    name: '500 from a Handlebars helper that throws while rendering',
    path: '/errors/throwing-helper',
    status: 500,
    class: 'Error',
    message: () => `${FIXTURE_VIEWS}throwing-helper.hbs: The price helper exploded`,
    thrownAt: {
      file: 'test/fixtures/error-fixtures.module.ts',
      code: "throw new Error('The price helper exploded');",
      function: 'Object.<anonymous>',
    },
  },
];

/** Headers every error page carries in debug mode, and the fixture's CSP removed. */
function expectDebugHeaders(res: request.Response, status: number, type: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe(type);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['x-robots-tag']).toBe('noindex');
  expect(res.headers['content-security-policy']).toBeUndefined();
}

describe('Error statuses in debug mode (e2e)', () => {
  let app: NestExpressApplication;
  let config: AppConfig;

  beforeAll(async () => {
    app = await createTestApp({ imports: [ErrorFixturesModule] });
    config = app.get(AppConfig);
  });

  afterAll(async () => {
    await app.close();
  });

  const get = (c: ErrorCase, accept?: string) => {
    const req = request(app.getHttpServer())
      .get(c.path)
      .set('Host', HOST)
      .set(c.headers ?? {});
    return accept ? req.set('Accept', accept) : req;
  };

  it('sends the fixture CSP on a successful response (so its absence on error pages means something)', async () => {
    const res = await request(app.getHttpServer()).get('/errors/ok').set('Host', HOST).expect(200, 'ok');
    expect(res.headers['content-security-policy']).toBe(FIXTURE_CSP);
  });

  describe.each(CASES)('$name', (c) => {
    it('answers the debug page: status, headers, title, the exception, its excerpt and frames, logs, trace', async () => {
      const res = await get(c);
      expectDebugHeaders(res, c.status, 'text/html; charset=utf-8');
      const message = c.message(config);
      const statusLine = `${c.status} ${STATUS_CODES[c.status]}`;
      const page = parse(res.text);
      expect(text(page.querySelector('title'))).toBe(`${message} (${statusLine})`);
      expect(text(page.querySelector('header h1'))).toBe(message);
      expect(text(page.querySelector('#exceptions h2'))).toBe('Exceptions 1');
      const boxes = page.querySelectorAll('#exceptions .trace');
      expect(
        boxes.map((b) => [
          text(b.querySelector('.label')),
          text(b.querySelector('.class')),
          text(b.querySelector('.message')),
        ]),
      ).toEqual([['[1/1]', c.class, message]]);
      const box = boxes[0];
      const frames = box.querySelectorAll('.frame');
      if (c.thrownAt) {
        const line = await lineOf(c.thrownAt.file, c.thrownAt.code);
        expect(text(box.querySelector('.excerpt-file'))).toBe(`${c.thrownAt.file}:${line}`);
        const current = box.querySelector('.excerpt li.current')!;
        expect(Number(text(current.querySelector('.num')))).toBe(line);
        expect(text(current)).toBe(`${line} ${c.thrownAt.code}`);
        expect(text(frames[0].querySelector('.fn'))).toBe(c.thrownAt.function);
        expect(text(frames[0].querySelector('.loc'))).toMatch(
          new RegExp(`^${c.thrownAt.file.replace(/\./g, '\\.')}:${line}:\\d+$`),
        );
        expect(frames[0].classList.contains('app')).toBe(true);
      } else {
        // Thrown inside a dependency: the first frame is vendor code, folded.
        expect(text(frames[0].querySelector('.loc'))).toMatch(c.vendorFrame!);
        expect(frames[0].classList.contains('vendor')).toBe(true);
        expect(frames[0].closest('details')!.hasAttribute('open')).toBe(false);
      }
      const uncaught = page
        .querySelectorAll('#logs tbody tr')
        .filter((r) => text(r.querySelectorAll('td')[2]).startsWith('Uncaught Exception'));
      expect(uncaught).toHaveLength(1);
      expect(text(uncaught[0].querySelector('.level'))).toBe(c.status >= 500 ? 'CRITICAL' : 'ERROR');
      expect(text(uncaught[0].querySelectorAll('td')[2])).toContain(`Uncaught Exception ${c.class}: "${message}" at `);
      const traces = page.querySelectorAll('#stack-traces pre.stack').map((p) => p.text);
      expect(traces).toHaveLength(1);
      expect(traces[0].split('\n')[0]).toBe(`${c.class}: ${message}`);
      if (c.thrownAt)
        expect(traces[0].split('\n')[1]).toMatch(
          new RegExp(
            `^ {4}at ${c.thrownAt.function.replace(/[.<>]/g, '\\$&')} \\(${c.thrownAt.file.replace(/\./g, '\\.')}:\\d+:\\d+\\)$`,
          ),
        );
    });

    it('answers JSON clients with problem+json, the chain and its frames', async () => {
      const res = await get(c, 'application/json');
      expectDebugHeaders(res, c.status, 'application/problem+json; charset=utf-8');
      const message = c.message(config);
      expect(res.body).toMatchObject({
        type: 'about:blank',
        title: STATUS_CODES[c.status],
        status: c.status,
        detail: message,
      });
      expect(res.body.exceptions.map((e: ExceptionJson) => ({ class: e.class, message: e.message }))).toEqual([
        { class: c.class, message },
      ]);
      if (c.thrownAt) {
        expect(res.body.exceptions[0].frames[0]).toEqual({
          function: c.thrownAt.function,
          file: c.thrownAt.file,
          line: await lineOf(c.thrownAt.file, c.thrownAt.code),
          column: expect.any(Number),
          vendor: false,
        });
      } else {
        expect(res.body.exceptions[0].frames[0].vendor).toBe(true);
      }
    });
  });
});

describe('Error statuses with debug off (e2e)', () => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    app = await createTestApp({ imports: [ErrorFixturesModule], env: { APP_DEBUG: '0' } });
  });

  afterAll(async () => {
    await app.close();
  });

  describe.each(CASES)('$name', (c) => {
    const get = (accept?: string) => {
      const req = request(app.getHttpServer())
        .get(c.path)
        .set('Host', HOST)
        .set(c.headers ?? {});
      return accept ? req.set('Accept', accept) : req;
    };

    it('answers the short generic page: same status, no class, message, path, log or trace', async () => {
      const res = await get();
      expect(res.status).toBe(c.status);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-robots-tag']).toBe('noindex');
      expect(res.headers['content-security-policy']).toBeUndefined();
      expect(res.headers['x-debug-exception']).toBeUndefined();
      expect(res.headers['x-debug-exception-file']).toBeUndefined();
      expect(res.text).toBe(genericPage(c.status));
      const message = c.message(app.get(AppConfig));
      const internals = [
        c.class === 'Error' ? 'Error:' : c.class,
        message,
        'src/',
        '.ts',
        'Notified event',
        'Uncaught Exception',
        'node_modules',
      ];
      for (const internal of internals) expect(res.text).not.toContain(internal);
    });

    it('answers JSON clients with a bare problem+json', async () => {
      const res = await get('application/json');
      expect(res.status).toBe(c.status);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-robots-tag']).toBe('noindex');
      expect(res.headers['content-security-policy']).toBeUndefined();
      const title = STATUS_CODES[c.status];
      expect(res.body).toEqual({ type: 'about:blank', title, status: c.status, detail: title });
      expect(res.text).not.toContain(c.message(app.get(AppConfig)));
    });
  });

  it("states a malformed request's own message, escaped, and nothing else of the error", async () => {
    const path = '/products/%E0%A4%A';
    const message = `The path "${path}" is not valid percent-encoded UTF-8.`;
    const html = await request(app.getHttpServer()).get(path).set('Host', HOST).expect(400);
    const heading = '400 Bad Request';
    expect(html.text).toBe(
      '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex,nofollow">' +
        `<title>${heading}</title></head><body><h1>${heading}</h1><ul><li>${escapeHtml(message)}</li></ul></body></html>\n`,
    );
    const json = await request(app.getHttpServer()).get(path).set('Host', HOST).set('Accept', 'application/json');
    expect(json.status).toBe(400);
    expect(json.body).toEqual({ type: 'about:blank', title: 'Bad Request', status: 400, detail: message });
  });
});

describe('503 in maintenance mode (e2e)', () => {
  const MAINTENANCE_MESSAGE = 'The shop is closed for maintenance. Please come back in a few minutes.';
  const THROW = 'throw new ServiceUnavailableHttpException(';

  describe('debug on', () => {
    let app: NestExpressApplication;

    beforeAll(async () => {
      app = await createTestApp({
        imports: [ErrorFixturesModule],
        env: { MAINTENANCE: '1', MAINTENANCE_RETRY_AFTER: '90' },
      });
    });

    afterAll(async () => {
      await app.close();
    });

    it('shows the debug page with Retry-After, the exception thrown by the maintenance listener', async () => {
      const res = await request(app.getHttpServer()).get('/errors/ok').set('Host', HOST);
      expectDebugHeaders(res, 503, 'text/html; charset=utf-8');
      expect(res.headers['retry-after']).toBe('90');
      const page = parse(res.text);
      expect(text(page.querySelector('title'))).toBe(`${MAINTENANCE_MESSAGE} (503 Service Unavailable)`);
      expect(
        page
          .querySelectorAll('#exceptions .trace')
          .map((b) => [
            text(b.querySelector('.label')),
            text(b.querySelector('.class')),
            text(b.querySelector('.message')),
          ]),
      ).toEqual([['[1/1]', 'ServiceUnavailableHttpException', MAINTENANCE_MESSAGE]]);
      const line = await lineOf('src/lifecycle/listeners/maintenance.listener.ts', THROW);
      expect(text(page.querySelector('#trace-box-1 .excerpt-file'))).toBe(
        `src/lifecycle/listeners/maintenance.listener.ts:${line}`,
      );
      expect(Number(text(page.querySelector('#trace-box-1 .excerpt li.current .num')))).toBe(line);
      expect(text(page.querySelector('#trace-box-1 .frame .fn'))).toBe('MaintenanceListener.onKernelRequest');
      const last = page.querySelectorAll('#logs tbody tr').map((r) => text(r.querySelectorAll('td')[2]));
      expect(
        last.filter((m) =>
          m.startsWith(`Uncaught Exception ServiceUnavailableHttpException: "${MAINTENANCE_MESSAGE}" at `),
        ),
      ).toHaveLength(1);
    });

    it('gives JSON clients the debug problem+json with Retry-After', async () => {
      const res = await request(app.getHttpServer())
        .get('/errors/ok')
        .set('Host', HOST)
        .set('Accept', 'application/json');
      expectDebugHeaders(res, 503, 'application/problem+json; charset=utf-8');
      expect(res.headers['retry-after']).toBe('90');
      expect(res.body).toMatchObject({
        type: 'about:blank',
        title: 'Service Unavailable',
        status: 503,
        detail: MAINTENANCE_MESSAGE,
      });
      expect(res.body.exceptions.map((e: ExceptionJson) => e.class)).toEqual(['ServiceUnavailableHttpException']);
    });
  });

  describe('debug off', () => {
    let app: NestExpressApplication;

    beforeAll(async () => {
      app = await createTestApp({
        imports: [ErrorFixturesModule],
        env: { APP_DEBUG: '0', MAINTENANCE: '1', MAINTENANCE_RETRY_AFTER: '90' },
      });
    });

    afterAll(async () => {
      await app.close();
    });

    it('shows the generic page with the same status and Retry-After, nothing internal', async () => {
      const res = await request(app.getHttpServer()).get('/errors/ok').set('Host', HOST);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('90');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toBeUndefined();
      expect(res.text).toBe(genericPage(503));
      for (const internal of ['ServiceUnavailableHttpException', MAINTENANCE_MESSAGE, 'src/', '.ts', 'Notified event'])
        expect(res.text).not.toContain(internal);
    });

    it('gives JSON clients a bare problem+json with Retry-After', async () => {
      const res = await request(app.getHttpServer())
        .get('/errors/ok')
        .set('Host', HOST)
        .set('Accept', 'application/json');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('90');
      expect(res.body).toEqual({
        type: 'about:blank',
        title: 'Service Unavailable',
        status: 503,
        detail: 'Service Unavailable',
      });
    });
  });
});
