import { MASK } from '../../lifecycle/redaction/redactor.js';
import { toJsonSafe } from './json-safe.js';

describe('toJsonSafe', () => {
  it('keeps plain JSON values as they are', () => {
    const value = { a: 1, b: 'two', c: [true, null, { d: 4.5 }] };
    expect(toJsonSafe(value)).toEqual(value);
  });

  it('turns cycles, errors, dates, BigInt, functions, buffers, maps and sets into readable values', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(
      toJsonSafe({
        cyclic,
        error: new TypeError('bad'),
        date: new Date('2026-11-22T10:00:00.000Z'),
        big: 12n,
        fn: function handler() {},
        buffer: Buffer.from('abc'),
        map: new Map([['k', 1]]),
        set: new Set([1, 2]),
        nan: Number.NaN,
        undef: undefined,
      }),
    ).toEqual({
      cyclic: { name: 'loop', self: '[circular]' },
      error: { class: 'TypeError', message: 'bad' },
      date: '2026-11-22T10:00:00.000Z',
      big: '12n',
      fn: '[function handler]',
      buffer: '[Buffer 3 bytes]',
      map: { k: 1 },
      set: [1, 2],
      nan: 'NaN',
      undef: null,
    });
  });

  it('repeats a shared (non-cyclic) object instead of calling it circular', () => {
    const shared = { x: 1 };
    expect(toJsonSafe({ a: shared, b: shared })).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });

  it('treats flat contexts (the fast path) exactly as the full walk does', () => {
    const flat = { event: 'kernel.request', listener: 'RouterListener::onKernelRequest', n: 3, ok: true };
    const copy = toJsonSafe(flat);
    expect(copy).toEqual(flat);
    expect(copy).not.toBe(flat);
    expect(toJsonSafe({ event: 'x', password: 'hunter2' })).toEqual({ event: 'x', password: MASK });
    expect(toJsonSafe({ uri: 'http://h/reset?token=abc' })).toEqual({ uri: `http://h/reset?token=${MASK}` });
    expect(toJsonSafe({ dsn: 'postgres://u:pw@db/x' })).toEqual({ dsn: `postgres://u:${MASK}@db/x` });
    expect(toJsonSafe({ n: Number.NaN, m: Infinity })).toEqual({ n: 'NaN', m: 'Infinity' });
    expect(toJsonSafe({ u: undefined })).toEqual({ u: null });
    expect(toJsonSafe({ long: 'x'.repeat(10) }, { maxString: 4 })).toEqual({
      long: 'xxxx… (6 more characters, truncated)',
    });
  });

  it('copies nested plain values (the fast path) as the full walk does, and leaves to the walk what needs it', () => {
    const context = {
      route: 'shop_home',
      route_parameters: { _route: 'shop_home', ids: [1, 2, null] },
      method: 'GET',
      ok: false,
    };
    const copy = toJsonSafe(context) as typeof context;
    expect(copy).toEqual(context);
    expect(copy.route_parameters).not.toBe(context.route_parameters);
    expect(copy.route_parameters.ids).not.toBe(context.route_parameters.ids);
    expect(toJsonSafe({ outer: { inner: { password: 'hunter2', uri: '/r?token=abc' } } })).toEqual({
      outer: { inner: { password: MASK, uri: `/r?token=${MASK}` } },
    });
    expect(toJsonSafe({ list: [{ when: new Date('2026-11-22T10:00:00.000Z') }] })).toEqual({
      list: [{ when: '2026-11-22T10:00:00.000Z' }],
    });
    expect(toJsonSafe({ list: [1, 2, 3] }, { maxBreadth: 2 })).toEqual({ list: [1, 2, '… 1 more items, truncated'] });
    expect(toJsonSafe({ a: [[1]] }, { maxDepth: 2 })).toEqual({ a: ['[array(1), depth limit]'] });
    expect(toJsonSafe({ nested: { long: 'x'.repeat(10) } }, { maxString: 4 })).toEqual({
      nested: { long: 'xxxx… (6 more characters, truncated)' },
    });
  });

  it("copies an uncaught exception's context (an error in it) on the fast path as the walk does, masking its message", () => {
    class StockError extends Error {}
    const error = new StockError('No stock for "TEA-1"');
    expect(toJsonSafe({ class: 'StockError', line: 12, exception: error })).toEqual({
      class: 'StockError',
      line: 12,
      exception: { class: 'StockError', message: 'No stock for "TEA-1"' },
    });
    expect(toJsonSafe({ exception: new Error('GET /reset?token=abc failed') })).toEqual({
      exception: { class: 'Error', message: `GET /reset?token=${MASK} failed` },
    });
    expect(toJsonSafe({ exception: new Error('x') }, { redact: false })).toEqual({
      exception: { class: 'Error', message: 'x' },
    });
  });

  it('bounds depth, breadth and string length with visible markers', () => {
    expect(toJsonSafe({ a: { b: { c: 1 } } }, { maxDepth: 2 })).toEqual({ a: { b: '[object Object, depth limit]' } });
    expect(toJsonSafe([1, 2, 3, 4], { maxBreadth: 2 })).toEqual([1, 2, '… 2 more items, truncated']);
    expect(toJsonSafe({ a: 1, b: 2, c: 3 }, { maxBreadth: 2 })).toEqual({ a: 1, b: 2, '…': '1 more keys, truncated' });
    expect(toJsonSafe('abcdef', { maxString: 4 })).toBe('abcd… (2 more characters, truncated)');
  });

  it('masks fields named like secrets, at any depth, but keeps empty ones visible', () => {
    expect(
      toJsonSafe({
        user: 'ada',
        password: 'hunter2',
        nested: { apiKey: 'k', card_number: '4111', cvv: '123' },
        token: '',
      }),
    ).toEqual({
      user: 'ada',
      password: '******',
      nested: { apiKey: '******', card_number: '******', cvv: '******' },
      token: '',
    });
    expect(toJsonSafe({ password: 'x' }, { redact: false })).toEqual({ password: 'x' });
  });

  it('masks values shaped like keys and tokens under any name, on the fast path too', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
    expect(
      toJsonSafe({ header: `Bearer ${jwt}`, list: ['ghp_0123456789abcdefghij'], key: 'sk_live_abcdefgh' }),
    ).toEqual({ header: 'Bearer ******', list: ['******'], key: '******' });
    expect(toJsonSafe(['sku-123', 'plain'])).toEqual(['sku-123', 'plain']);
  });
});

describe('toJsonSafe visible values', () => {
  it('shows a secret-looking field whose value the request already shows (a path segment)', () => {
    expect(toJsonSafe({ token: 'a1b2c3', password: 'a1b2c3x' }, { visible: new Set(['a1b2c3']) })).toEqual({
      token: 'a1b2c3',
      password: '******',
    });
  });
});
