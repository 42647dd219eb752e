import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { KernelFixturesModule } from './fixtures/kernel-fixtures.module.js';
import { createTestApp } from './support/create-test-app.js';

const HOST = 'shop.test';
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();

describe('Debug error page (e2e)', () => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    app = await createTestApp({ imports: [KernelFixturesModule] });
  });

  afterAll(async () => {
    await app.close();
  });

  const get = (path: string) => request(app.getHttpServer()).get(path).set('Host', HOST);

  it('shows the two-exception chain of an unmatched GET, outermost first, with exact messages', async () => {
    const res = await get('/this/does/not/exist').expect(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-robots-tag']).toBe('noindex');
    expect(decodeURIComponent(res.headers['x-debug-exception'])).toBe(
      'No route found for "GET http://shop.test/this/does/not/exist"',
    );
    expect(res.headers['x-debug-exception-file']).toMatch(/^src%2Flifecycle%2Flisteners%2Frouter\.listener\.ts:\d+$/);
    const page = parse(res.text);
    expect(text(page.querySelector('title'))).toBe(
      'No route found for "GET http://shop.test/this/does/not/exist" (404 Not Found)',
    );
    expect(text(page.querySelector('#exceptions h2'))).toBe('Exceptions 2');
    const boxes = page.querySelectorAll('#exceptions .trace');
    expect(boxes.map((b) => text(b.querySelector('.label')))).toEqual(['[2/2]', '[1/2]']);
    expect(boxes.map((b) => text(b.querySelector('.class')))).toEqual([
      'NotFoundHttpException',
      'ResourceNotFoundException',
    ]);
    expect(boxes.map((b) => text(b.querySelector('.message')))).toEqual([
      'No route found for "GET http://shop.test/this/does/not/exist"',
      'No routes found for "/this/does/not/exist/".',
    ]);
  });

  it('adds the Referer to the message', async () => {
    const res = await get('/nope').set('Referer', 'http://shop.test/products').expect(404);
    const page = parse(res.text);
    expect(text(page.querySelector('#exceptions .trace .message'))).toBe(
      'No route found for "GET http://shop.test/nope" (from "http://shop.test/products")',
    );
  });

  it('shows a code excerpt from the TypeScript source, the throwing line highlighted, and the frames', async () => {
    const res = await get('/nope').expect(404);
    const box = parse(res.text).querySelector('#trace-box-2')!;
    const file = text(box.querySelector('.excerpt-file'));
    expect(file).toMatch(/^src\/lifecycle\/listeners\/router\.listener\.ts:\d+$/);
    const line = Number(file.split(':')[1]);
    const current = box.querySelector('.excerpt li.current')!;
    expect(Number(text(current.querySelector('.num')))).toBe(line);
    expect(text(current)).toContain('throw new NotFoundHttpException(noRouteMessage(request), error);');
    const numbers = box
      .querySelectorAll('.excerpt')[0]
      .querySelectorAll('li')
      .map((li) => Number(text(li.querySelector('.num'))));
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => numbers[0] + i));
    const frames = box.querySelectorAll('.frame');
    expect(text(frames[0].querySelector('.fn'))).toBe('RouterListener.onKernelRequest');
    expect(text(frames[0].querySelector('.loc'))).toMatch(/^src\/lifecycle\/listeners\/router\.listener\.ts:\d+:\d+$/);
    // The kernel's frames are the framework's: folded as one run under its count, the first marked as the excerpt's.
    expect(frames.every((f) => f.classList.contains('vendor'))).toBe(true);
    expect(text(frames[0])).toMatch(/\(excerpt above\)$/);
    const group = box.querySelector('.frame-group > details')!;
    expect(group.hasAttribute('open')).toBe(false);
    expect(text(group.querySelector('summary'))).toBe(`${frames.length} framework frames`);
    // Highlighted on the server: keywords and names in spans, the text intact.
    expect(current.querySelectorAll('i.k').map(text)).toEqual(expect.arrayContaining(['throw', 'new']));
    // The inner exception is folded: the matcher's frame and its caller's (the outer one holds the whole path).
    const inner = parse(res.text).querySelector('details#trace-box-1')!;
    expect(inner.hasAttribute('open')).toBe(false);
    expect(inner.querySelectorAll('.frame .fn').map(text)).toEqual([
      'UrlMatcher.match',
      'RouterListener.onKernelRequest',
    ]);
  });

  it('lists the frames a chained exception shares with the one that wrapped it once, counted', async () => {
    const page = parse((await get('/fixture/chained').expect(500)).text);
    const inner = page.querySelector('details#trace-box-1')!;
    expect(text(inner.querySelector('.trace-head .message'))).toBe('Unexpected end of the stock file');
    expect(inner.querySelectorAll('.frame .fn').map(text).slice(0, 2)).toEqual([
      'readStockFile',
      'KernelFixturesController.chained',
    ]);
    const shared = /^(\d+) more frames in common with the exception above$/.exec(
      text(inner.querySelector('.frame-shared')),
    );
    expect(Number(shared?.[1])).toBeGreaterThan(3);
    const trace = text(page.querySelector('#stack-trace-1'));
    expect(trace).toMatch(new RegExp(`\\.\\.\\. ${shared![1]} more$`));
  });

  it('lists the request logs with level, channel, message and context', async () => {
    // The second page renders the notification rows from the renderer's per-listener cache: the same text.
    for (let i = 0; i < 2; i++) {
      const again = parse((await get('/nope').expect(404)).text).querySelectorAll('#logs tbody tr');
      const row = again.filter((r) =>
        text(r.querySelectorAll('td')[2]).startsWith(
          'Notified event "kernel.request" to listener "RouterListener::onKernelRequest".',
        ),
      );
      expect(row).toHaveLength(1);
      // SPEC.md, Events: the context is {event, listener}, shown below the message.
      expect(JSON.parse(row[0].querySelector('.context')!.text)).toEqual({
        event: 'kernel.request',
        listener: 'RouterListener::onKernelRequest',
      });
    }
    const res = await get('/nope').expect(404);
    const rows = parse(res.text).querySelectorAll('#logs tbody tr');
    const notified = rows.filter((r) =>
      text(r.querySelectorAll('td')[2]).startsWith(
        'Notified event "kernel.request" to listener "RouterListener::onKernelRequest".',
      ),
    );
    expect(notified).toHaveLength(1);
    const cells = notified[0].querySelectorAll('td');
    expect(text(cells[0].querySelector('.level'))).toBe('DEBUG');
    expect(text(cells[0].querySelector('time'))).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(text(cells[1])).toBe('event');
    expect(notified[0].classList.contains('level-row-debug')).toBe(true);
    const entries = rows.filter((r) => !r.classList.contains('log-group'));
    expect(text(parse(res.text).querySelector('label[for="show-debug"]'))).toBe(
      `Show the ${entries.filter((r) => r.classList.contains('level-row-debug')).length} debug entries`,
    );
    // Grouped per kernel event, with the count, as the Logs panel folds them.
    expect(rows.filter((r) => r.classList.contains('log-group')).map(text)).toEqual([
      expect.stringMatching(/^kernel\.request: \d+ event notifications$/),
    ]);
    // Six kernel.request listeners up to the router, plus the test's probe.
    const kernelRequest = rows
      .map((r) => text(r.querySelectorAll('td')[2]))
      .filter((m) => m.startsWith('Notified event "kernel.request"'));
    expect(kernelRequest.filter((m) => !m.includes('KernelProbe::'))).toHaveLength(6);
    const error = rows.find((r) => text(r.querySelector('.level')) === 'ERROR')!;
    expect(text(error.querySelectorAll('td')[1])).toBe('request');
    expect(text(parse(res.text).querySelector('#logs .counts'))).toBe(
      `Errors 1 · Warnings 0 · Deprecations 0 · Debug ${kernelRequest.length}`,
    );
  });

  it('prints every exception as plain text in Stack Traces', async () => {
    const res = await get('/nope').expect(404);
    const traces = parse(res.text)
      .querySelectorAll('#stack-traces pre.stack')
      .map((p) => p.text);
    expect(traces).toHaveLength(2);
    expect(traces[0].split('\n')[0]).toBe(
      '[2/2] NotFoundHttpException: No route found for "GET http://shop.test/nope"',
    );
    expect(traces[0].split('\n')[1]).toMatch(
      /^ {4}at RouterListener\.onKernelRequest \(src\/lifecycle\/listeners\/router\.listener\.ts:\d+:\d+\)$/,
    );
    expect(traces[1].split('\n')[0]).toBe('[1/2] ResourceNotFoundException: No routes found for "/nope/".');
  });

  it('shows the 405 page with Allow', async () => {
    const res = await request(app.getHttpServer()).put('/fixture/items').set('Host', HOST).expect(405);
    expect(res.headers.allow).toBe('GET, POST');
    const classes = parse(res.text)
      .querySelectorAll('#exceptions .class')
      .map((c) => text(c));
    expect(classes).toEqual(['MethodNotAllowedHttpException', 'MethodNotAllowedException']);
  });

  it("shows a controller's own TypeScript lines for a 500 it threw", async () => {
    const res = await get('/fixture/boom').expect(500);
    const box = parse(res.text).querySelector('#trace-box-1')!;
    expect(text(box.querySelector('.excerpt-file'))).toMatch(/^test\/fixtures\/kernel-fixtures\.controller\.ts:\d+$/);
    expect(text(box.querySelector('.excerpt li.current'))).toContain("throw new Error('Boom from a controller');");
    expect(text(box.querySelector('.frame .fn'))).toBe('KernelFixturesController.boom');
  });

  it('takes no line of a message for a frame: a JSON body shaped like a stack line gets its 400 page, the throw located in our code', async () => {
    // V8 quotes a body of up to 20 characters whole in its parse error's message, newlines included: the kernel drops that quote
    // (a body is request data), and no line shaped like a frame, whose file: URL no path can be made of, is left in the message.
    const body = '[\n at file://e/a:7:7';
    const res = await request(app.getHttpServer())
      .post('/fixture/items')
      .set('Host', HOST)
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(decodeURIComponent(res.headers['x-debug-exception'])).toBe(
      'Malformed JSON body: Unexpected token in JSON at position 3',
    );
    expect(res.text).not.toContain('file://e/');
    expect(res.headers['x-debug-exception-file']).toMatch(/^src%2Flifecycle%2Fhttp%2Frequest-body\.ts:\d+$/);
    const page = parse(res.text);
    expect(page.querySelectorAll('#exceptions .class').map((c) => text(c))).toEqual([
      'BadRequestHttpException',
      'SyntaxError',
    ]);
    expect(
      page
        .querySelectorAll('#exceptions .frame .loc')
        .map((l) => text(l))
        .filter((l) => l.includes('file://e/')),
    ).toEqual([]);
    const logs = page.querySelectorAll('#logs tbody tr').map((tr) => text(tr.querySelectorAll('td')[2]));
    expect(logs.filter((m) => m.startsWith('Uncaught Exception BadRequestHttpException'))).toEqual([
      expect.stringMatching(/ at src\/lifecycle\/http\/request-body\.ts line \d+Context\{/),
    ]);
    expect(logs.filter((m) => m.startsWith('Exception thrown while handling an exception'))).toEqual([]);
  });

  it('gives JSON clients problem+json with the chain and frames', async () => {
    const res = await get('/nope').set('Accept', 'application/json').expect(404);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(res.body.exceptions[0].frames[0]).toMatchObject({
      function: 'RouterListener.onKernelRequest',
      file: 'src/lifecycle/listeners/router.listener.ts',
      vendor: false,
    });
  });

  it('escapes request values: path, query, Referer, User-Agent', async () => {
    const xss = '<script>alert(1)</script>';
    const res = await request(app.getHttpServer())
      .get(`/${encodeURIComponent(xss)}?q=${encodeURIComponent('"><img src=x onerror=alert(1)>')}`)
      .set('Host', HOST)
      .set('Referer', `http://x/${xss}`)
      .set('User-Agent', xss)
      .expect(404);
    expect(res.text).not.toContain('<script>alert(1)</script>');
    expect(res.text).not.toContain('<img src=x');
    expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // The page's own script, and the debug toolbar's.
    expect(
      parse(res.text)
        .querySelectorAll('script')
        .map((script) => script.getAttribute('src')?.replace(/\?v=[0-9a-f]{12}$/, '') ?? 'inline'),
    ).toEqual(['inline', '/_profiler/toolbar.js']);
  });

  it("keeps the no-route 404 of the default application under 21 KiB, a browser's request headers and the toolbar loader included", async () => {
    const shop = await createTestApp();
    try {
      const res = await request(shop.getHttpServer())
        .get('/no/such/page')
        .set('Host', HOST)
        .set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8')
        .set(
          'User-Agent',
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
        )
        .set('Accept-Language', 'en-US,en;q=0.9')
        .set('Accept-Encoding', 'gzip, deflate, br, zstd')
        .set('Sec-Fetch-Site', 'none')
        .set('Sec-Fetch-Mode', 'navigate')
        .set('Sec-Fetch-Dest', 'document')
        .set('Upgrade-Insecure-Requests', '1')
        .expect(404);
      expect(res.text).toContain('class="sk-toolbar');
      expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(21 * 1024);
    } finally {
      await shop.close();
    }
  });

  it('needs no external asset', async () => {
    const res = await get('/nope').expect(404);
    expect(res.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(res.text).toContain('@media (prefers-color-scheme:dark)');
  });
});
