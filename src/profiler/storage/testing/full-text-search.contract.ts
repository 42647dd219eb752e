/// <reference types="jest" />
// Test code the adapters' specs import (as profiler-storage.contract.ts).
import type { ProfileKind, ProfileRecord, ProfileSearchCriteria } from '../profile-record.js';
import type { ProfilerStorage } from '../profiler-storage.js';
import { record, T0, tokensOf } from './profiler-storage.contract.js';

const MINUTE = 60_000;

/**
 * What full-text search guarantees on every store (ProfileSearchCriteria.text): call inside an adapter's
 * `describe`, with a fresh empty store per test.
 */
export function fullTextSearchContract(
  open: () => Promise<ProfilerStorage>,
  /** A store that keeps running totals of every query matching two profiles or more (trackTextMatches: 2). */
  openTracking: () => Promise<ProfilerStorage>,
): void {
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

  describe('a query matching many profiles, counted from its running totals once tracked', () => {
    const HOUR = 3_600_000;
    const KINDS: ProfileKind[] = ['application', 'application', 'profiler', 'asset'];
    let tracking: ProfilerStorage;
    let live: ProfileRecord[];
    let next: number;

    const profile = (time: number, text: string[]): ProfileRecord => {
      const i = next++;
      return record(i.toString(16).padStart(6, '0'), {
        time,
        kind: KINDS[i % KINDS.length],
        method: i % 3 === 0 ? 'POST' : 'GET',
        statusCode: i % 4 === 1 ? 404 : 200,
        text,
      });
    };
    const write = async (profiles: ProfileRecord[]) => {
      await tracking.write(profiles);
      live.push(...profiles);
      live.sort((a, b) => a.time - b.time);
    };
    /** A tracked query's first count runs in the background: a few turns of the event loop and timers. */
    const settle = async () => {
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const SEARCHES: Omit<ProfileSearchCriteria, 'limit'>[] = [
      { text: 'cart' },
      { text: 'lines CART' },
      { text: 'car*' },
      { text: 'cart', statusCode: '4' },
      { text: 'cart', statusCode: '200', method: 'get' },
      { text: 'cart', kinds: ['application'] },
      { text: 'cart', kinds: ['profiler', 'asset'], method: 'POST' },
      { text: 'cart', start: T0 + HOUR / 2 + 7, end: T0 + 3 * HOUR + 11 },
      { text: 'cart', start: T0 + HOUR, end: T0 + 2 * HOUR - 1, statusCode: '404' },
    ];
    /** Every search's total, as the store says and as the profiles written and not pruned say (every text with `cart` has `lines`). */
    const totals = async () => {
      const said: number[] = [];
      const expected: number[] = [];
      for (const criteria of SEARCHES) {
        said.push((await tracking.find({ limit: 5, ...criteria })).total);
        expected.push(
          live.filter(
            (p) =>
              p.text?.some((t) => /cart/i.test(t)) &&
              (criteria.statusCode === undefined || String(p.statusCode).startsWith(criteria.statusCode)) &&
              (criteria.method === undefined || p.method === criteria.method.toUpperCase()) &&
              (criteria.kinds === undefined || criteria.kinds.includes(p.kind)) &&
              (criteria.start === undefined || p.time >= criteria.start) &&
              (criteria.end === undefined || p.time <= criteria.end),
          ).length,
        );
      }
      return { said, expected };
    };
    const expectExact = async () => {
      const { said, expected } = await totals();
      expect(said).toEqual(expected);
    };

    beforeEach(async () => {
      tracking = await openTracking();
      live = [];
      next = 0x100;
      // Four hours, a profile every 10 minutes; two in three mention the cart.
      await write(
        Array.from({ length: 24 }, (_, i) =>
          profile(T0 + i * 10 * MINUTE + 1000, i % 3 ? ['Cart lines: 2'] : ['other']),
        ),
      );
    });

    afterEach(async () => {
      await tracking.close();
    });

    it('counts exactly before and after it is tracked, and as profiles are written, late ones too', async () => {
      await expectExact();
      await settle();
      await expectExact();
      await write([
        profile(T0 + 4 * HOUR + 5 * MINUTE, ['cart lines again']),
        profile(T0 + 5, ['a late profile of the first hour, cart lines']),
        profile(T0 + 2 * HOUR + 30 * MINUTE, ['no match']),
      ]);
      await expectExact();
    });

    it('counts exactly as pruning removes the oldest, part of an hour then more, and after a clear', async () => {
      await expectExact();
      await settle();
      await tracking.prune({ maxProfiles: 20, maxAgeMs: 0, now: T0 });
      live = live.slice(-20);
      await expectExact();
      await write([profile(T0 + 20 * MINUTE, ['cart lines written late, below what was pruned'])]);
      await expectExact();
      await tracking.prune({ maxProfiles: 0, maxAgeMs: 2 * HOUR, now: T0 + 3 * HOUR + 30 * MINUTE });
      live = live.filter((p) => p.time >= T0 + HOUR + 30 * MINUTE);
      await expectExact();
      await tracking.clear();
      live = [];
      await expectExact();
      await write([profile(T0 + 6 * HOUR, ['cart lines after the clear'])]);
      await expectExact();
    });
  });
}
