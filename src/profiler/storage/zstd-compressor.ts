import { constants, zstdCompressSync, zstdDecompressSync, type ZstdOptions } from 'node:zlib';

/** Larger contents are refused: no profile is that big, so the blob is corrupt. */
const MAX_CONTENT_BYTES = 256 * 1024 * 1024;

/**
 * Zstandard with one raw-content dictionary, through Node's zlib (zstd with a dictionary since Node 22.19 and 24.6).
 * The frames are byte for byte those of zstd-napi's ZSTD_compress_usingCDict (same level, same dictionary, the content
 * size in the header, no dictionary ID, no checksum), so blobs decode with older versions of the application too.
 *
 * Node's zlib has no prepared dictionaries (ZSTD_CDict): most of the cost is the zlib object each call builds, not
 * loading the dictionary again.
 *
 * Synchronous: the codec encodes a write batch inline (see ProfileCodec), and decoding one profile is quick.
 */
export class ZstdCompressor {
  private readonly compressOptions: ZstdOptions;
  private readonly decompressOptions: ZstdOptions;

  constructor(dictionary: Uint8Array, level: number) {
    const params = { [constants.ZSTD_c_compressionLevel]: level };
    this.compressOptions = { params, dictionary };
    this.decompressOptions = { dictionary, maxOutputLength: MAX_CONTENT_BYTES };
  }

  /** One zstd frame of `input`, after a first byte `prefix` (the blob's format tag). */
  compress(input: Uint8Array, prefix: number): Buffer {
    const frame = zstdCompressSync(input, { ...this.compressOptions, pledgedSrcSize: input.length });
    const blob = Buffer.allocUnsafe(frame.length + 1);
    blob[0] = prefix;
    frame.copy(blob, 1);
    return blob;
  }

  decompress(frame: Uint8Array): Buffer {
    try {
      return zstdDecompressSync(frame, this.decompressOptions);
    } catch (error) {
      throw new Error(`Corrupt zstd profile blob (${(error as Error).message})`, { cause: error });
    }
  }
}
