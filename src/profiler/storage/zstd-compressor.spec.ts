import { randomBytes } from 'node:crypto';
import { constants, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { ZstdCompressor } from './zstd-compressor.js';

const DICTIONARY = Buffer.from('{"request":{"method":"GET","headers":{"host":"127.0.0.1:3000"}},"logs":[] '.repeat(50));
const LEVEL = 3;

/** What Node's own one-shot zstd writes for `input`: the frames the kept context must reproduce byte for byte. */
function oneShot(input: Uint8Array): Buffer {
  const params = { [constants.ZSTD_c_compressionLevel]: LEVEL };
  return zstdCompressSync(input, { params, dictionary: DICTIONARY, pledgedSrcSize: input.length });
}

const json = (n: number) =>
  Buffer.from(JSON.stringify({ request: { method: 'GET', path: `/products/${n}` }, logs: Array(n).fill('entry') }));

describe('ZstdCompressor', () => {
  it('writes, through its kept context, the frames one-shot zstd writes, call after call', () => {
    const compressor = new ZstdCompressor(DICTIONARY, LEVEL);
    // Empty, tiny, compressible, and incompressible input whose frame is larger than one output chunk (64 KiB).
    const inputs = [Buffer.alloc(0), Buffer.from('x'), json(3), json(2000), randomBytes(200_000), json(5), json(3)];
    for (const [i, input] of inputs.entries()) {
      // Room for the caller's header before the frame: none, or a few bytes.
      const header = i % 3;
      const blob = compressor.compress(input, header);
      expect(blob.subarray(header).equals(oneShot(input))).toBe(true);
      expect(compressor.decompress(blob.subarray(header)).equals(input)).toBe(true);
    }
    // Written by the kept context, not by the fallback.
    expect((compressor as unknown as { engine: unknown }).engine).toBeDefined();
  });

  it('falls back to one-shot compression for good when its context fails, losing no frame', () => {
    const compressor = new ZstdCompressor(DICTIONARY, LEVEL);
    compressor.compress(json(1), 1);
    const kept = compressor as unknown as { engine: { _handle: { writeSync: () => void } } };
    kept.engine._handle.writeSync = () => {
      throw new Error('native context lost');
    };
    for (const n of [1, 2, 3]) {
      const blob = compressor.compress(json(n), 1);
      expect(zstdDecompressSync(blob.subarray(1), { dictionary: DICTIONARY }).equals(json(n))).toBe(true);
      expect(blob.subarray(1).equals(oneShot(json(n)))).toBe(true);
    }
    expect((compressor as unknown as { engine: unknown }).engine).toBeUndefined();
  });
});
