import { jest } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { KernelLogger } from '../src/lifecycle/logging/kernel-logger.js';
import { LogLevel } from '../src/lifecycle/logging/log-level.js';
import { startTestServer, type TestServer } from './support/browser.js';
import { rawRequest } from './support/raw-http.js';

/**
 * Request bodies are read as UTF-8 only: another declared charset is a 415, bytes that are not UTF-8 JSON (or form)
 * text a 400, with the same status in debug and in production, never a 500.
 */

const LOGIN = '{"email":"nobody@example.com","password":"not the password"}';
const DEEP = '['.repeat(20_000) + ']'.repeat(20_000);
const utf16be = (text: string): Buffer => Buffer.from(text, 'utf16le').swap16();
const utf32le = (text: string): Buffer => Buffer.from([...text].flatMap((c) => [c.charCodeAt(0), 0, 0, 0]));
const bytes = (...parts: Array<string | number[]>): Buffer =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

const NOT_UTF8 = 'The request body is not valid UTF-8.';
const NUL_BYTES = 'The request body holds NUL bytes, as UTF-16 or UTF-32 text does; request bodies are read as UTF-8.';
const bomMessage = (encoding: string) =>
  `The request body is ${encoding} (it starts with that byte order mark); request bodies are read as UTF-8.`;
const charsetMessage = (charset: string) => `The request body's charset "${charset}" is not supported: send UTF-8.`;

interface BodyCase {
  name: string;
  type: string;
  body: Buffer;
  status: 400 | 415;
  detail: string;
}

const JSON_CASES: BodyCase[] = [
  // Declared in another charset.
  {
    name: 'UTF-16LE declared',
    type: 'application/json; charset=utf-16le',
    body: Buffer.from(LOGIN, 'utf16le'),
    status: 415,
    detail: charsetMessage('utf-16le'),
  },
  {
    name: 'UTF-16 declared, quoted and upper-case',
    type: 'application/json; charset="UTF-16"',
    body: utf16be(LOGIN),
    status: 415,
    detail: charsetMessage('utf-16'),
  },
  {
    name: 'UTF-16BE declared',
    type: 'application/json; charset=utf-16be',
    body: utf16be(LOGIN),
    status: 415,
    detail: charsetMessage('utf-16be'),
  },
  {
    name: 'UTF-32 declared',
    type: 'application/json; charset=utf-32',
    body: utf32le(LOGIN),
    status: 415,
    detail: charsetMessage('utf-32'),
  },
  {
    name: 'UTF-7 declared',
    type: 'application/json; charset=utf-7',
    body: Buffer.from(LOGIN),
    status: 415,
    detail: charsetMessage('utf-7'),
  },
  {
    name: 'latin1 declared',
    type: 'application/json; charset=latin1',
    body: Buffer.from(LOGIN, 'latin1'),
    status: 415,
    detail: charsetMessage('latin1'),
  },
  {
    name: 'ISO-8859-1 declared',
    type: 'application/json; charset=ISO-8859-1',
    body: Buffer.from(LOGIN, 'latin1'),
    status: 415,
    detail: charsetMessage('iso-8859-1'),
  },
  {
    name: 'an unknown charset',
    type: 'application/json; charset=klingon',
    body: Buffer.from(LOGIN),
    status: 415,
    detail: charsetMessage('klingon'),
  },
  // The body the finding named: UTF-16 JSON nested past the limit, hidden from a byte-wise count by a U+2200 (00 22).
  {
    name: 'UTF-16LE nested past the limit behind a quote byte',
    type: 'application/json; charset=utf-16le',
    body: Buffer.from(`{"email":"\u2200","password":"x","z":${DEEP}}`, 'utf16le'),
    status: 415,
    detail: charsetMessage('utf-16le'),
  },
  // Sent as plain application/json.
  {
    name: 'UTF-16LE undeclared',
    type: 'application/json',
    body: Buffer.from(LOGIN, 'utf16le'),
    status: 400,
    detail: NUL_BYTES,
  },
  { name: 'UTF-16BE undeclared', type: 'application/json', body: utf16be(LOGIN), status: 400, detail: NUL_BYTES },
  { name: 'UTF-32LE undeclared', type: 'application/json', body: utf32le(LOGIN), status: 400, detail: NUL_BYTES },
  {
    name: 'UTF-16LE with its BOM',
    type: 'application/json',
    body: bytes([0xff, 0xfe], [...Buffer.from(LOGIN, 'utf16le')]),
    status: 400,
    detail: bomMessage('UTF-16LE'),
  },
  {
    name: 'UTF-16BE with its BOM',
    type: 'application/json',
    body: bytes([0xfe, 0xff], [...utf16be(LOGIN)]),
    status: 400,
    detail: bomMessage('UTF-16BE'),
  },
  {
    name: 'UTF-32LE with its BOM',
    type: 'application/json',
    body: bytes([0xff, 0xfe, 0, 0], [...utf32le(LOGIN)]),
    status: 400,
    detail: bomMessage('UTF-32LE'),
  },
  {
    name: 'UTF-32BE with its BOM',
    type: 'application/json',
    body: bytes([0, 0, 0xfe, 0xff], [...utf32le(LOGIN)].reverse()),
    status: 400,
    detail: bomMessage('UTF-32BE'),
  },
  {
    name: 'UTF-16LE with its BOM, declared UTF-8',
    type: 'application/json; charset=utf-8',
    body: bytes([0xff, 0xfe], [...Buffer.from(LOGIN, 'utf16le')]),
    status: 400,
    detail: bomMessage('UTF-16LE'),
  },
  {
    name: 'UTF-16LE nested past the limit, undeclared',
    type: 'application/json',
    body: Buffer.from(`{"email":"\u2200","z":${DEEP}}`, 'utf16le'),
    status: 400,
    detail: NUL_BYTES,
  },
  // Bytes that are not UTF-8.
  {
    name: 'a stray 0xFF byte',
    type: 'application/json',
    body: bytes('{"email":"a', [0xff], '","password":"x"}'),
    status: 400,
    detail: NOT_UTF8,
  },
  {
    name: 'latin1 bytes undeclared',
    type: 'application/json',
    body: Buffer.from('{"email":"café@example.com","password":"x"}', 'latin1'),
    status: 400,
    detail: NOT_UTF8,
  },
  {
    name: 'an overlong "/" (C0 AF)',
    type: 'application/json',
    body: bytes('{"email":"a', [0xc0, 0xaf], '","password":"x"}'),
    status: 400,
    detail: NOT_UTF8,
  },
  {
    name: 'an overlong "[" (E0 81 9B)',
    type: 'application/json',
    body: bytes('{"email":"a","z":', [0xe0, 0x81, 0x9b], ']}'),
    status: 400,
    detail: NOT_UTF8,
  },
  {
    name: 'an encoded lone surrogate (ED A0 80)',
    type: 'application/json',
    body: bytes('{"email":"a', [0xed, 0xa0, 0x80], '","password":"x"}'),
    status: 400,
    detail: NOT_UTF8,
  },
  {
    name: 'a truncated sequence at the end',
    type: 'application/json',
    body: bytes('{"email":"a","password":"x"}', [0xe2, 0x82]),
    status: 400,
    detail: NOT_UTF8,
  },
  {
    name: 'a code point past U+10FFFF (F4 90 80 80)',
    type: 'application/json',
    body: bytes('{"email":"', [0xf4, 0x90, 0x80, 0x80], '"}'),
    status: 400,
    detail: NOT_UTF8,
  },
  {
    name: 'a raw NUL in a string',
    type: 'application/json',
    body: bytes('{"email":"a', [0], '","password":"x"}'),
    status: 400,
    detail: NUL_BYTES,
  },
];

const FORM_CASES: BodyCase[] = [
  {
    name: 'a form declared ISO-8859-1',
    type: 'application/x-www-form-urlencoded; charset=iso-8859-1',
    body: Buffer.from('email=caf%E9&password=x'),
    status: 415,
    detail: charsetMessage('iso-8859-1'),
  },
  {
    name: 'a form declared UTF-16LE',
    type: 'application/x-www-form-urlencoded; charset=utf-16le',
    body: Buffer.from('email=a&password=x', 'utf16le'),
    status: 415,
    detail: charsetMessage('utf-16le'),
  },
  {
    name: 'a form declared windows-1252',
    type: 'application/x-www-form-urlencoded; charset=windows-1252',
    body: Buffer.from('email=a&password=x'),
    status: 415,
    detail: charsetMessage('windows-1252'),
  },
  {
    name: 'a form in UTF-16LE undeclared',
    type: 'application/x-www-form-urlencoded',
    body: Buffer.from('email=a&password=x', 'utf16le'),
    status: 400,
    detail: NUL_BYTES,
  },
  {
    name: 'a form with raw latin1 bytes',
    type: 'application/x-www-form-urlencoded',
    body: Buffer.from('email=café&password=x', 'latin1'),
    status: 400,
    detail: NOT_UTF8,
  },
];

/** A POST as bytes, exactly as given. */
function post(path: string, type: string, body: Buffer, accept = 'application/json'): Buffer {
  const head = `POST ${path} HTTP/1.1\r\nHost: shop.test\r\nAccept: ${accept}\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

const TITLES = { 400: 'Bad Request', 415: 'Unsupported Media Type' };

describe.each([
  { mode: 'debug', env: {} as Record<string, string>, detailed: true },
  { mode: 'production', env: { APP_ENV: 'prod', APP_DEBUG: '0' }, detailed: false },
])('Request body encodings ($mode)', ({ env, detailed }) => {
  let server: TestServer;
  let port: number;
  let critical: string[];

  beforeAll(async () => {
    server = await startTestServer({ env });
    port = (server.app.getHttpServer().address() as AddressInfo).port;
    const logger = server.app.get(KernelLogger);
    const record = logger.record.bind(logger);
    critical = [];
    jest.spyOn(logger, 'record').mockImplementation((level, channel, message, ...rest) => {
      if (level >= LogLevel.CRITICAL) critical.push(`${channel}: ${message}`);
      return record(level, channel, message, ...rest);
    });
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await server?.app.close();
  });

  afterEach(() => {
    expect(critical).toEqual([]);
  });

  async function expectProblem(path: string, c: BodyCase): Promise<void> {
    const response = await rawRequest(port, post(path, c.type, c.body), { readBody: true });
    expect({ status: response.status, type: response.headers['content-type'] }).toEqual({
      status: c.status,
      type: 'application/problem+json; charset=utf-8',
    });
    const problem = JSON.parse(response.body);
    expect(problem).toMatchObject({ status: c.status, title: TITLES[c.status] });
    // Production states a malformed request's message (the client's own input: clientMessageOf), else the title.
    expect(problem.detail).toBe(detailed || c.status === 400 ? c.detail : TITLES[c.status]);
  }

  describe.each(['/api/login', '/api/cart/lines'])('a JSON body to %s', (path) => {
    it.each(JSON_CASES)('answers $name with $status', (c) => expectProblem(path, c));
  });

  describe.each(['/api/login', '/login', '/cart/lines'])('a form body to %s', (path) => {
    it.each(FORM_CASES)('answers $name with $status', (c) => expectProblem(path, c));
  });

  it('still reads UTF-8 JSON, with or without a UTF-8 BOM or a declared charset', async () => {
    for (const [type, body] of [
      ['application/json', Buffer.from(LOGIN)],
      ['application/json; charset=UTF-8', Buffer.from(LOGIN)],
      ['application/json; charset="utf-8"', bytes([0xef, 0xbb, 0xbf], LOGIN)],
      ['application/json', Buffer.from('{"email":"zoë@example.com","password":"😀 not it"}')],
    ] as const) {
      const response = await rawRequest(port, post('/api/login', type, body), { readBody: true });
      expect({ type, status: response.status }).toEqual({ type, status: 401 });
    }
  });

  it('still reads a UTF-8 form, its escapes decoded as UTF-8', async () => {
    const response = await rawRequest(
      port,
      post(
        '/login',
        'application/x-www-form-urlencoded; charset=utf-8',
        Buffer.from('email=zo%C3%AB%40example.com&password=x'),
      ),
      { readBody: true },
    );
    // The login form's CSRF check answers: the body was read.
    expect(response.status).toBe(403);
  });

  it('keeps the nesting limit for UTF-8 JSON', async () => {
    const response = await rawRequest(port, post('/api/login', 'application/json', Buffer.from(DEEP)), {
      readBody: true,
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).detail).toBe('The JSON body is nested deeper than 512 levels.');
  });
});
