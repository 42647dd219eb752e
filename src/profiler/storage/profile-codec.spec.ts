import { createHash } from 'node:crypto';
import { OLDER_FORMAT, ProfileCodec, ProfileFormat } from './profile-codec.js';
import { sampleProfile } from './testing/sample-profile.fixture.js';

describe('ProfileCodec', () => {
  const codec = new ProfileCodec();

  /** A batch's blobs as a store keeps them: keys 100, 101 … in order, each group carried by its newest. */
  async function store(items: Array<Record<string, unknown>>): Promise<Map<bigint, Buffer>> {
    const stored = new Map<bigint, Buffer>();
    const keys = items.map((_, i) => BigInt(100 + i));
    codec.blobs(await codec.encodeBatch(items), keys, (a, b) => a > b).forEach((blob, i) => stored.set(keys[i], blob));
    return stored;
  }
  const read = (stored: Map<bigint, Buffer>, key: bigint) =>
    codec.decode(stored.get(key)!, (carrier) => stored.get(carrier) ?? null);
  const readAll = async (stored: Map<bigint, Buffer>) =>
    Promise.all([...stored.keys()].sort((a, b) => Number(a - b)).map((key) => read(stored, key)));
  const roundTrip = async (data: Record<string, unknown>) => (await readAll(await store([data])))[0];

  it('round-trips unicode, nested objects, arrays and every JSON value', async () => {
    const data = {
      request: { url: 'http://localhost:3000/café/日本語?q=naïve', headers: { 'accept-language': 'fr-FR' } },
      logs: {
        entries: [
          {
            message: 'Émoji 🚀 \u0000 "quoted" \\ back\nslash',
            context: { deep: { deeper: { deepest: [1, [2, [3, { x: null }]]] } } },
          },
        ],
      },
      numbers: [0, -1, 3.141592653589793, 1e21, 5e-324, Number.MAX_SAFE_INTEGER],
      flags: [true, false, null],
      empty: { object: {}, array: [], string: '' },
      rtl: 'مرحبا',
    };
    expect(await roundTrip(data)).toEqual(data);
  });

  it('round-trips large data, a profile too large for a shared frame in a frame of its own', async () => {
    const data = {
      big: 'x'.repeat(2_000_000),
      list: Array.from({ length: 20_000 }, (_, i) => ({ i, name: `item ${i}` })),
    };
    const groups = await codec.encodeBatch([{ a: 1 }, data, { b: 2 }]);
    expect(groups.map((group) => group.members)).toEqual([[0], [1], [2]]);
    expect(groups[1].frame.length).toBeLessThan(200_000);
    expect(await readAll(await store([{ a: 1 }, data, { b: 2 }]))).toEqual([{ a: 1 }, data, { b: 2 }]);
  });

  it('stores a batch of realistic profiles in one frame carried by the newest, a few hundred bytes each', async () => {
    const items = Array.from({ length: 40 }, (_, i) => sampleProfile(i).data);
    const stored = await store(items);
    const blobs = [...stored.values()];
    expect(blobs.slice(0, 39).every((blob) => blob[0] === ProfileFormat.IN_BATCH && blob.length === 17)).toBe(true);
    expect(blobs[39][0]).toBe(ProfileFormat.ZSTD_BATCH);
    const total = blobs.reduce((sum, blob) => sum + blob.length, 0);
    expect(total / 40).toBeLessThan(700);
    expect(await readAll(stored)).toEqual(items);
  });

  it('keeps each frame its own while the next batches are encoded', async () => {
    // Random text does not compress: its frame is still zstd, made from the same bytes the next encode reuses.
    const noise = (seed: number) => createHash('sha512').update(String(seed)).digest('base64').slice(0, 80);
    const first = await store([{ n: noise(1) }, sampleProfile(7).data]);
    const second = await store([{ n: noise(2) }, sampleProfile(8).data, { n: noise(3) }]);
    expect(await readAll(first)).toEqual([{ n: noise(1) }, sampleProfile(7).data]);
    expect(await readAll(second)).toEqual([{ n: noise(2) }, sampleProfile(8).data, { n: noise(3) }]);
  });

  it('reads a profile whose carrier is gone (pruned meanwhile) as none, and refuses a pointer that is not one', async () => {
    const stored = await store([{ a: 1 }, { b: 2 }]);
    expect(await codec.decode(stored.get(100n)!, () => null)).toBeNull();
    await expect(codec.decode(stored.get(100n)!, () => stored.get(100n)!)).rejects.toThrow('points to no frame');
    const past = Buffer.from(stored.get(100n)!);
    past.writeUInt32BE(1_000, 13);
    await expect(codec.decode(past, () => stored.get(101n)!)).rejects.toThrow('past its frame');
  });

  it('never fails to encode: BigInt becomes a number, cycles a marker', async () => {
    const data: Record<string, unknown> = { big: 12345678901234567890n, name: 'x' };
    data.self = data;
    expect(await roundTrip(data)).toEqual({ big: Number(12345678901234567890n), name: 'x', self: '[Circular]' });
  });

  it('decodes plain JSON (format 0) and marks format 1 as older', async () => {
    expect(await codec.decode(Buffer.concat([Buffer.of(0), Buffer.from('{"a":[1,"é"]}', 'utf8')]))).toEqual({
      a: [1, 'é'],
    });
    // Format 1's dictionary is gone: its profiles say they came from an older version.
    const v1 = Buffer.from('012377ec323931edf04ac830217a6f8cf68ea659f23634373337333036330081dad8da5a00', 'hex');
    expect(await codec.decode(v1)).toEqual({ [OLDER_FORMAT]: true });
  });

  it('decodes format 2 as first written (compact collector data)', async () => {
    const v2 = Buffer.from(
      '02ab26be0f8fab210b6f3d1a1ba156fb8646063a26160618351ce6b81d78d0caccdcccc0d80c5ccac4c6d6d60200',
      'hex',
    );
    expect(await codec.decode(v2)).toEqual({
      events: {
        listeners: [['kernel.request', 'RouterListener::onKernelRequest', 32]],
        calls: [0, 120, 480],
        stopped: [],
      },
      logs: { entries: [[0, 1767603600000]] },
    });
  });

  it('decodes format 3 as first written (zstd with the format 2 dictionary)', async () => {
    const v3 = Buffer.from(
      '0328b52ffd209aad0100a07b33323132302c3438303637363033365d5d7d7d09003a65295c3917eccef140b97936fa678941823a82023788ff23c3e343f00a',
      'hex',
    );
    expect(await codec.decode(v3)).toEqual({
      events: {
        listeners: [['kernel.request', 'RouterListener::onKernelRequest', 32]],
        calls: [0, 120, 480],
        stopped: [],
      },
      logs: { entries: [[0, 1767603600000]] },
    });
  });

  it('decodes a format 3 profile written by zstd-napi (before Node’s zlib)', async () => {
    // zstd-napi 0.0.13's CCtx.compressUsingCDict(CDict(DICTIONARY_V2, 1)), after the tag: kept as written.
    const written = Buffer.from(
      '0328b52ffd606b01fd0700f408686f7374732f776f6f6c2d73636172663f7265663d223a5f73686f772d656e636f6422677a69702c206465666c6174' +
        '652c2062722c207a7374642d6c616e677566722d46522c66723b713d302e392c656e38382e352e30227d2c206d61782d6167653d36523132302c34' +
        '38302c312c3631302c3935363736303336345d5d7d2c226e6f436166c3a920f09f9a80227d22000384e09a3b40827273ab313a0298d5f10048c079' +
        '39030f80bed000d6d985013804a82b5fa9e01655a1ca60250e023e0cd7220f3157a7832dd63941671ddcbeebfccdd2d6aa1e5cc0ac5343cfce05b6' +
        '3ac37aa7239f349ed78f6661ab96f332e421206477e4b75ab066d00102',
      'hex',
    );
    const data = {
      request: {
        method: 'GET',
        url: 'http://localhost:3000/products/wool-scarf?ref=home',
        route: 'product_show',
        headers: {
          'accept-encoding': 'gzip, deflate, br, zstd',
          'accept-language': 'fr-FR,fr;q=0.9,en;q=0.8',
          'user-agent': 'curl/8.5.0',
        },
      },
      response: {
        statusCode: 200,
        headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=60' },
      },
      events: {
        listeners: [
          ['kernel.request', 'RouterListener::onKernelRequest', 32],
          ['kernel.response', 'ProfilerListener::onKernelResponse', -100],
        ],
        calls: [0, 120, 480, 1, 610, 95],
        stopped: [],
      },
      logs: {
        entries: [
          [0, 1767603600000],
          [1, 1767603600004],
        ],
      },
      note: 'Café 🚀',
    };
    expect(await codec.decode(written)).toEqual(data);
  });

  it('rejects a corrupt zstd blob instead of returning garbage', async () => {
    const blob = (await store([{ request: { path: '/products/42' } }])).get(100n)!;
    await expect(codec.decode(blob.subarray(0, blob.length - 3))).rejects.toThrow();
    await expect(codec.decode(Buffer.of(ProfileFormat.ZSTD_DICTIONARY_V2, 1, 2, 3, 4, 5, 6, 7, 8))).rejects.toThrow();
    await expect(codec.decode(Buffer.of(ProfileFormat.ZSTD_BATCH, 0, 0, 0, 0, 0, 0, 0, 9, 1, 2, 3))).rejects.toThrow();
  });

  it('keeps the dictionary of formats 2 and 3 byte for byte (a changed dictionary is a new format)', () => {
    expect(ProfileCodec.dictionaryV2.length).toBe(8345);
    expect(createHash('sha256').update(ProfileCodec.dictionaryV2).digest('hex')).toBe(
      'f51ffd8409320377e193c6c7a8f47a900ea72ffedf68d8e4e210942baa395e47',
    );
  });

  it('rejects an unknown format tag and an empty blob', async () => {
    await expect(codec.decode(Buffer.of(0x7f, 1, 2))).rejects.toThrow('Unknown profile blob format 127');
    await expect(codec.decode(Buffer.alloc(0))).rejects.toThrow('empty');
  });

  it('decodes a blob that is a view into a larger buffer', async () => {
    const blob = (await store([{ a: 'b'.repeat(100) }])).get(100n)!;
    const larger = Buffer.concat([Buffer.from('junk'), blob, Buffer.from('junk')]);
    expect(await codec.decode(larger.subarray(4, 4 + blob.length))).toEqual({ a: 'b'.repeat(100) });
  });

  it('encodes a write batch in order, in frames of a few hundred kilobytes, every profile decoding to its own', async () => {
    const items = Array.from({ length: 250 }, (_, i) => ({
      request: { path: `/products/${i}`, i, note: createHash('sha512').update(String(i)).digest('hex').repeat(8) },
      logs: { entries: Array.from({ length: i % 7 }, (_, j) => ({ j })) },
    }));
    const groups = await codec.encodeBatch(items);
    expect(groups.length).toBeGreaterThanOrEqual(2);
    expect(groups.flatMap((group) => group.members)).toEqual(items.map((_, i) => i));
    expect(codec.encodeBatchSync(items).map((group) => group.members)).toEqual(groups.map((group) => group.members));
    expect(await readAll(await store(items))).toEqual(items);
    expect(await codec.encodeBatch([])).toEqual([]);
  });
});
