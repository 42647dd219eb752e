import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startTestServer, type TestServer } from './support/browser.js';
import { settle, storedProfile, storedProfiles } from './support/profiler.js';
import { rawRequest } from './support/raw-http.js';

/** A request as bytes: request line, Host, the extra header lines, and a body with its Content-Type and length. */
function raw(
  target: string,
  options: { method?: string; headers?: string; body?: string; type?: string; accept?: string } = {},
): string {
  const { method = 'GET', headers = '', body = '', type = 'application/json', accept = 'application/json' } = options;
  const bodyHeaders = body ? `Content-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` : '';
  return `${method} ${target} HTTP/1.1\r\nHost: shop.test\r\nAccept: ${accept}\r\n${headers}${bodyHeaders}\r\n${body}`;
}

function headerLines(count: number): string {
  return Array.from({ length: count }, (_, i) => `X-Field-${i}: ${i}\r\n`).join('');
}

describe('Request limits (e2e)', () => {
  let server: TestServer;
  let port: number;

  beforeAll(async () => {
    // Any Host sees the debug details: the tests read the 400's reason for invalid hosts.
    server = await startTestServer({
      env: {
        MAX_URL_LENGTH: '2048',
        MAX_HEADER_COUNT: '40',
        MAX_HEADER_SIZE: '8192',
        BODY_LIMIT: '8kb',
        PROFILER_ALLOWED_HOSTS: '*',
      },
    });
    port = (server.app.getHttpServer().address() as AddressInfo).port;
  });

  afterAll(async () => {
    await server?.app.close();
  });

  it('answers a URL longer than MAX_URL_LENGTH with a 414 through the kernel, and profiles it', async () => {
    const target = `/products?q=${'a'.repeat(2100)}`;
    const response = await rawRequest(port, raw(target), { readBody: true });
    expect(response.status).toBe(414);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(response.body);
    expect(problem.title).toBe('URI Too Long');
    expect(problem.detail).toBe(`The request URL is ${target.length} bytes long; at most 2048 are accepted.`);
    const token = response.headers['x-debug-token'];
    expect(token).toMatch(/^[0-9a-f]{6}$/);
    await settle();
    const profile = await storedProfile(server.app, token);
    expect(profile.statusCode).toBe(414);
  });

  it('renders the 414 as the debug error page for a browser', async () => {
    const response = await rawRequest(port, raw(`/${'b'.repeat(2100)}`, { accept: 'text/html' }), { readBody: true });
    expect(response.status).toBe(414);
    expect(response.body).toContain('UriTooLongHttpException');
    expect(response.body).toContain('at most 2048 are accepted.');
  });

  it('accepts a URL of exactly MAX_URL_LENGTH bytes', async () => {
    const target = `/products?utm_campaign=${'c'.repeat(2048 - '/products?utm_campaign='.length)}`;
    expect(target.length).toBe(2048);
    const response = await rawRequest(port, raw(target, { accept: 'text/html' }));
    expect(response.status).toBe(200);
  });

  it('answers a request line longer than the whole header section limit with a plain 414 from the server', async () => {
    const response = await rawRequest(port, raw(`/${'d'.repeat(9000)}`), { readBody: true });
    expect(response.status).toBe(414);
    expect(response.headers.connection).toBe('close');
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe('414 URI Too Long: The request URL is longer than 2048 bytes.\n');
  });

  it('answers more header fields than MAX_HEADER_COUNT with a 431 through the kernel', async () => {
    const response = await rawRequest(port, raw('/products', { headers: headerLines(45) }), { readBody: true });
    expect(response.status).toBe(431);
    const problem = JSON.parse(response.body);
    expect(problem.title).toBe('Request Header Fields Too Large');
    // 45 extra fields, plus Host and Accept
    expect(problem.detail).toBe('The request has 47 header fields; at most 40 are accepted.');
    expect(response.headers['x-debug-token']).toMatch(/^[0-9a-f]{6}$/);
  });

  it('accepts exactly MAX_HEADER_COUNT header fields', async () => {
    const response = await rawRequest(port, raw('/products', { headers: headerLines(38), accept: 'text/html' }));
    expect(response.status).toBe(200);
  });

  it('answers a header section over MAX_HEADER_SIZE with a plain 431 from the server', async () => {
    const response = await rawRequest(port, raw('/products', { headers: `X-Big: ${'e'.repeat(9000)}\r\n` }), {
      readBody: true,
    });
    expect(response.status).toBe(431);
    expect(response.headers.connection).toBe('close');
    expect(response.body).toBe(
      "431 Request Header Fields Too Large: The request's header section is larger than 8192 bytes.\n",
    );
  });

  it('answers a body over BODY_LIMIT with a 413', async () => {
    const response = await rawRequest(
      port,
      raw('/api/login', { method: 'POST', body: JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(9000) }) }),
      { readBody: true },
    );
    expect(response.status).toBe(413);
    const problem = JSON.parse(response.body);
    expect(problem.title).toBe('Payload Too Large');
    expect(problem.detail).toBe('request entity too large');
  });

  it('answers JSON nested deeper than 512 levels with a 400, balanced or not', async () => {
    for (const body of [
      '['.repeat(600) + ']'.repeat(600),
      '{"a":'.repeat(600) + '1' + '}'.repeat(600),
      '['.repeat(600),
    ]) {
      const response = await rawRequest(port, raw('/api/login', { method: 'POST', body }), { readBody: true });
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body).detail).toBe('The JSON body is nested deeper than 512 levels.');
    }
  });

  it('answers a form nested too deep with a 400 Bad Request', async () => {
    const body = `a${'[b]'.repeat(100)}=1`;
    const response = await rawRequest(
      port,
      raw('/login', { method: 'POST', body, type: 'application/x-www-form-urlencoded' }),
      { readBody: true },
    );
    expect(response.status).toBe(400);
    const problem = JSON.parse(response.body);
    expect(problem.exceptions[0].class).toBe('BadRequestHttpException');
    expect(problem.detail).toBe('The input exceeded the depth');
  });

  it('answers a body shorter than its Content-Length (the client gave up) with a 400, and keeps serving', async () => {
    const truncated = raw('/api/login', { method: 'POST', body: '{"email":"a@b.c"}' }).replace(
      /Content-Length: \d+/,
      'Content-Length: 100',
    );
    const response = await rawRequest(port, truncated, { endAfterWrite: true, readBody: true });
    expect([400, null]).toContain(response.status);
    const after = await request(server.app.getHttpServer()).get('/products');
    expect(after.status).toBe(200);
  });

  it('answers bytes that are not HTTP with a plain 400', async () => {
    const response = await rawRequest(port, 'HELLO THERE\r\n\r\n', { readBody: true });
    expect(response.status).toBe(400);
    expect(response.body).toMatch(/^400 Bad Request: /);
  });

  it('answers conflicting Content-Length and Transfer-Encoding with a plain 400', async () => {
    const smuggled =
      'POST /api/login HTTP/1.1\r\nHost: shop.test\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n';
    const response = await rawRequest(port, smuggled, { readBody: true });
    expect(response.status).toBe(400);
  });

  it('answers two Host fields with a 400 (RFC 9112), whichever is valid', async () => {
    const response = await rawRequest(port, raw('/products', { headers: 'Host: other.test\r\n' }), { readBody: true });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).detail).toBe('The request has 2 Host header fields; exactly one is allowed.');
  });

  it('answers a request line without an HTTP version (read as HTTP/0.9) with a 400', async () => {
    const response = await rawRequest(port, 'GET /products\r\nHost: shop.test\r\nAccept: application/json\r\n\r\n', {
      readBody: true,
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).detail).toBe(
      'HTTP/0.9 is not supported: the request line must end with HTTP/1.0 or HTTP/1.1.',
    );
  });

  it('answers an absolute-form request-target that is not a URL with a 400 of the kernel, profiled', async () => {
    const response = await rawRequest(
      port,
      'GET http://[::1 HTTP/1.1\r\nHost: shop.test\r\nAccept: application/json\r\n\r\n',
      { readBody: true },
    );
    expect(response.status).toBe(400);
    const body = JSON.parse(response.body);
    expect(body.detail).toBe('The request-target "http://[::1" is not a valid URL.');
    expect(body.exceptions.map((e: { class: string }) => e.class)).toEqual([
      'BadRequestHttpException',
      'MalformedRequestException',
    ]);
    expect(response.headers['x-debug-token']).toMatch(/^[0-9a-f]{6}$/);
  });

  it.each(['shop.test:-1', 'shop.test:65536', '[::1', 'shop.test:8o', 'a..b', 'shop.test/x'])(
    'answers Host "%s" with a 400',
    async (host) => {
      const response = await rawRequest(
        port,
        `GET /products HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\n\r\n`,
        { readBody: true },
      );
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body).detail).toBe(`Invalid Host "${host}".`);
    },
  );

  it.each(['shop.test:8080', 'shop.test:', '[::1]:3000', '127.0.0.1', 'shop.test.'])(
    'accepts Host "%s"',
    async (host) => {
      const response = await rawRequest(port, `GET /products HTTP/1.1\r\nHost: ${host}\r\nAccept: text/html\r\n\r\n`);
      expect(response.status).toBe(200);
    },
  );

  it('profiles every request the kernel answered, the refused ones included', async () => {
    await settle();
    const { rows } = await storedProfiles(server.app, { statusCode: '414', limit: 100 });
    expect(rows.length).toBeGreaterThanOrEqual(2);
    const { rows: tooMany } = await storedProfiles(server.app, { statusCode: '431', limit: 100 });
    expect(tooMany.length).toBe(1);
  });
});
