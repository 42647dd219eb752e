import { isUtf8 } from 'node:buffer';
import { MalformedRequestException } from '../exceptions/malformed-request.exception.js';

/**
 * The one charset request bodies are read in: RFC 8259 makes JSON UTF-8, browsers send forms in their page's charset
 * (ours is UTF-8), and the checks that read a body's bytes (the JSON nesting limit) see ASCII only in valid UTF-8.
 */
export const BODY_CHARSET = 'utf-8';

/** Byte order marks of the encodings a client may send by mistake, longest first (UTF-32LE begins like UTF-16LE). */
const FOREIGN_BOMS: Array<[string, number[]]> = [
  ['UTF-32LE', [0xff, 0xfe, 0x00, 0x00]],
  ['UTF-32BE', [0x00, 0x00, 0xfe, 0xff]],
  ['UTF-16LE', [0xff, 0xfe]],
  ['UTF-16BE', [0xfe, 0xff]],
];

/** A body declared in another charset: body-parser's `charset.unsupported` error, which the kernel answers 415. */
export class UnsupportedBodyCharsetError extends Error {
  readonly type = 'charset.unsupported';
  readonly status = 415;

  constructor(readonly charset: string) {
    super(unsupportedCharsetMessage(charset));
  }
}

/** The 415's message for a body declared in `charset`. */
export function unsupportedCharsetMessage(charset: string): string {
  return `The request body's charset ${JSON.stringify(charset.slice(0, 40))} is not supported: send UTF-8.`;
}

/**
 * body-parser's `verify` hook for every body: declared UTF-8 (or nothing), and its bytes valid UTF-8 (no overlong
 * forms, no encoded surrogates) without NUL bytes, which no JSON or form body holds but UTF-16 and UTF-32 text does.
 */
export function requireUtf8Body(_req: unknown, _res: unknown, body: Buffer, charset: string): void {
  if (charset !== BODY_CHARSET) throw new UnsupportedBodyCharsetError(charset);
  const bom = FOREIGN_BOMS.find(([, mark]) => mark.every((byte, i) => body[i] === byte));
  if (bom) {
    throw new MalformedRequestException(
      `The request body is ${bom[0]} (it starts with that byte order mark); request bodies are read as UTF-8.`,
    );
  }
  if (!isUtf8(body)) throw new MalformedRequestException('The request body is not valid UTF-8.');
  if (body.includes(0)) {
    throw new MalformedRequestException(
      'The request body holds NUL bytes, as UTF-16 or UTF-32 text does; request bodies are read as UTF-8.',
    );
  }
}
