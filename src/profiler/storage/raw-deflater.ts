import { constants, createDeflateRaw, deflateRawSync, type DeflateRaw, type ZlibOptions } from 'node:zlib';

/** zlib's handle under a Node stream: what `zlib.deflateRawSync` drives (Node 12 to 24, unchanged). */
interface ZlibHandle {
  writeSync(flush: number, input: Buffer, inOffset: number, inLength: number, output: Buffer, outOffset: number, outLength: number): void;
  reset(): void;
}

const SCRATCH_BYTES = 64 * 1024;

/**
 * `deflateRawSync` with the same options, byte for byte the same output, on one zlib stream reset between inputs.
 * Node's one-shot API builds a Transform stream and a zlib state per call and closes them (with a preset dictionary
 * loaded each time): for a profile of a few KB that set-up cost about as much as the compression itself. `reset()`
 * (zlib's deflateReset, which also loads the dictionary again) is Node's public API; the synchronous write drives the
 * stream's handle the way `deflateRawSync` does. Where a Node version lacks those internals, or the stream fails, it
 * falls back to `deflateRawSync`.
 *
 * `prefix` bytes are written before the compressed data in the returned buffer (a format tag), saving a copy.
 */
export class RawDeflater {
  private stream: DeflateRaw | undefined;
  private handle: ZlibHandle | undefined;
  private state: Uint32Array | undefined;
  private readonly scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  private unusable = false;

  constructor(private readonly options: ZlibOptions) {}

  deflate(input: Buffer, prefix?: number): Buffer {
    const handle = this.open();
    if (!handle) return withPrefix(deflateRawSync(input, this.options), prefix);
    const state = this.state!;
    const pieces: Buffer[] = [];
    let total = 0;
    let inOffset = 0;
    let inLength = input.length;
    try {
      for (;;) {
        handle.writeSync(constants.Z_FINISH, input, inOffset, inLength, this.scratch, 0, SCRATCH_BYTES);
        if (this.stream!.destroyed) throw new Error('zlib stream failed');
        const availOut = state[0];
        const availIn = state[1];
        const produced = SCRATCH_BYTES - availOut;
        pieces.push(Buffer.from(this.scratch.subarray(0, produced)));
        total += produced;
        inOffset += inLength - availIn;
        inLength = availIn;
        // Output space left over: zlib has finished the stream.
        if (availOut !== 0) break;
      }
      handle.reset();
    } catch {
      this.discard();
      return withPrefix(deflateRawSync(input, this.options), prefix);
    }
    const head = prefix === undefined ? 0 : 1;
    const out = Buffer.allocUnsafe(head + total);
    if (head) out[0] = prefix!;
    let at = head;
    for (const piece of pieces) at += piece.copy(out, at);
    return out;
  }

  /** Frees zlib's state; the next `deflate` opens a new stream. */
  close(): void {
    this.discard();
  }

  private open(): ZlibHandle | undefined {
    if (this.handle || this.unusable) return this.handle;
    const stream = createDeflateRaw(this.options);
    // A failing handle destroys its stream with an error event: never an unhandled one (the write above falls back).
    stream.on('error', () => undefined);
    const internals = stream as unknown as { _handle?: Partial<ZlibHandle>; _writeState?: unknown };
    const handle = internals._handle;
    if (typeof handle?.writeSync !== 'function' || typeof handle.reset !== 'function' || !(internals._writeState instanceof Uint32Array)) {
      this.unusable = true;
      stream.close();
      return undefined;
    }
    this.stream = stream;
    this.handle = handle as ZlibHandle;
    this.state = internals._writeState;
    return this.handle;
  }

  private discard(): void {
    this.stream?.close();
    this.stream = undefined;
    this.handle = undefined;
    this.state = undefined;
  }
}

function withPrefix(data: Buffer, prefix: number | undefined): Buffer {
  if (prefix === undefined) return data;
  const out = Buffer.allocUnsafe(data.length + 1);
  out[0] = prefix;
  data.copy(out, 1);
  return out;
}
