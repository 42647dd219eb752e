import { inflateRawSync } from 'node:zlib';
import { CompressionWorker } from './compression-worker.js';

const DICTIONARY = Buffer.from('{"event":"kernel.request","listener":"RouterListener::onKernelRequest"}');

describe('CompressionWorker', () => {
  it('deflates on its thread, each answer to its own blob, the buffers handed over', async () => {
    const worker = CompressionWorker.shared(9, DICTIONARY, 'spec');
    expect(worker).not.toBeNull();
    const texts = Array.from({ length: 50 }, (_, i) => JSON.stringify({ event: 'kernel.request', listener: 'RouterListener::onKernelRequest', i, pad: 'x'.repeat(i * 97) }));
    const inputs = texts.map((text) => new TextEncoder().encode(text));
    const outputs = await Promise.all(inputs.map((input) => worker!.compress(input)));
    expect(inputs.every((input) => input.byteLength === 0)).toBe(true); // transferred, not copied
    outputs.forEach((out, i) => {
      expect(inflateRawSync(out, { dictionary: DICTIONARY }).toString('utf8')).toBe(texts[i]);
    });
    expect(CompressionWorker.shared(9, DICTIONARY, 'spec')).toBe(worker);
  });
});
