import { MalformedRequestException } from '../exceptions/malformed-request.exception.js';
import { requireUtf8Body, UnsupportedBodyCharsetError } from './body-encoding.js';

const check = (body: Buffer | number[], charset = 'utf-8') =>
  requireUtf8Body(undefined, undefined, Buffer.from(body as Buffer), charset);

describe('requireUtf8Body', () => {
  it('accepts UTF-8, a UTF-8 BOM, and characters outside the BMP', () => {
    expect(() => check(Buffer.from('{"a":"zoë 😀"}'))).not.toThrow();
    expect(() => check(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')]))).not.toThrow();
    expect(() => check(Buffer.alloc(0))).not.toThrow();
  });

  it("refuses another declared charset as body-parser's charset.unsupported, a 415", () => {
    let error: unknown;
    try {
      check(Buffer.from('{}'), 'utf-16le');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnsupportedBodyCharsetError);
    expect(error).toMatchObject({
      type: 'charset.unsupported',
      status: 415,
      charset: 'utf-16le',
      message: 'The request body\'s charset "utf-16le" is not supported: send UTF-8.',
    });
  });

  it('names a UTF-16 or UTF-32 byte order mark, the longest that matches', () => {
    expect(() => check([0xff, 0xfe, 0x7b, 0x00])).toThrow('The request body is UTF-16LE');
    expect(() => check([0xfe, 0xff, 0x00, 0x7b])).toThrow('The request body is UTF-16BE');
    expect(() => check([0xff, 0xfe, 0x00, 0x00, 0x7b, 0, 0, 0])).toThrow('The request body is UTF-32LE');
    expect(() => check([0x00, 0x00, 0xfe, 0xff, 0, 0, 0, 0x7b])).toThrow('The request body is UTF-32BE');
  });

  it.each([
    ['a stray continuation byte', [0x7b, 0x80, 0x7d]],
    ['0xFF', [0x22, 0xff, 0x22]],
    ['an overlong slash', [0x22, 0xc0, 0xaf, 0x22]],
    ['an overlong bracket', [0xe0, 0x81, 0x9b]],
    ['an encoded surrogate', [0x22, 0xed, 0xa0, 0x80, 0x22]],
    ['a truncated sequence', [0x22, 0xe2, 0x82]],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('refuses bytes that are not UTF-8: %s', (_name, body) => {
    expect(() => check(body)).toThrow(new MalformedRequestException('The request body is not valid UTF-8.'));
  });

  it('refuses NUL bytes, which UTF-16 and UTF-32 text of ASCII holds and JSON or a form never does', () => {
    expect(() => check(Buffer.from('{"a":1}', 'utf16le'))).toThrow('The request body holds NUL bytes');
    expect(() => check([0x7b, 0x00, 0x7d])).toThrow('The request body holds NUL bytes');
  });
});
