import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import { configure } from 'safe-stable-stringify';
import { DICTIONARY_V2 } from './profile-dictionary-v2.js';
import { profileJson } from './profile-json.js';
import { ZstdCompressor } from './zstd-compressor.js';

const inflateRawAsync = promisify(inflateRaw);

/** JSON of anything that is not plain JSON (BigInt, cycles): a profile must never fail to encode. */
const lenientStringify = configure({ bigint: true, circularValue: '[Circular]', deterministic: false });

/**
 * The blob formats, by their one-byte tag (the blob's first byte). One is written; the older ones are read where
 * that is cheap, and format 1, whose dictionary this version no longer carries, reads as OLDER_FORMAT.
 */
export const ProfileFormat = {
  /** UTF-8 JSON, uncompressed (read only). */
  JSON: 0x00,
  /** Raw deflate with an older dictionary (not read: OLDER_FORMAT). */
  DEFLATE_DICTIONARY_V1: 0x01,
  /** Raw deflate of the UTF-8 JSON with `DICTIONARY_V2` as preset dictionary (read only). */
  DEFLATE_DICTIONARY_V2: 0x02,
  /** One Zstandard frame of the UTF-8 JSON, with `DICTIONARY_V2` as its raw-content dictionary: what is written. */
  ZSTD_DICTIONARY_V2: 0x03,
} as const;

/** The data of a profile whose blob this version cannot read: its page says it came from an older version. */
export const OLDER_FORMAT = '_olderFormat';

/** zstd's level 1: with the dictionary, higher levels cost noticeably more time for blobs barely smaller. */
const LEVEL = 1;
/** Longest a write batch is encoded without letting requests in between (milliseconds). */
const ENCODE_SLICE_MS = 4;

/**
 * Encodes a profile's collector data to a compact blob and back: JSON, then a zstd frame with a preset dictionary
 * (format 3), through one reused compression context. Each blob starts with its format tag (ProfileFormat).
 *
 * Encoding runs synchronously when a write batch is stored, after the responses were sent: a profile's JSON and
 * compression cost the event loop less than a round trip to a worker thread or the thread pool would. A batch is
 * encoded in slices of about ENCODE_SLICE_MS, with a turn of the event loop between them.
 */
export class ProfileCodec {
  /** The dictionary of format 2 (read-only use: tests pin it). */
  static readonly dictionaryV2: Buffer = DICTIONARY_V2;

  async encode(data: Record<string, unknown>): Promise<Buffer> {
    return encodeNow(data);
  }

  /** encode(), for a caller that cannot wait for the event loop (a crash's last write). */
  encodeSync(data: Record<string, unknown>): Buffer {
    return encodeNow(data);
  }

  /** Encodes a write batch, in order, yielding to the event loop every ENCODE_SLICE_MS so requests go on. */
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

/** One compression context and prepared dictionary for every blob this thread encodes and decodes. */
const compressor = new ZstdCompressor(DICTIONARY_V2, LEVEL);

/**
 * The JSON's UTF-8 is written here, then compressed into a blob of its own: a profile's JSON is larger than what
 * Buffer.from takes from Node's pool, so it would be an allocation of its own for every profile. Never returned nor
 * kept: the blob is a copy.
 */
const JSON_SCRATCH = Buffer.allocUnsafe(64 * 1024);

function encodeNow(data: Record<string, unknown>): Buffer {
  const text = stringify(data);
  // At most three UTF-8 bytes per UTF-16 code unit.
  const json =
    text.length * 3 <= JSON_SCRATCH.length
      ? JSON_SCRATCH.subarray(0, JSON_SCRATCH.write(text, 'utf8'))
      : Buffer.from(text, 'utf8');
  return compressor.compress(json, ProfileFormat.ZSTD_DICTIONARY_V2);
}

function stringify(data: Record<string, unknown>): string {
  try {
    return profileJson(data);
  } catch {
    return lenientStringify(data) ?? '{}';
  }
}
