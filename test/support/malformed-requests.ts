/**
 * Generated malformed HTTP/1.1 requests, as bytes, for the fuzz test: every one is something a client got wrong
 * (or an attack), so the only right answers are a 4xx or a closed connection. Deterministic for a seed, so a
 * failure can be replayed (`FUZZ_SEED=…`).
 */
export interface MalformedRequest {
  /** Which generator made it, for the report. */
  kind: string;
  bytes: Buffer;
  /** Half-close after writing: the client says nothing more is coming (truncated bodies). */
  endAfterWrite?: boolean;
}

/** A small, fast, seedable PRNG (mulberry32). */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  bytes(length: number): Buffer {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) out[i] = this.int(256);
    return out;
  }
}

/** Marker that must never come back unescaped in an HTML answer. */
export const XSS = '<script>alert(1)</script>';

const ROUTES = [
  '/',
  '/products',
  '/products/aurora-desk-lamp',
  '/categories/lighting',
  '/cart',
  '/login',
  '/register',
  '/account',
  '/api/cart',
  '/_profiler/',
  '/_profiler/latest',
];
const POST_ROUTES = [
  '/api/login',
  '/api/cart/lines',
  '/api/checkout',
  '/login',
  '/register',
  '/cart/lines',
  '/checkout',
];
const BAD_PERCENT = [
  '%',
  '%z',
  '%zz',
  '%0',
  '%g0',
  '%c3%28',
  '%ff',
  '%fe%ff',
  '%e2%82',
  '%f0%28%8c%28',
  '%c0%af',
  '%ed%a0%80',
  '%f8%88%80%80%80',
  '%80',
  '%%41',
];
const TRAVERSAL = [
  '../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '%2e%2e%2f%2e%2e%2f',
  '....//....//',
  '..\\..\\windows',
  '%2e%2e',
  'abc123/../../..',
  'abc123%00',
  'ABC123',
  'abc12',
  'abc1234',
  'a-b-c-',
  "abc12'",
  'abc12"',
  '..;',
  '%252e%252e%252f',
  '/etc/passwd',
  'abc123.json/..',
  'zzzzzz',
  '\u0000',
];

interface Parts {
  method?: string;
  target?: string;
  version?: string;
  headers?: string[];
  body?: Buffer | string;
  accept?: string;
}

function build(parts: Parts): Buffer {
  const {
    method = 'GET',
    target = '/',
    version = 'HTTP/1.1',
    headers = ['Host: shop.test'],
    body,
    accept = 'application/json',
  } = parts;
  const lines = [`${method} ${target} ${version}`, ...headers, `Accept: ${accept}`];
  const head = Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');
  return body === undefined
    ? head
    : Buffer.concat([head, typeof body === 'string' ? Buffer.from(body, 'latin1') : body]);
}

function jsonPost(target: string, body: string | Buffer, extra: string[] = []): Buffer {
  const length = typeof body === 'string' ? Buffer.byteLength(body, 'latin1') : body.length;
  return build({
    method: 'POST',
    target,
    headers: ['Host: shop.test', 'Content-Type: application/json', `Content-Length: ${length}`, ...extra],
    body,
  });
}

type RequestGenerator = (r: Random) => Omit<MalformedRequest, 'kind'>;

/** Each generator yields only requests that must be refused (4xx) or cut off. */
export const GENERATORS: Record<string, RequestGenerator> = {
  'bad request line': (r) => {
    const variants: Array<() => Buffer> = [
      () => Buffer.from(`GET ${r.pick(ROUTES)}\r\nHost: shop.test\r\n\r\n`),
      () =>
        Buffer.from(
          `GET ${r.pick(ROUTES)} HTTP/${r.pick(['9.9', '1', '1.1.1', 'x', '2.0', '0.0'])}\r\nHost: shop.test\r\n\r\n`,
        ),
      () =>
        Buffer.from(
          `${r.pick(['G ET', 'GE\tT', 'GET\x00', '(GET)', 'GET:', '"GET"'])} / HTTP/1.1\r\nHost: shop.test\r\n\r\n`,
          'latin1',
        ),
      () =>
        Buffer.from(
          `GET /${r.pick(['\x00', '\x7f', ' ', '\x01', '\x1b[31m'])}x HTTP/1.1\r\nHost: shop.test\r\n\r\n`,
          'latin1',
        ),
      () => Buffer.from(`${'X'.repeat(1 + r.int(40))}\r\n\r\n`),
      () => Buffer.from('\r\n\r\n\r\n'),
      () => Buffer.concat([r.bytes(1 + r.int(200)), Buffer.from('\r\n\r\n')]),
      () => Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, ...r.bytes(40)]), // TLS ClientHello
      () => Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
      () => Buffer.from(`GET http://[::1 HTTP/1.1\r\nHost: shop.test\r\n\r\n`),
    ];
    const bytes = r.pick(variants)();
    // Empty lines before a request line are allowed (RFC 9112 §2.2): only the client's end says none is coming.
    return { bytes, endAfterWrite: bytes.toString('latin1').trim() === '' || r.next() < 0.5 };
  },

  'invalid percent-encoding or UTF-8 in the path': (r) => {
    const route = r.pick([
      '/products/',
      '/categories/',
      '/',
      '/_profiler/',
      '/account/orders/',
      '/api/orders/',
      '/missing/',
    ]);
    const junk = Array.from({ length: 1 + r.int(3) }, () => r.pick(BAD_PERCENT)).join(r.pick(['', 'a', '-']));
    return { bytes: build({ target: route + junk }) };
  },

  'raw bytes that are not UTF-8 in the path': (r) => {
    const junk = Buffer.from(Array.from({ length: 1 + r.int(6) }, () => 0x80 + r.int(0x40)));
    return {
      bytes: Buffer.concat([
        Buffer.from(`GET ${r.pick(['/products/', '/x/', '/'])}`),
        junk,
        Buffer.from(' HTTP/1.1\r\nHost: shop.test\r\nAccept: application/json\r\n\r\n'),
      ]),
    };
  },

  'header injection': (r) => {
    const variants = [
      `X-Note: a\rSet-Cookie: evil=1`,
      `X-Note: a\nSet-Cookie: evil=1`,
      `X-Note: a\r\n Set-Cookie: evil=1`, // obs-fold
      `X-Note: a\u0000b`,
      `Bad Name: x`,
      `Bad\tName: x`,
      `(name): x`,
      `: no-name`,
      `NoColonAtAll`,
      `X-Note:\x7f`,
      `X-Note: ${XSS}\r\nHost: evil.test`,
      `Content-Type: application/json\r\nContent-Type: text/plain`,
      `X-Forwarded-For: 1.2.3.4\r\nForwarded: for=5.6.7.8`,
    ];
    const target = r.pick(ROUTES);
    const injected = r.pick(variants);
    // The repeated Host and the forwarded-header conflict are only refused as such: keep them from being valid.
    if (injected.includes('Host: evil'))
      return {
        bytes: build({
          target: `${target}?x=${encodeURIComponent(XSS)}`,
          headers: ['Host: shop.test', injected.split('\r\n')[1]],
          accept: 'text/html',
        }),
      };
    if (injected.startsWith('Content-Type'))
      return { bytes: jsonPost(r.pick(POST_ROUTES), '{"a":', injected.split('\r\n')) };
    if (injected.startsWith('X-Forwarded-For'))
      return {
        bytes: build({ target: '/missing-' + r.int(1000), headers: ['Host: shop.test', ...injected.split('\r\n')] }),
      };
    return { bytes: build({ target, headers: ['Host: shop.test', injected] }) };
  },

  'bad Host': (r) => {
    const hosts = [
      'shop test',
      'shop.test/evil',
      'shop.test:99999x',
      '[::1',
      'a..b..c/',
      'evil.test@shop.test',
      '\x00',
      `${'a'.repeat(300)}/`,
      'shop.test\\evil',
      'http://shop.test',
      '<script>',
      'shop.test:-1',
      'shop.test:65536',
      'shop.test:8o',
      'xn--/',
    ];
    const variants: Array<() => string[]> = [
      () => [`Host: ${r.pick(hosts)}`],
      () => ['Host: shop.test', 'Host: other.test'],
      () => [],
    ];
    return {
      bytes: build({
        target: r.pick(ROUTES),
        headers: r.pick(variants)(),
        accept: r.next() < 0.2 ? 'text/html' : 'application/json',
      }),
    };
  },

  'conflicting Content-Length / Transfer-Encoding': (r) => {
    const target = r.pick(POST_ROUTES);
    const variants: Array<[string[], string]> = [
      [['Content-Length: 4', 'Transfer-Encoding: chunked'], '0\r\n\r\n'],
      [['Content-Length: 5', 'Content-Length: 6'], '{"a":1}'],
      [['Content-Length: -1'], '{}'],
      [['Content-Length: 1e3'], '{}'],
      [['Content-Length: 0x10'], '{}'],
      [['Content-Length: 99999999999999999999'], '{}'],
      [['Transfer-Encoding: chunked, identity'], '0\r\n\r\n'],
      [['Transfer-Encoding: xchunked'], '0\r\n\r\n'],
      [['Transfer-Encoding: chunked'], 'zz\r\nabc\r\n0\r\n\r\n'],
      [['Transfer-Encoding: chunked'], '5\r\nabcdefgh\r\n0\r\n\r\n'],
      [['Transfer-Encoding: chunked'], `3;${'e'.repeat(20000)}\r\nabc\r\n0\r\n\r\n`],
      [['Transfer-Encoding: gzip'], 'abc'],
      [['Content-Length: 3', 'Transfer-Encoding: chunked', 'Transfer-Encoding: chunked'], '0\r\n\r\n'],
    ];
    const [headers, body] = r.pick(variants);
    return {
      bytes: build({
        method: 'POST',
        target,
        headers: ['Host: shop.test', 'Content-Type: application/json', ...headers],
        body,
      }),
    };
  },

  'truncated body': (r) => {
    const target = r.pick(POST_ROUTES);
    const full = JSON.stringify({ email: 'someone@example.test', password: 'x'.repeat(r.int(200)) });
    const sent = full.slice(0, r.int(full.length));
    if (r.next() < 0.5) {
      return {
        bytes: build({
          method: 'POST',
          target,
          headers: ['Host: shop.test', 'Content-Type: application/json', `Content-Length: ${full.length}`],
          body: sent,
        }),
        endAfterWrite: true,
      };
    }
    const chunk = `${sent.length.toString(16)}\r\n${sent}\r\n`;
    return {
      bytes: build({
        method: 'POST',
        target,
        headers: ['Host: shop.test', 'Content-Type: application/json', 'Transfer-Encoding: chunked'],
        body: chunk,
      }),
      endAfterWrite: true,
    };
  },

  'malformed JSON': (r) => {
    const bodies = [
      '{',
      '{"email":',
      '{"email": "a@b.c",}',
      "{'email': 'a'}",
      '[1,2',
      'nul',
      '{"a":1}{"b":2}',
      '\u0000',
      '"just a string"',
      '1e999999',
      '{"email": "\\ud800"}',
      '{"email": "\\x41"}',
      'undefined',
      '{"__proto__": {"admin": true}, "email": 5}',
    ];
    return { bytes: jsonPost(r.pick(['/api/login', '/api/cart/lines', '/api/checkout']), r.pick(bodies)) };
  },

  'deeply nested JSON': (r) => {
    const depth = 513 + r.int(20_000);
    const open = r.pick(['[', '{"a":']);
    const close = open === '[' ? ']' : '}';
    const body = open.repeat(depth) + (open === '[' ? '' : '1') + (r.next() < 0.5 ? close.repeat(depth) : '');
    return { bytes: jsonPost(r.pick(['/api/login', '/api/cart/lines']), body) };
  },

  'huge JSON': (r) => {
    const size = 1_048_577 + r.int(200_000);
    const body = `{"email":"a@b.c","password":"${'p'.repeat(size)}"}`;
    return { bytes: jsonPost(r.pick(['/api/login', '/api/cart/lines']), body) };
  },

  'malformed form body': (r) => {
    const bodies = [
      'email=%zz',
      'a%=1',
      `a${'[b]'.repeat(40)}=1`,
      '%ff%fe=1',
      Array.from({ length: 1200 }, (_, i) => `p${i}=1`).join('&'),
    ];
    const body = r.pick(bodies);
    return {
      bytes: build({
        method: 'POST',
        target: r.pick(['/login', '/register', '/cart/lines']),
        headers: [
          'Host: shop.test',
          'Content-Type: application/x-www-form-urlencoded',
          `Content-Length: ${Buffer.byteLength(body)}`,
        ],
        body,
      }),
    };
  },

  'path traversal in profiler tokens': (r) => {
    const token = r.pick(TRAVERSAL);
    const target = r.pick([
      `/_profiler/${token}`,
      `/_profiler/${token}.json`,
      `/_profiler/${token}?panel=${r.pick(['../../x', 'request', '<x>'])}`,
      `/_profiler/abc123?panel=${encodeURIComponent(r.pick(TRAVERSAL))}`,
    ]);
    return {
      bytes: build({ target: target.replace(/ /g, '%20'), accept: r.next() < 0.2 ? 'text/html' : 'application/json' }),
    };
  },

  'bad search and paging parameters': (r) => {
    const targets = [
      `/_profiler/search?limit=${r.pick(['-1', 'abc', '1e9', '0', '99999999999999999999'])}`,
      `/_profiler/search?status=${r.pick(['abc', '6000', '-1', '4x'])}`,
      `/_profiler/search?start=${r.pick(['yesterday', '32-13-2026', '9999999999999999'])}`,
      `/products?page=${r.pick(['abc', '-1', '0', '1.5', '1e3', '0x10', ''])}`,
      `/products?page=${100_000 + r.int(1_000_000)}`,
      `/products?sort=${r.pick(['../', 'drop table', 'price;', XSS])}`,
    ];
    return {
      bytes: build({
        target: r.pick(targets).replace(/[<> ]/g, encodeURIComponent),
        accept: r.next() < 0.2 ? 'text/html' : 'application/json',
      }),
    };
  },

  'unknown paths and methods': (r) => {
    const method = r.pick(['GET', 'DELETE', 'PUT', 'PATCH', 'POST', 'BREW', 'PROPFIND']);
    const unknown =
      r.next() < 0.1
        ? `${'/'.repeat(1000 + r.int(7000))}x`
        : `/${r.pick(['nope', 'wp-admin', '.env', '.git/config', 'admin.php'])}/${r.int(1e6)}?q=${encodeURIComponent(XSS)}`;
    const target = method === 'GET' ? unknown : r.pick(['/products', '/', '/_profiler/latest', '/categories/lighting']);
    return {
      bytes: build({
        method,
        target,
        accept: r.next() < 0.3 ? 'text/html' : 'application/json',
        headers: ['Host: shop.test', `Referer: https://evil.test/${encodeURIComponent(XSS)}`],
      }),
    };
  },

  'oversized request': (r) => {
    const variants: Array<() => Buffer> = [
      () => build({ target: `/products?q=${'a'.repeat(8200 + r.int(4000))}` }),
      () => build({ target: `/${'a'.repeat(20_000 + r.int(20_000))}` }),
      () =>
        build({
          target: '/products',
          headers: ['Host: shop.test', ...Array.from({ length: 101 + r.int(50) }, (_, i) => `X-F${i}: 1`)],
        }),
      () =>
        build({ target: '/products', headers: ['Host: shop.test', `X-Big: ${'b'.repeat(17_000 + r.int(10_000))}`] }),
    ];
    return { bytes: r.pick(variants)() };
  },
};

/** `count` requests, the generators taking turns at random (the expensive huge-JSON one more rarely). */
export function* malformedRequests(seed: number, count: number): Generator<MalformedRequest> {
  const r = new Random(seed);
  const kinds = Object.keys(GENERATORS);
  for (let i = 0; i < count; i++) {
    let kind = r.pick(kinds);
    if (kind === 'huge JSON' && r.next() < 0.9) kind = 'malformed JSON';
    yield { kind, ...GENERATORS[kind](r) };
  }
}
