/// <reference types="jest" />
// Test code the adapters' specs import (as profiler-storage.contract.ts).
import type { ProfileSearchCriteria } from '../profile-record.js';
import type { ProfilerStorage } from '../profiler-storage.js';
import { record, T0, tokensOf } from './profiler-storage.contract.js';

const MINUTE = 60_000;

/**
 * What full-text search guarantees on every store (ProfileSearchCriteria.text): call inside an adapter's
 * `describe`, with a fresh empty store per test.
 */
export function fullTextSearchContract(open: () => Promise<ProfilerStorage>): void {
  let storage: ProfilerStorage;
  const find = async (criteria: Omit<ProfileSearchCriteria, 'limit'>, limit = 50) => {
    const { total, rows } = await storage.find({ limit, ...criteria });
    return { total, tokens: tokensOf(rows) };
  };

  beforeEach(async () => {
    storage = await open();
    await storage.write([
      record('000001', {
        time: T0,
        text: ['Insufficient stock for product "wool-hat": 2 left', 'select "id" from "products" where "slug" = $1'],
      }),
      record('000002', {
        time: T0 + MINUTE,
        method: 'POST',
        statusCode: 422,
        text: ['CartQuantityException: Quantity must be between 1 and 10', 'delete from cart_lines where cart_id = $1'],
      }),
      record('000003', {
        time: T0 + 2 * MINUTE,
        statusCode: 404,
        ip: '10.0.0.7',
        text: ['NotFoundHttpException: No route found for "GET /cart/x"', 'route cart_show CartController::show'],
      }),
      record('000004', {
        time: T0 + 3 * MINUTE,
        kind: 'profiler',
        text: ['insufficient stock mentioned on a profiler page'],
      }),
      record('000005', {
        time: T0 + 4 * MINUTE,
        method: 'DELETE',
        statusCode: 500,
        text: ['Café crème: delete from cart_lines failed', 'trace 4bf92f3577b34da6a3ce929d0e0e4736'],
      }),
      record('000006', { time: T0 + 5 * MINUTE }),
    ]);
  });

  afterEach(async () => {
    await storage.close();
  });

  it('finds the profiles whose text has every word, newest first, counted exactly', async () => {
    expect(await find({ text: 'insufficient stock' })).toEqual({ total: 2, tokens: ['000004', '000001'] });
    expect(await find({ text: 'STOCK Insufficient' })).toEqual({ total: 2, tokens: ['000004', '000001'] });
    expect(await find({ text: 'insufficient hat' })).toEqual({ total: 1, tokens: ['000001'] });
    expect(await find({ text: 'insufficient nowhere' })).toEqual({ total: 0, tokens: [] });
    expect(await find({ text: 'delete from cart_lines' })).toEqual({ total: 2, tokens: ['000005', '000002'] });
  });

  it('finds an identifier by its parts, a prefix with `*`, accents or not, and a trace id', async () => {
    expect(await find({ text: 'CartQuantityException' })).toEqual({ total: 1, tokens: ['000002'] });
    expect(await find({ text: 'quantity exception' })).toEqual({ total: 1, tokens: ['000002'] });
    expect(await find({ text: 'lines' })).toEqual({ total: 2, tokens: ['000005', '000002'] });
    expect(await find({ text: 'CartQuant*' })).toEqual({ total: 1, tokens: ['000002'] });
    expect(await find({ text: 'cartquant' })).toEqual({ total: 0, tokens: [] });
    expect(await find({ text: 'cafe CREME' })).toEqual({ total: 1, tokens: ['000005'] });
    expect(await find({ text: '4bf92f3577b34da6a3ce929d0e0e4736' })).toEqual({ total: 1, tokens: ['000005'] });
  });

  it('combines with the kinds, status, method, time, IP, URL and token filters', async () => {
    expect(await find({ text: 'insufficient', kinds: ['application'] })).toEqual({ total: 1, tokens: ['000001'] });
    expect(await find({ text: 'insufficient', kinds: ['profiler', 'asset'] })).toEqual({
      total: 1,
      tokens: ['000004'],
    });
    expect(await find({ text: 'cart', statusCode: '4' })).toEqual({ total: 2, tokens: ['000003', '000002'] });
    expect(await find({ text: 'cart', statusCode: '42' })).toEqual({ total: 1, tokens: ['000002'] });
    expect(await find({ text: 'cart', statusCode: '500' })).toEqual({ total: 1, tokens: ['000005'] });
    expect(await find({ text: 'cart', statusCode: '2' })).toEqual({ total: 0, tokens: [] });
    expect(await find({ text: 'delete', method: 'delete' })).toEqual({ total: 1, tokens: ['000005'] });
    expect(await find({ text: 'cart', start: T0 + MINUTE, end: T0 + 2 * MINUTE })).toEqual({
      total: 2,
      tokens: ['000003', '000002'],
    });
    expect(await find({ text: 'cart', ip: '10.0.' })).toEqual({ total: 1, tokens: ['000003'] });
    expect(await find({ text: 'cart', url: '/00000' })).toEqual({ total: 3, tokens: ['000005', '000003', '000002'] });
    expect(await find({ text: 'cart', url: '/000002' })).toEqual({ total: 1, tokens: ['000002'] });
    expect(await find({ text: 'cart', token: '000005' })).toEqual({ total: 1, tokens: ['000005'] });
    expect(await find({ text: 'cart', statusCode: '4', method: 'POST', ip: '127.', kinds: ['application'] })).toEqual({
      total: 1,
      tokens: ['000002'],
    });
  });

  it('counts every match however small the limit, and a limit of 0 counts only', async () => {
    expect(await find({ text: 'cart' }, 1)).toEqual({ total: 3, tokens: ['000005'] });
    expect(await find({ text: 'cart' }, 0)).toEqual({ total: 3, tokens: [] });
  });

  it('never matches the words a store adds for the list columns, and matches nothing for punctuation only', async () => {
    for (const text of ['k0', 'mget', 's404', 's4', '\uE000s404', '\uE000k0']) {
      expect(await find({ text })).toEqual({ total: 0, tokens: [] });
    }
    expect(await find({ text: '"%%%"' })).toEqual({ total: 0, tokens: [] });
    expect(await find({ text: '  ' })).toMatchObject({ total: 6 });
  });

  it('forgets a profile’s words when it is pruned or the store cleared', async () => {
    await storage.prune({ maxProfiles: 4, maxAgeMs: 0, now: T0 + 10 * MINUTE });
    expect(await find({ text: 'insufficient' })).toEqual({ total: 1, tokens: ['000004'] });
    expect(await find({ text: 'cart' })).toEqual({ total: 2, tokens: ['000005', '000003'] });
    await storage.write([record('00000a', { time: T0 + 20 * MINUTE, text: ['Insufficient again'] })]);
    expect(await find({ text: 'insufficient' })).toEqual({ total: 2, tokens: ['00000a', '000004'] });
    await storage.clear();
    expect(await find({ text: 'insufficient' })).toEqual({ total: 0, tokens: [] });
    expect(await find({})).toEqual({ total: 0, tokens: [] });
  });

  it('keeps the text out of the profile it reads back', async () => {
    const read = await storage.read('000001');
    expect(read).not.toHaveProperty('text');
    expect(read?.data).toEqual({});
  });
}
