import { MalformedRequestException } from '../exceptions/malformed-request.exception.js';

/**
 * How deep a JSON body may nest (arrays and objects), as PHP's json_decode: JSON.parse itself copes with deeper
 * input, but whatever walks the result recursively afterwards (class-transformer in the validation pipe, the
 * profiler's redaction) would overflow the stack, a 500 for the client's error.
 */
export const MAX_JSON_DEPTH = 512;

/** body-parser's `verify` hook: a JSON body nested deeper than MAX_JSON_DEPTH is a 400 before it is parsed. */
export function rejectDeepJson(_req: unknown, _res: unknown, body: Buffer): void {
  if (jsonDepthExceeds(body, MAX_JSON_DEPTH)) {
    throw new MalformedRequestException(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  }
}

/**
 * Whether the JSON text in `body` (UTF-8) opens more than `max` arrays or objects inside each other; brackets
 * inside strings do not count. One pass over the bytes, without parsing; the text need not be valid JSON.
 */
export function jsonDepthExceeds(body: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === 0x5c)
        i++; // backslash: the next character is escaped
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) {
      inString = true;
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > max) return true;
    } else if ((byte === 0x5d || byte === 0x7d) && depth > 0) {
      depth--;
    }
  }
  return false;
}
