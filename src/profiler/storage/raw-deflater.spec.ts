import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { ProfileCodec } from './profile-codec.js';
import { RawDeflater } from './raw-deflater.js';

describe('RawDeflater', () => {
  const options = { level: 2, windowBits: 14, memLevel: 6, dictionary: ProfileCodec.dictionaryV2 };

  const inputs: Array<[string, Buffer]> = [
    ['an empty input', Buffer.alloc(0)],
    ['a short JSON text', Buffer.from('{"request":{"method":"GET","path":"/"}}')],
    ['a profile-sized JSON text', Buffer.from(JSON.stringify(Array.from({ length: 120 }, (_, i) => ({ event: 'kernel.request', listener: `L${i % 30}::on`, i }))))],
    ['incompressible bytes larger than the scratch buffer (several output pieces)', randomBytes(200_000)],
    ['a large repetitive text', Buffer.from('x'.repeat(3_000_000))],
  ];

  it.each(inputs)('writes the same bytes as deflateRawSync for %s, use after use', (_name, input) => {
    const deflater = new RawDeflater(options);
    const expected = deflateRawSync(input, options);
    // The stream is reset between uses: the second and third outputs must not depend on the first.
    for (let i = 0; i < 3; i++) expect(deflater.deflate(input).equals(expected)).toBe(true);
    expect(inflateRawSync(deflater.deflate(input), { dictionary: options.dictionary }).equals(input)).toBe(true);
    deflater.close();
  });

  it('interleaves inputs of different sizes on one stream without mixing them', () => {
    const deflater = new RawDeflater(options);
    const a = Buffer.from('{"a":1}'.repeat(500));
    const b = randomBytes(70_000);
    for (const input of [a, b, a, b, a]) expect(deflater.deflate(input).equals(deflateRawSync(input, options))).toBe(true);
  });

  it('writes a prefix byte before the compressed data', () => {
    const input = Buffer.from('{"hello":"world"}');
    const out = new RawDeflater(options).deflate(input, 0x02);
    expect(out[0]).toBe(0x02);
    expect(out.subarray(1).equals(deflateRawSync(input, options))).toBe(true);
  });

  it('opens a new stream after close()', () => {
    const deflater = new RawDeflater(options);
    const input = Buffer.from('again and again and again');
    deflater.deflate(input);
    deflater.close();
    expect(deflater.deflate(input).equals(deflateRawSync(input, options))).toBe(true);
  });
});
