import type { HTMLElement } from 'node-html-parser';
import { describeOnEachProfileStore } from '../support/profile-stores.js';
import { rawRequest } from '../support/raw-http.js';
import {
  exceptionBoxes,
  exceptionEntries,
  heading,
  HOST,
  html,
  logColumns,
  notifications,
  logRows,
  SPEC_APP,
  stackTraceHeads,
  text,
} from './spec-pages.js';

// SPEC.md "Errors", "Error page: exception entry", "What the service does" 3 and "Any path that matches no route".
describeOnEachProfileStore('SPEC.md: errors and the debug error page', SPEC_APP, (current) => {
  /** A request as a browser behind the local https proxy sends it. */
  const send = (method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options' | 'head', path: string, host = HOST) =>
    current().http()[method](path).set('Host', host).set('X-Forwarded-Proto', 'https').set('Accept', 'text/html');
  const page404 = async (path: string): Promise<HTMLElement> => {
    const res = await send('get', path).expect(404);
    return html(res.text);
  };

  it('What the service does › 3: a path no route matches → 404, an HTML error page with the sections Exceptions, Logs and Stack Traces', async () => {
    const res = await send('get', '/this/does/not/exist').expect(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const page = html(res.text);
    expect(heading(page, 'Exceptions')).toMatch(/^Exceptions \d+$/);
    expect(heading(page, 'Logs')).toMatch(/^Logs\b/);
    expect(heading(page, 'Stack Traces')).toMatch(/^Stack Traces \d+$/);
  });

  it('Errors › row "No route matches the path" → 404, No route found for "<METHOD> <absolute_url>"', async () => {
    const cases: Array<[Parameters<typeof send>[0], string, string, string]> = [
      ['get', '/this/does/not/exist', HOST, 'GET https://shop.test/this/does/not/exist'],
      ['post', '/no/such/form', 'eu.shop.test', 'POST https://eu.shop.test/no/such/form'],
      ['delete', '/products/none/at/all', 'shop.test:8443', 'DELETE https://shop.test:8443/products/none/at/all'],
    ];
    for (const [method, path, host, expected] of cases) {
      const res = await send(method, path, host).expect(404);
      expect(exceptionEntries(html(res.text))[0].message).toBe(`No route found for "${expected}"`);
    }
    // Without the proxy's header the request came over plain http: the absolute URL says so.
    const plain = await current().http().get('/this/does/not/exist').set('Host', HOST).expect(404);
    expect(exceptionEntries(html(plain.text))[0].message).toBe(
      'No route found for "GET http://shop.test/this/does/not/exist"',
    );
  });

  it('Errors › row "No route matches the path" › with a referer header the message gets the suffix (from "<referer>")', async () => {
    for (const referer of ['https://shop.test/products', 'https://elsewhere.example/a?b=c"d']) {
      const res = await send('get', '/this/does/not/exist').set('Referer', referer).expect(404);
      const [outer, inner] = exceptionEntries(html(res.text));
      expect(outer.message).toBe(`No route found for "GET https://shop.test/this/does/not/exist" (from "${referer}")`);
      expect(inner.message).toBe('No routes found for "/this/does/not/exist/".');
    }
  });

  it('Errors › row "A route matches the path but not the method" → 405, No route found for "<METHOD> <absolute_url>": Method Not Allowed (Allow: <methods>), methods joined by ", "', async () => {
    const cases: Array<[Parameters<typeof send>[0], string, string]> = [
      ['put', '/login', 'GET, POST'],
      ['get', '/cart/lines', 'POST'],
      ['delete', '/', 'GET'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await send(method, path).expect(405);
      const [outer] = exceptionEntries(html(res.text));
      expect(outer.message).toBe(
        `No route found for "${method.toUpperCase()} https://shop.test${path}": Method Not Allowed (Allow: ${allow})`,
      );
    }
  });

  it('Errors › row "A route matches the path but not the method" › the exception carries the allowed methods (Allow header)', async () => {
    const res = await send('put', '/login').expect(405);
    expect(res.headers.allow).toBe('GET, POST');
    const json = await send('put', '/login').set('Accept', 'application/json').expect(405);
    expect(json.headers.allow).toBe('GET, POST');
    expect(json.body.detail).toBe(
      'No route found for "PUT https://shop.test/login": Method Not Allowed (Allow: GET, POST)',
    );
  });

  it('Errors › row "A request is malformed in a way that raises a request exception" → 400, message of the underlying exception, wrapped by a bad-request exception', async () => {
    const res = await send('get', '/products/%E0%A4%A').expect(400);
    const entries = exceptionEntries(html(res.text));
    expect(entries.map((e) => [e.label, e.class])).toEqual([
      ['[2/2]', 'BadRequestHttpException'],
      ['[1/2]', 'MalformedRequestException'],
    ]);
    expect(entries[1].message).toBe('The path "/products/%E0%A4%A" is not valid percent-encoded UTF-8.');
    expect(entries[0].message).toBe(entries[1].message);
  });

  /** `GET /` with a Host that is no host name, sent byte for byte as curl sends it. */
  const badHost = (host: string, accept: string) =>
    rawRequest(current().port, `GET / HTTP/1.1\r\nHost: ${host}\r\nAccept: ${accept}\r\nConnection: close\r\n\r\n`, {
      readBody: true,
    });
  const DEBUG_HEADERS = [
    'x-debug-token',
    'x-debug-token-link',
    'x-previous-debug-token',
    'x-debug-exception',
    'x-debug-exception-file',
  ];
  /** Debug details an unknown host must not see: the classes of the chain, its files and lines, its labels, the toolbar. */
  const DEBUG_DETAILS = [
    /BadRequestHttpException/,
    /SuspiciousOperationException/,
    /HttpException/,
    /\.ts:\d+/,
    /validate-request/,
    /\[\d\/\d\]/,
    /Stack Trace/,
    /_profiler/,
  ];

  it('Errors › row "A request is malformed…" → 400: Host "bad host!!" from a host the debug tools do not answer gets the message, HTML-escaped, and no other debug detail', async () => {
    for (const [host, escaped] of [
      ['bad host!!', 'Invalid Host &quot;bad host!!&quot;.'],
      ['<b>bad</b>host', 'Invalid Host &quot;&lt;b&gt;bad&lt;/b&gt;host&quot;.'],
    ]) {
      const res = await badHost(host, 'text/html');
      expect({ status: res.status, type: res.headers['content-type'] }).toEqual({
        status: 400,
        type: 'text/html; charset=utf-8',
      });
      expect(res.body).toContain(escaped);
      expect(text(html(res.body).querySelector('body'))).toContain(`Invalid Host "${host}".`);
      if (host.includes('<')) expect(res.body).not.toContain(host);
      expect(DEBUG_HEADERS.filter((name) => name in res.headers)).toEqual([]);
      expect(DEBUG_DETAILS.filter((detail) => detail.test(res.body))).toEqual([]);
    }
  });

  it('Errors › row "A request is malformed…" → 400: Host "bad host!!" from a host the debug tools do not answer, JSON problem answer: detail is the message, no other debug detail', async () => {
    for (const host of ['bad host!!', 'evil.example/x']) {
      const res = await badHost(host, 'application/json');
      expect({ status: res.status, type: res.headers['content-type'] }).toEqual({
        status: 400,
        type: 'application/problem+json; charset=utf-8',
      });
      const body = JSON.parse(res.body);
      expect({ status: body.status, detail: body.detail }).toEqual({ status: 400, detail: `Invalid Host "${host}".` });
      expect(
        Object.keys(body).filter((key) => !['type', 'title', 'status', 'detail', 'instance'].includes(key)),
      ).toEqual([]);
      expect(DEBUG_HEADERS.filter((name) => name in res.headers)).toEqual([]);
      expect(DEBUG_DETAILS.filter((detail) => detail.test(res.body))).toEqual([]);
    }
  });

  it('Errors › the 404 error page is HTML in debug mode: heading Exceptions with the count, the entries, the Logs table (Level, Channel, Message), the Stack Traces section', async () => {
    const res = await send('get', '/this/does/not/exist').expect(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const page = html(res.text);
    expect(heading(page, 'Exceptions')).toBe('Exceptions 2');
    expect(exceptionEntries(page)).toHaveLength(2);
    expect(logColumns(page)).toEqual(['Level', 'Channel', 'Message']);
    expect(logRows(page).length).toBeGreaterThan(0);
    expect(heading(page, 'Stack Traces')).toBe('Stack Traces 2');
    expect(stackTraceHeads(page)).toHaveLength(2);
  });

  it('Resources › Error page: exception entry › class: the class name of the exception', async () => {
    const page = await page404('/this/does/not/exist');
    expect(exceptionEntries(page).map((e) => e.class)).toEqual(['NotFoundHttpException', 'ResourceNotFoundException']);
  });

  it('Resources › Error page: exception entry › message: the human-readable message (as the JSON answer states it)', async () => {
    const page = await page404('/this/does/not/exist');
    const json = await send('get', '/this/does/not/exist').set('Accept', 'application/json').expect(404);
    expect(exceptionEntries(page).map((e) => e.message)).toEqual(
      json.body.exceptions.map((e: { message: string }) => e.message),
    );
    expect(json.body.detail).toBe(exceptionEntries(page)[0].message);
  });

  it('Resources › Error page: exception entry › code excerpt: numbered source lines around the failing line', async () => {
    const page = await page404('/this/does/not/exist');
    for (const box of exceptionBoxes(page)) {
      const file = /^(.+):(\d+)$/.exec(text(box.querySelector('.excerpt-file')));
      expect(file).not.toBeNull();
      const lines = box.querySelectorAll('.excerpt li');
      const numbers = lines.map((li) => Number(text(li.querySelector('.num'))));
      expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => numbers[0] + i));
      const failing = lines.findIndex((li) => li.classList.contains('current'));
      expect(numbers[failing]).toBe(Number(file![2]));
      // Around it: source before and after the failing line.
      expect(failing).toBeGreaterThan(0);
      expect(failing).toBeLessThan(lines.length - 1);
    }
  });

  it('Resources › Error page: exception entry › frames: an ordered list, each with a function or method name, a file path and a line number', async () => {
    const page = await page404('/this/does/not/exist');
    const boxes = exceptionBoxes(page);
    for (const box of boxes) {
      const frames = box.querySelectorAll('.frame');
      expect(frames.length).toBeGreaterThan(0);
      for (const frame of frames) {
        expect(text(frame.querySelector('.fn'))).not.toBe('');
        expect(text(frame.querySelector('.loc'))).toMatch(/^\S+:\d+(:\d+)?$/);
      }
    }
    // Ordered innermost call first: the outer exception was thrown by the router's listener, the inner by the matcher.
    expect(text(boxes[0].querySelector('.frame .fn'))).toBe('RouterListener.onKernelRequest');
    expect(text(boxes[1].querySelector('.frame .fn'))).toBe('UrlMatcher.match');
  });

  it('Resources › Error page: exception entry › the heading Exceptions is followed by the count of exceptions in the chain', async () => {
    expect(heading(await page404('/this/does/not/exist'), 'Exceptions')).toBe('Exceptions 2');
    const json = await send('get', '/nope').set('Accept', 'application/json').expect(404);
    expect(json.body.exceptions).toHaveLength(2);
    const notAllowed = html((await send('put', '/login').expect(405)).text);
    expect(heading(notAllowed, 'Exceptions')).toBe(`Exceptions ${exceptionEntries(notAllowed).length}`);
  });

  it('Resources › Error page: exception entry › the chain is listed outermost first', async () => {
    const page = await page404('/this/does/not/exist');
    const json = await send('get', '/this/does/not/exist').set('Accept', 'application/json').expect(404);
    // The problem's chain starts with the exception that decided the status.
    expect(json.body.exceptions.map((e: { class: string }) => e.class)).toEqual([
      'NotFoundHttpException',
      'ResourceNotFoundException',
    ]);
    expect(exceptionEntries(page).map((e) => e.class)).toEqual(
      json.body.exceptions.map((e: { class: string }) => e.class),
    );
    expect(stackTraceHeads(page).map((line) => line.split(':')[0])).toEqual([
      '[2/2] NotFoundHttpException',
      '[1/2] ResourceNotFoundException',
    ]);
  });

  it('Resources › Error page: exception entry › traces labelled [i/n]: n the chain length, i counting down, n the outermost and 1 the innermost', async () => {
    const page = await page404('/this/does/not/exist');
    expect(exceptionEntries(page).map((e) => e.label)).toEqual(['[2/2]', '[1/2]']);
    expect(stackTraceHeads(page)).toEqual([
      '[2/2] NotFoundHttpException: No route found for "GET https://shop.test/this/does/not/exist"',
      '[1/2] ResourceNotFoundException: No routes found for "/this/does/not/exist/".',
    ]);
  });

  it('Resources › Error page: exception entry › row 2/2 (outer): HTTP not-found exception, No route found for "<METHOD> <absolute_url>"', async () => {
    const [outer] = exceptionEntries(await page404('/this/does/not/exist'));
    expect(outer).toEqual({
      label: '[2/2]',
      class: 'NotFoundHttpException',
      message: 'No route found for "GET https://shop.test/this/does/not/exist"',
    });
  });

  it('Resources › Error page: exception entry › row 1/2 (inner): routing resource-not-found exception, No routes found for "<path>/" (path as requested, trailing slash added)', async () => {
    // Symfony's sentence ends with a full stop after the quoted path (reference, §1).
    for (const [path, shown] of [
      ['/this/does/not/exist', '/this/does/not/exist/'],
      ['/Caf%C3%A9/Menu', '/Caf%C3%A9/Menu/'],
      ['/a//b?page=2', '/a//b/'],
    ]) {
      const [, inner] = exceptionEntries(await page404(path));
      expect(inner).toEqual({
        label: '[1/2]',
        class: 'ResourceNotFoundException',
        message: `No routes found for "${shown}".`,
      });
    }
  });

  it('Endpoints › Any path that matches no route › any method and path → 404', async () => {
    const methods = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'] as const;
    for (const path of ['/this/does/not/exist', '/_nothing', '/products/tea/extra/part', '/%7Euser'])
      for (const method of methods) {
        const res = await send(method, path);
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      }
  });

  it('Endpoints › Any path that matches no route › the body in debug mode is the HTML error page', async () => {
    const res = await send('post', '/no/such/page').expect(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const page = html(res.text);
    expect(text(page.querySelector('title'))).toBe(
      'No route found for "POST https://shop.test/no/such/page" (404 Not Found)',
    );
    expect(heading(page, 'Exceptions')).toBe('Exceptions 2');
  });

  it('Endpoints › Any path that matches no route › the matching is performed during the kernel.request event', async () => {
    const rows = logRows(await page404('/this/does/not/exist'));
    const notified = notifications(rows);
    // Every listener notified before the exception is one of kernel.request, the last the one that matches routes.
    expect(new Set(notified.map(([event]) => event))).toEqual(new Set(['kernel.request']));
    expect(notified.at(-1)).toEqual(['kernel.request', 'RouterListener::onKernelRequest']);
    const error = rows.findIndex((row) => row.level === 'ERROR');
    expect(rows[error].message).toMatch(/^Uncaught Exception NotFoundHttpException: "No route found for /);
    expect(rows.findIndex((row) => row.message.includes('RouterListener::onKernelRequest'))).toBeLessThan(error);
  });
});
