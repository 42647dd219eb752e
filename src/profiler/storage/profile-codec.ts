import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import { configure } from 'safe-stable-stringify';
import { DICTIONARY_V2 } from './profile-dictionary-v2.js';
import { profileJsonParts } from './profile-json.js';
import { ZstdCompressor } from './zstd-compressor.js';

const inflateRawAsync = promisify(inflateRaw);

/** JSON of anything that is not plain JSON (BigInt, cycles): a profile must never fail to encode. */
const lenientStringify = configure({ bigint: true, circularValue: '[Circular]', deterministic: false });

/** The blob's first byte. Only the last is written; format 1's dictionary is gone, so it reads as OLDER_FORMAT. */
export const ProfileFormat = {
  JSON: 0x00,
  DEFLATE_DICTIONARY_V1: 0x01,
  DEFLATE_DICTIONARY_V2: 0x02,
  ZSTD_DICTIONARY_V2: 0x03,
} as const;

/** The data of a profile whose blob this version cannot read: its page says it came from an older version. */
export const OLDER_FORMAT = '_olderFormat';

/** With the dictionary, higher levels cost noticeably more time for blobs barely smaller. */
const LEVEL = 1;
/** Longest a write batch is encoded without letting requests in between (milliseconds). */
const ENCODE_SLICE_MS = 4;

/** Encoding is synchronous, in slices: cheaper for the event loop than a round trip to a worker or the thread pool. */
export class ProfileCodec {
  /** Tests pin it. */
  static readonly dictionaryV2: Buffer = DICTIONARY_V2;

  async encode(data: Record<string, unknown>): Promise<Buffer> {
    return encodeNow(data);
  }

  /** For a crash's last write. */
  encodeSync(data: Record<string, unknown>): Buffer {
    return encodeNow(data);
  }

  async encodeMany(items: ReadonlyArray<Record<string, unknown>>): Promise<Buffer[]> {
    const blobs: Buffer[] = [];
    let sliceStart = performance.now();
    for (let i = 0; i < items.length; i++) {
      blobs.push(encodeNow(items[i]));
      if (i < items.length - 1 && performance.now() - sliceStart >= ENCODE_SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    return blobs;
  }

  async decode(blob: Uint8Array): Promise<Record<string, unknown>> {
    if (blob.length === 0) throw new Error('Cannot decode an empty profile blob');
    const body = Buffer.from(blob.buffer, blob.byteOffset + 1, blob.length - 1);
    const tag = blob[0];
    switch (tag) {
      case ProfileFormat.JSON:
        return JSON.parse(body.toString('utf8'));
      case ProfileFormat.DEFLATE_DICTIONARY_V1:
        return { [OLDER_FORMAT]: true };
      case ProfileFormat.DEFLATE_DICTIONARY_V2:
        return JSON.parse((await inflateRawAsync(body, { dictionary: DICTIONARY_V2 })).toString('utf8'));
      case ProfileFormat.ZSTD_DICTIONARY_V2:
        return JSON.parse(compressor.decompress(body).toString('utf8'));
      default:
        throw new Error(`Unknown profile blob format ${tag} (written by a newer version of the application?)`);
    }
  }
}

const compressor = new ZstdCompressor(DICTIONARY_V2, LEVEL);

/** Reused for the JSON's UTF-8 (too large for Buffer.from's pool); never returned nor kept: the blob is a copy. */
const JSON_SCRATCH = Buffer.allocUnsafe(64 * 1024);

function encodeNow(data: Record<string, unknown>): Buffer {
  const parts = jsonParts(data);
  let length = 0;
  for (const part of parts) length += part.length;
  // At most three UTF-8 bytes per UTF-16 code unit.
  if (length * 3 > JSON_SCRATCH.length) return compressor.compress(Buffer.from(parts.join(''), 'utf8'), FORMAT);
  let at = 0;
  for (const part of parts) at += JSON_SCRATCH.write(part, at, 'utf8');
  return compressor.compress(JSON_SCRATCH.subarray(0, at), FORMAT);
}

const FORMAT = ProfileFormat.ZSTD_DICTIONARY_V2;

function jsonParts(data: Record<string, unknown>): string[] {
  try {
    return profileJsonParts(data);
  } catch {
    return [lenientStringify(data) ?? '{}'];
  }
}
