import { inflateRawSync } from 'node:zlib';
import { configure } from 'safe-stable-stringify';
import { DICTIONARY_V2 } from './profile-dictionary-v2.js';
import { profileJsonParts } from './profile-json.js';
import { ZstdCompressor } from './zstd-compressor.js';

/** JSON of anything that is not plain JSON (BigInt, cycles): a profile must never fail to encode. */
const lenientStringify = configure({ bigint: true, circularValue: '[Circular]', deterministic: false });

/** The blob's first byte. Formats 4 and 5 are written; format 1's dictionary is gone, so it reads as OLDER_FORMAT. */
export const ProfileFormat = {
  JSON: 0x00,
  DEFLATE_DICTIONARY_V1: 0x01,
  DEFLATE_DICTIONARY_V2: 0x02,
  ZSTD_DICTIONARY_V2: 0x03,
  /** [4][start u32][length u32][zstd frame]: a write batch's JSON, carried by its newest profile (see EncodedGroup). */
  ZSTD_BATCH: 0x04,
  /** [5][the carrier's key i64][start u32][length u32]: a profile whose JSON is in another profile's frame. */
  IN_BATCH: 0x05,
} as const;

/** The data of a profile whose blob this version cannot read: its page says it came from an older version. */
export const OLDER_FORMAT = '_olderFormat';

/** With the dictionary, higher levels cost noticeably more time for blobs barely smaller. */
const LEVEL = 1;
/** Longest a write batch is encoded without letting requests in between (milliseconds). */
const ENCODE_SLICE_MS = 4;
/** A frame holds profiles up to about this much JSON: reading one profile decompresses its whole frame. */
const GROUP_BYTES = 256 * 1024;
const CARRIER_HEADER = 9;

/**
 * Profiles of a write batch whose JSON is one zstd frame: zstd costs mostly per frame, and profiles alike compress
 * better together. Once the store has given them keys, the newest carries the frame and the others point to it:
 * pruning takes the oldest first, so no profile outlives its carrier (ProfileCodec.blobs).
 */
export interface EncodedGroup {
  /** The batch's indexes of the group's profiles. */
  members: number[];
  /** Each member's JSON in the frame's content: [start, length] in bytes. */
  spans: Array<[number, number]>;
  /** The frame, after room for the carrier's header. */
  frame: Buffer;
}

/** Encoding is synchronous, in slices: cheaper for the event loop than a round trip to a worker or the thread pool. */
export class ProfileCodec {
  /** Tests pin it. */
  static readonly dictionaryV2: Buffer = DICTIONARY_V2;

  async encodeBatch(items: readonly ProfileJson[]): Promise<EncodedGroup[]> {
    const groups: EncodedGroup[] = [];
    let sliceStart = performance.now();
    for (const group of encodeGroups(items)) {
      groups.push(group);
      if (performance.now() - sliceStart >= ENCODE_SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    return groups;
  }

  /** For a crash's last write. */
  encodeBatchSync(items: readonly ProfileJson[]): EncodedGroup[] {
    return [...encodeGroups(items)];
  }

  /** The batch's blobs, given its keys: in each group, the member `newer` ranks above the others carries the frame. */
  blobs(groups: readonly EncodedGroup[], keys: readonly bigint[], newer: (a: number, b: number) => boolean): Buffer[] {
    const blobs: Buffer[] = [];
    for (const { members, spans, frame } of groups) {
      const carrier = members.reduce((best, i) => (newer(i, best) ? i : best));
      members.forEach((i, n) => {
        const pointer = i !== carrier;
        const blob = pointer ? Buffer.allocUnsafe(17) : frame;
        blob[0] = pointer ? ProfileFormat.IN_BATCH : ProfileFormat.ZSTD_BATCH;
        if (pointer) blob.writeBigInt64BE(keys[carrier], 1);
        blob.writeUInt32BE(spans[n][0], pointer ? 9 : 1);
        blob.writeUInt32BE(spans[n][1], pointer ? 13 : 5);
        blobs[i] = blob;
      });
    }
    return blobs;
  }

  /**
   * A profile's data; for one whose JSON another profile carries, `carrier` gives that profile's blob (null: it is
   * gone, as the profile is being pruned, and so is this data).
   */
  async decode(
    blob: Uint8Array,
    carrier: (key: bigint) => Uint8Array | null | Promise<Uint8Array | null> = () => null,
  ): Promise<Record<string, unknown> | null> {
    if (blob.length === 0) throw new Error('Cannot decode an empty profile blob');
    const body = Buffer.from(blob.buffer, blob.byteOffset + 1, blob.length - 1);
    const tag = blob[0];
    switch (tag) {
      case ProfileFormat.JSON:
        return JSON.parse(body.toString('utf8'));
      case ProfileFormat.DEFLATE_DICTIONARY_V1:
        return { [OLDER_FORMAT]: true };
      case ProfileFormat.DEFLATE_DICTIONARY_V2:
        return JSON.parse(inflateRawSync(body, { dictionary: DICTIONARY_V2 }).toString('utf8'));
      case ProfileFormat.ZSTD_DICTIONARY_V2:
        return JSON.parse(compressor.decompress(body).toString('utf8'));
      case ProfileFormat.ZSTD_BATCH:
        return inFrame(blob, body.readUInt32BE(0), body.readUInt32BE(4));
      case ProfileFormat.IN_BATCH: {
        const carried = await carrier(body.readBigInt64BE(0));
        return carried && inFrame(carried, body.readUInt32BE(8), body.readUInt32BE(12));
      }
      default:
        throw new Error(`Unknown profile blob format ${tag} (written by a newer version of the application?)`);
    }
  }
}

const compressor = new ZstdCompressor(DICTIONARY_V2, LEVEL);

/** A member's JSON in the frame `carrier` (a format 4 blob) holds. */
function inFrame(carrier: Uint8Array, start: number, length: number): Record<string, unknown> {
  if (carrier[0] !== ProfileFormat.ZSTD_BATCH) throw new Error('A batch profile blob points to no frame');
  const content = compressor.decompress(carrier.subarray(CARRIER_HEADER));
  if (start + length > content.length) throw new Error('A batch profile blob points past its frame');
  return JSON.parse(content.toString('utf8', start, start + length));
}

/** A profile's data, or its JSON already (packedRecord): as text or UTF-8. */
export type ProfileJson = Record<string, unknown> | string | Buffer;

/** Reused for the JSON's UTF-8; never returned nor kept: the frame is a copy. */
const SCRATCH = Buffer.allocUnsafe(GROUP_BYTES * 2);

/** Profiles up to GROUP_BYTES of JSON a frame, in order; a profile too large for that, alone. */
function* encodeGroups(items: readonly ProfileJson[]): Generator<EncodedGroup> {
  let group: EncodedGroup = { members: [], spans: [], frame: SCRATCH };
  let at = 0;
  const close = () => ({ ...group, frame: compressor.compress(SCRATCH.subarray(0, at), CARRIER_HEADER) });
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const bytes = item instanceof Buffer ? item : null;
    const parts = bytes ? [] : typeof item === 'string' ? [item] : jsonParts(item as Record<string, unknown>);
    // At most three UTF-8 bytes per UTF-16 code unit.
    const size = bytes ? bytes.length : parts.reduce((n, part) => n + part.length * 3, 0);
    if (at >= GROUP_BYTES || (at > 0 && at + size > SCRATCH.length)) {
      yield close();
      [group, at] = [{ members: [], spans: [], frame: SCRATCH }, 0];
    }
    if (size > SCRATCH.length) {
      const json = bytes ?? Buffer.from(parts.join(''), 'utf8');
      yield { members: [i], spans: [[0, json.length]], frame: compressor.compress(json, CARRIER_HEADER) };
      continue;
    }
    const start = at;
    if (bytes) at += bytes.copy(SCRATCH, at);
    for (const part of parts) at += SCRATCH.write(part, at, 'utf8');
    group.members.push(i);
    group.spans.push([start, at - start]);
  }
  if (at > 0) yield close();
}

/** The data's JSON, as pieces in order (profileJsonParts), however odd the data. */
export function jsonParts(data: Record<string, unknown>): string[] {
  try {
    return profileJsonParts(data);
  } catch {
    return [lenientStringify(data) ?? '{}'];
  }
}
