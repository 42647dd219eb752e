import { holdsSerialisedOnce, profileJsonParts, serialisedOnce } from './profile-json.js';

const profileJson = (data: Record<string, unknown>): string => profileJsonParts(data).join('');

describe('profileJson', () => {
  it('writes exactly what JSON.stringify writes when nothing is marked', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const data = {
      request: {
        method: 'GET',
        url: 'http://shop.test/?q="x"\u2028',
        query: {},
        nested: { deep: [1, 'two', null, { three: 3 }] },
      },
      2: 'integer keys first',
      response: {
        statusCode: 200,
        headers: { 'content-type': 'text/html' },
        missing: undefined,
        fn: () => 1,
        sym: Symbol('s'),
      },
      when: new Date(Date.UTC(2026, 10, 24)),
      list: [undefined, () => 1],
      point: new Point(1, 2),
      withToJson: { toJSON: () => ({ replaced: true }) },
      nullValue: null,
      skipped: undefined,
      text: 'plain',
      number: 0.734,
      nan: Number.NaN,
    };
    expect(profileJson(data)).toBe(JSON.stringify(data));
    expect(profileJson({})).toBe('{}');
  });

  it('writes a value marked serialisedOnce from its JSON of the moment it was marked, as the data of a collector or a field of a marked holder', () => {
    let calls = 0;
    const table = serialisedOnce([['kernel.request', 'RouterListener::onKernelRequest', 32]]);
    const counted = serialisedOnce({
      toJSON() {
        calls++;
        return { counted: calls };
      },
    });
    expect(calls).toBe(1);
    const events = (calls: number[]) => holdsSerialisedOnce({ listeners: table, calls, stopped: [] });
    const json = profileJson({ request: { method: 'GET' }, events: events([0, 98, 3]), config: counted, time: 1.5 });
    const again = profileJson({ events: events([0, 99, 4]), config: counted });
    expect(calls).toBe(1);
    // The cached values follow the other keys of their object.
    expect(json).toBe(
      '{"request":{"method":"GET"},"time":1.5,"events":{"calls":[0,98,3],"stopped":[],"listeners":[["kernel.request","RouterListener::onKernelRequest",32]]},"config":{"counted":1}}',
    );
    expect(JSON.parse(again)).toEqual({
      events: {
        listeners: [['kernel.request', 'RouterListener::onKernelRequest', 32]],
        calls: [0, 99, 4],
        stopped: [],
      },
      config: { counted: 1 },
    });
    // In pieces, as the codec writes them: the cached JSON is one of them, as it was cached (not copied).
    const parts = profileJsonParts({ time: 1.5, events: events([0, 98, 3]) });
    expect(parts.join('')).toBe(
      '{"time":1.5,"events":{"calls":[0,98,3],"stopped":[],"listeners":[["kernel.request","RouterListener::onKernelRequest",32]]}}',
    );
    expect(parts).toContain(JSON.stringify(table));
    expect(profileJsonParts({ only: events([]) }).join('')).toBe(
      '{"only":{"calls":[],"stopped":[],"listeners":[["kernel.request","RouterListener::onKernelRequest",32]]}}',
    );
    // Not a holder: its fields are written by JSON.stringify, the cached JSON unused (and the same text).
    expect(profileJson({ events: { listeners: table } })).toBe(
      '{"events":{"listeners":[["kernel.request","RouterListener::onKernelRequest",32]]}}',
    );
  });

  it('freezes a value marked serialisedOnce deeply, so that its cached JSON stays true', () => {
    const config = serialisedOnce({ app: { name: 'shop' }, modules: ['AppModule'] });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.app)).toBe(true);
    expect(() => (config.modules as string[]).push('Other')).toThrow(TypeError);
    expect(profileJson({ config })).toBe('{"config":{"app":{"name":"shop"},"modules":["AppModule"]}}');
  });
});
