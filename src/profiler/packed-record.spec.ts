import { packedRecord } from './packed-record.js';
import { ProfileArena } from './profile-arena.js';
import type { ProfileRecord } from './storage/profile-record.js';
import { indexWords } from './storage/search/search-words.js';

function plain(): ProfileRecord {
  return {
    token: 'c0ffee',
    parent: null,
    ip: '127.0.0.1',
    method: 'POST',
    url: 'http://localhost/cart/add',
    time: 1_767_225_600_000,
    statusCode: 303,
    kind: 'application',
    duration: 4.5,
    route: 'cart_add',
    redirectedFrom: null,
    data: { request: { method: 'POST', body: { quantity: 2 } }, logs: { entries: [{ message: 'Added' }] } },
    text: ['CartLine added: wool_hat', 'route cart_add'],
  };
}

describe('packedRecord', () => {
  it('keeps the data as its JSON, parsed when first read: no object of the request is kept', () => {
    const record = plain();
    const packed = packedRecord(record);
    (record.data.request as { method: string }).method = 'CHANGED';
    expect((packed.json as Buffer).toString('utf8')).toBe(
      '{"request":{"method":"POST","body":{"quantity":2}},"logs":{"entries":[{"message":"Added"}]}}',
    );
    expect(packed.data).toEqual({
      request: { method: 'POST', body: { quantity: 2 } },
      logs: { entries: [{ message: 'Added' }] },
    });
    expect(packed.data).toBe(packed.data);
  });

  it('keeps the texts as the words full-text search indexes, spaced', () => {
    expect(packedRecord(plain()).words).toBe('cartline cart line added wool_hat wool hat route cart_add add');
  });

  it('finds the words indexWords finds, however often a text came before, up to the same cap', () => {
    const many = Array.from({ length: 4100 }, (_, i) => `word${i}`);
    const cases = [
      ['Matched route "cart_show".', 'CartController::show', 'Matched route "cart_show".'],
      ['Matched route "cart_show".', `select * from "carts" where "id" = $1 ${'x'.repeat(3000)} LongWord`],
      [many.slice(0, 2000).join(' '), many.slice(1000).join(' '), 'after the cap'],
      ['Café crème', 'HTTPClient answered 504'],
    ];
    for (const texts of [...cases, ...cases])
      expect(packedRecord({ ...plain(), text: texts }).words).toBe(indexWords(texts).join(' '));
  });

  it('shows the columns and the data to whoever spreads or prints it, never the packed forms', () => {
    const packed = packedRecord(plain());
    const { data, text: _text, ...columns } = plain();
    expect({ ...packed }).toEqual({ ...columns, data });
    expect(Object.keys(packed)).not.toContain('json');
    expect(JSON.parse(JSON.stringify(packed))).toEqual({ ...columns, data });
  });

  it('keeps its JSON and words in the arena until released, then refuses to read what may be written over', () => {
    const arena = new ProfileArena(64 * 1024);
    const record = { ...plain(), data: { ...plain().data, note: 'Café ✓' } };
    const packed = packedRecord(record, arena);
    const other = packedRecord({ ...plain(), token: 'beef00', text: ['other words'] }, arena);
    expect(JSON.parse((packed.json as Buffer).toString('utf8'))).toEqual(record.data);
    expect(packed.words).toBe(indexWords(record.text ?? []).join(' '));
    expect(other.words).toBe('other words');
    packed.release?.();
    packed.release?.();
    expect(() => packed.json).toThrow('A waiting profile was read after the store had written it');
    expect(() => packed.words).toThrow('A waiting profile was read after the store had written it');
    expect(other.words).toBe('other words');
  });

  it('keeps a profile too large for the arena as strings, released or not', () => {
    const arena = new ProfileArena(1024);
    const record = { ...plain(), data: { big: 'x'.repeat(2000) } };
    const packed = packedRecord(record, arena);
    expect(packed.json).toBe(JSON.stringify(record.data));
    expect(packed.release).toBeUndefined();
    expect(packed.data).toEqual(record.data);
    expect(arena.allocatedSlabs).toBe(1);
  });
});
