import { constants, createZstdCompress, zstdCompressSync, zstdDecompressSync, type ZstdOptions } from 'node:zlib';

/** Larger contents are refused: no profile is that big, so the blob is corrupt. */
const MAX_CONTENT_BYTES = 256 * 1024 * 1024;
const OUT_CHUNK_BYTES = 64 * 1024;

/** What Node's own zstdCompressSync drives of a zlib stream's native handle (lib/zlib.js, processChunkSync). */
interface NativeEngine {
  _handle?: {
    writeSync(
      flush: number,
      input: Uint8Array,
      inOff: number,
      inLen: number,
      out: Buffer,
      outOff: number,
      outLen: number,
    ): void;
  } | null;
  _writeState?: Uint32Array;
  /** Set synchronously when the handle reports an error. */
  _hadError?: boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * The frames are byte for byte zstd-napi's, so older versions of the application decode them. `zstdCompressSync`
 * loads the dictionary on every call: this drives the handle as it does but keeps the context, else falls back.
 */
export class ZstdCompressor {
  private readonly compressOptions: ZstdOptions;
  private readonly decompressOptions: ZstdOptions;
  private engine: NativeEngine | undefined;
  private engineFailed = false;
  private readonly out = Buffer.allocUnsafe(OUT_CHUNK_BYTES);

  constructor(dictionary: Uint8Array, level: number) {
    const params = { [constants.ZSTD_c_compressionLevel]: level };
    this.compressOptions = { params, dictionary };
    this.decompressOptions = { dictionary, maxOutputLength: MAX_CONTENT_BYTES };
  }

  /** One zstd frame of `input`, after `headerBytes` left for the blob's header (its format tag first). */
  compress(input: Uint8Array, headerBytes: number): Buffer {
    const frame =
      this.compressReused(input) ?? zstdCompressSync(input, { ...this.compressOptions, pledgedSrcSize: input.length });
    const blob = Buffer.allocUnsafe(frame.length + headerBytes);
    frame.copy(blob, headerBytes);
    return blob;
  }

  decompress(frame: Uint8Array): Buffer {
    try {
      return zstdDecompressSync(frame, this.decompressOptions);
    } catch (error) {
      throw new Error(`Corrupt zstd profile blob (${(error as Error).message})`, { cause: error });
    }
  }

  /** undefined: no context to use (the caller falls back). */
  private compressReused(input: Uint8Array): Buffer | undefined {
    const engine = this.reusableEngine();
    const handle = engine?._handle;
    const state = engine?._writeState;
    if (!engine || !handle || !state) return undefined;
    const chunks: Buffer[] = [];
    let inOff = 0;
    let inLen = input.length;
    try {
      for (;;) {
        handle.writeSync(constants.ZSTD_e_end, input, inOff, inLen, this.out, 0, OUT_CHUNK_BYTES);
        if (engine._hadError || this.engineFailed) {
          this.engineFailed = true;
          break;
        }
        const [outLeft, inLeft] = state;
        if (outLeft < OUT_CHUNK_BYTES) chunks.push(Buffer.from(this.out.subarray(0, OUT_CHUNK_BYTES - outLeft)));
        inOff += inLen - inLeft;
        inLen = inLeft;
        // Room left in the output means zstd wrote the whole frame.
        if (outLeft !== 0) return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      }
    } catch {
      this.engineFailed = true;
    }
    this.engine = undefined;
    return undefined;
  }

  private reusableEngine(): NativeEngine | undefined {
    if (this.engine || this.engineFailed) return this.engine;
    const engine = createZstdCompress(this.compressOptions) as unknown as NativeEngine;
    if (typeof engine._handle?.writeSync !== 'function' || !ArrayBuffer.isView(engine._writeState)) {
      this.engineFailed = true;
      return undefined;
    }
    // A failing context reports through the stream: never as an uncaught 'error' event.
    engine.on('error', () => {
      this.engineFailed = true;
    });
    this.engine = engine;
    return engine;
  }
}
