/// <reference types="jest" />
// The build (tsconfig.build.json) compiles src/ with Node's types only; this file is test code that the specs import.
import type { ProfileKind, ProfileRecord, ProfileSearchCriteria, ProfileSummary } from '../profile-record.js';
import { DuplicateTokenError, type ProfilerStorage } from '../profiler-storage.js';
import { COUNT_CAP } from '../search-helpers.js';
import type { TokenStore } from '../../tokens/token-store.js';
import { sampleProfile } from './sample-profile.fixture.js';
import { packedRecord } from '../../packed-record.js';

export const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const HOUR = 3_600_000;
/** The search page's default: the application's requests only. */
const APPLICATION: readonly ProfileKind[] = ['application'];

/** A profile with list columns easy to search for. */
export function record(token: string, overrides: Partial<ProfileRecord> = {}): ProfileRecord {
  return {
    token,
    parent: null,
    ip: '127.0.0.1',
    method: 'GET',
    url: `http://localhost/${token}`,
    time: T0,
    statusCode: 200,
    kind: 'application',
    duration: null,
    route: null,
    redirectedFrom: null,
    data: {},
    ...overrides,
  };
}

/**
 * Profiles for the migration tests of each adapter (a store of the version before kinds): application and profiler
 * URLs, and look-alikes that are not the profiler's; written with other kinds and columns, which the migration resets.
 */
export function preKindProfiles(t0: number): ProfileRecord[] {
  const urls = [
    'http://localhost:3000/cart',
    'http://localhost:3000/_profiler/000001',
    'http://localhost:3000/_profiler',
    'https://shop.test/_profiler?panel=logs',
    'http://localhost:3000/_profilerx',
    'http://localhost:3000/cart?next=/_profiler/',
    'http://localhost:3000/cart',
  ];
  return urls.map((url, i) =>
    record(`00000${i}`, {
      url,
      time: t0 + i * 1_000_000,
      ip: i % 2 ? '10.0.0.1' : '127.0.0.1',
      method: i % 3 ? 'GET' : 'POST',
      kind: 'asset',
      duration: 5,
      route: 'r',
      redirectedFrom: '000000',
    }),
  );
}

export const summary = ({ data: _data, ...rest }: ProfileRecord): ProfileSummary => rest;
export const tokensOf = (rows: ProfileSummary[]) => rows.map((r) => r.token);
/** The profiles a store holds, of every kind, as its searches count them (up to COUNT_CAP + 1). */
export const storedCount = async (storage: ProfilerStorage) => (await storage.find({ limit: 0 })).total;

export interface ProfilerStorageContractTarget {
  /** An open, empty store (for each test). */
  open(): Promise<ProfilerStorage>;
  /** The token queries on that store (a port of their own, TokenStore). */
  tokens(storage: ProfilerStorage): TokenStore;
}

/**
 * What every ProfilerStorage adapter guarantees, as the port documents it: call inside an adapter's `describe`.
 * Each test gets a fresh store from `target.open()` and closes it afterwards.
 */
export function profilerStorageContract(target: ProfilerStorageContractTarget): void {
  let storage: ProfilerStorage;

  beforeEach(async () => {
    storage = await target.open();
  });

  afterEach(async () => {
    await storage.close();
  });

  describe('write and read', () => {
    it('reads back what was written, data included', async () => {
      const profile = record('a1b2c3', {
        parent: 'ffffff',
        ip: '::1',
        method: 'POST',
        url: 'https://shop.test/cart?x=1',
        time: T0 + 5,
        statusCode: 303,
        data: { request: { method: 'POST' }, logs: { entries: [] } },
      });
      await storage.write([profile]);
      expect(await storage.read('a1b2c3')).toEqual(profile);
    });

    it('reads back the kind, duration, route and redirect, in every list', async () => {
      const redirect = record('00000a', { method: 'POST', statusCode: 303, route: 'cart_add', duration: 4.125 });
      const asset = record('00000b', {
        kind: 'asset',
        url: 'http://localhost/css/shop.css',
        duration: 0.0625,
        time: T0 + 1,
        parent: '00000a',
      });
      const followed = record('00000c', {
        kind: 'application',
        route: 'cart_show',
        duration: 17.333984375,
        redirectedFrom: '00000a',
        time: T0 + 2,
      });
      const page = record('00000d', {
        kind: 'profiler',
        url: 'http://localhost/_profiler/00000c',
        route: 'profiler_profile',
        duration: 2.5,
        time: T0 + 3,
      });
      await storage.write([redirect, asset, followed, page]);
      expect(await storage.read('00000b')).toEqual(asset);
      expect(await storage.read('00000d')).toEqual(page);
      expect((await storage.find({ limit: 10 })).rows).toEqual([page, followed, asset, redirect].map(summary));
      expect(await storage.neighbours('00000c')).toEqual({ previous: summary(asset), next: summary(page) });
      expect(await storage.redirectsFrom('00000a')).toEqual([summary(followed)]);
    });

    it('reads a realistic profile back whole', async () => {
      const profile = sampleProfile(42);
      await storage.write([profile]);
      expect(await storage.read(profile.token)).toEqual(profile);
    });

    it('stores a packed record (as one waits in the write buffer) as the record it packs, its words searchable', async () => {
      const plain = { ...sampleProfile(7), text: ['PackedWords: wool_hat sold out'] };
      await storage.write([
        packedRecord({ ...plain, token: 'bbbbbb' }),
        { ...plain, token: 'aaaaaa', time: plain.time - 1 },
      ]);
      const { text: _text, ...stored } = plain;
      expect(await storage.read('bbbbbb')).toEqual({ ...stored, token: 'bbbbbb' });
      expect(await storage.read('aaaaaa')).toEqual({ ...stored, token: 'aaaaaa', time: plain.time - 1 });
      for (const text of ['packed words', 'wool hat', 'wool_hat'])
        expect(tokensOf((await storage.find({ text, limit: 10 })).rows)).toEqual(['bbbbbb', 'aaaaaa']);
    });

    it('answers null for a token it does not have', async () => {
      await storage.write([record('000001')]);
      expect(await storage.read('000002')).toBeNull();
    });

    it('refuses a token already stored with DuplicateTokenError and writes nothing of the batch', async () => {
      await storage.write([record('000001')]);
      const error = await storage
        .write([record('000002'), record('000001'), record('000003')])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DuplicateTokenError);
      expect((error as DuplicateTokenError).tokens).toEqual(['000001']);
      expect(await storedCount(storage)).toBe(1);
      expect(await storage.read('000002')).toBeNull();
      expect((await storage.find({ limit: 10 })).total).toBe(1);
    });

    it('refuses a batch holding the same token twice', async () => {
      const error = await storage
        .write([record('000004'), record('000004', { url: 'http://localhost/other' })])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DuplicateTokenError);
      expect((error as DuplicateTokenError).tokens).toEqual(['000004']);
      expect(await storedCount(storage)).toBe(0);
    });

    it('accepts an empty batch', async () => {
      await storage.write([]);
      expect(await storedCount(storage)).toBe(0);
    });
  });

  describe('find', () => {
    const profiles: ProfileRecord[] = [
      record('0000a1', {
        ip: '192.168.1.10',
        method: 'GET',
        url: 'http://localhost:3000/catalogue/shoes',
        statusCode: 200,
        time: T0,
      }),
      record('0000a2', {
        ip: '192.168.1.100',
        method: 'POST',
        url: 'http://localhost:3000/cart/items',
        statusCode: 303,
        time: T0 + 1000,
      }),
      record('0000b1', {
        ip: '10.0.0.1',
        method: 'get',
        url: 'http://localhost:3000/product/red-shoe',
        statusCode: 404,
        time: T0 + 2000,
      }),
      record('0000b2', {
        ip: '110.0.0.1',
        method: 'DELETE',
        url: 'http://localhost:3000/cart/items/7',
        statusCode: 204,
        time: T0 + 3000,
      }),
      record('0000c1', {
        ip: '::1',
        method: 'GET',
        url: 'https://shop.test/Checkout?step=2',
        statusCode: 422,
        time: T0 + 4000,
      }),
      record('0000c2', {
        ip: '192.168.2.1',
        method: 'PUT',
        url: 'http://localhost:3000/api/cart/items/7',
        statusCode: 409,
        time: T0 + 5000,
      }),
      record('0000d1', {
        ip: '127.0.0.1',
        method: 'GET',
        url: 'http://localhost:3000/search?q=100%25_off',
        statusCode: 500,
        time: T0 + 6000,
      }),
      record('0000d2', {
        ip: '127.0.0.1',
        method: 'GET',
        url: 'http://localhost:3000/a_b/100%off',
        statusCode: 200,
        time: T0 + 7000,
      }),
      record('0000e1', {
        ip: '127.0.0.1',
        method: 'GET',
        url: 'http://localhost:3000/axb/100off',
        statusCode: 200,
        time: T0 + 8000,
      }),
      record('0000e2', {
        ip: '127.0.0.1',
        method: 'GET',
        url: 'http://localhost:3000/say/"quoted"',
        statusCode: 200,
        time: T0 + 9000,
      }),
    ];

    beforeEach(async () => {
      await storage.write(profiles);
    });

    const find = async (criteria: Partial<ProfileSearchCriteria>) => {
      const result = await storage.find({ limit: 100, ...criteria });
      return { total: result.total, tokens: tokensOf(result.rows) };
    };

    it('lists the newest first, every column', async () => {
      const result = await storage.find({ limit: 3 });
      expect(result.total).toBe(10);
      expect(result.rows).toEqual([profiles[9], profiles[8], profiles[7]].map(summary));
    });

    it('counts every match but returns at most `limit` rows', async () => {
      expect(await storage.find({ limit: 2, ip: '127.0.0.1' })).toEqual({
        total: 4,
        rows: [profiles[9], profiles[8]].map(summary),
      });
      expect(await storage.find({ limit: 0 })).toEqual({ total: 10, rows: [] });
    });

    it('filters by IP prefix', async () => {
      expect(await find({ ip: '192.168.' })).toEqual({ total: 3, tokens: ['0000c2', '0000a2', '0000a1'] });
      expect(await find({ ip: '192.168.1.10' })).toEqual({ total: 2, tokens: ['0000a2', '0000a1'] });
      expect(await find({ ip: '10.0.0.1' })).toEqual({ total: 1, tokens: ['0000b1'] });
      expect(await find({ ip: '::1' })).toEqual({ total: 1, tokens: ['0000c1'] });
    });

    it('filters by exact method, in any case', async () => {
      expect(await find({ method: 'get' })).toEqual({
        total: 7,
        tokens: ['0000e2', '0000e1', '0000d2', '0000d1', '0000c1', '0000b1', '0000a1'],
      });
      expect(await find({ method: 'Post' })).toEqual({ total: 1, tokens: ['0000a2'] });
      expect(await find({ method: 'PO' })).toEqual({ total: 0, tokens: [] });
    });

    it('filters by status code, whole or prefix', async () => {
      expect(await find({ statusCode: '4' })).toEqual({ total: 3, tokens: ['0000c2', '0000c1', '0000b1'] });
      expect(await find({ statusCode: '40' })).toEqual({ total: 2, tokens: ['0000c2', '0000b1'] });
      expect(await find({ statusCode: '404' })).toEqual({ total: 1, tokens: ['0000b1'] });
      expect(await find({ statusCode: '2' })).toEqual({
        total: 5,
        tokens: ['0000e2', '0000e1', '0000d2', '0000b2', '0000a1'],
      });
      expect(await find({ statusCode: '20' })).toEqual({
        total: 5,
        tokens: ['0000e2', '0000e1', '0000d2', '0000b2', '0000a1'],
      });
      expect(await find({ statusCode: '5' })).toEqual({ total: 1, tokens: ['0000d1'] });
    });

    it('matches nothing for a status that is not a code or its start', async () => {
      expect(await find({ statusCode: '4044' })).toEqual({ total: 0, tokens: [] });
      expect(await find({ statusCode: 'abc' })).toEqual({ total: 0, tokens: [] });
      expect(await find({ statusCode: '4x' })).toEqual({ total: 0, tokens: [] });
    });

    it('filters by URL substring, in any case', async () => {
      expect(await find({ url: 'cart/items' })).toEqual({ total: 3, tokens: ['0000c2', '0000b2', '0000a2'] });
      expect(await find({ url: 'CHECKOUT' })).toEqual({ total: 1, tokens: ['0000c1'] });
      expect(await find({ url: 'shop.test' })).toEqual({ total: 1, tokens: ['0000c1'] });
      expect(await find({ url: '"quoted"' })).toEqual({ total: 1, tokens: ['0000e2'] });
    });

    it('filters by a URL substring shorter than 3 characters', async () => {
      expect(await find({ url: 'x=' })).toEqual({ total: 0, tokens: [] });
      expect(await find({ url: 'Xb' })).toEqual({ total: 1, tokens: ['0000e1'] });
      expect(await find({ url: '?' })).toEqual({ total: 2, tokens: ['0000d1', '0000c1'] });
    });

    it('takes LIKE wildcards in a URL literally', async () => {
      expect(await find({ url: '%' })).toEqual({ total: 2, tokens: ['0000d2', '0000d1'] });
      expect(await find({ url: '_' })).toEqual({ total: 2, tokens: ['0000d2', '0000d1'] });
      expect(await find({ url: 'a_b' })).toEqual({ total: 1, tokens: ['0000d2'] });
      expect(await find({ url: '100%' })).toEqual({ total: 2, tokens: ['0000d2', '0000d1'] });
      expect(await find({ url: '0%o' })).toEqual({ total: 1, tokens: ['0000d2'] });
      expect(await find({ url: '%off' })).toEqual({ total: 1, tokens: ['0000d2'] });
      expect(await find({ url: '_off' })).toEqual({ total: 1, tokens: ['0000d1'] });
    });

    it('matches nothing for a filter holding a NUL, which no stored value holds, on every path of the URL search', async () => {
      const none = { total: 0, tokens: [] };
      for (const url of [
        '\0',
        '#\0abc',
        '#\0',
        'a\0b',
        'cart\0',
        '\0cart/items',
        'items/7\0',
        '100%\0',
        '\0'.repeat(5),
      ])
        expect({ url, found: await find({ url }) }).toEqual({ url, found: none });
      for (const criteria of [
        { ip: '\0' },
        { ip: '127\0' },
        { method: 'GET\0' },
        { method: '\0' },
        { token: '0000\0' },
      ])
        expect({ criteria, found: await find(criteria) }).toEqual({ criteria, found: none });
      // Whatever else the search holds: the NUL decides.
      expect(await find({ url: 'cart\0', method: 'POST', statusCode: '3', ip: '192' })).toEqual(none);
    });

    it('takes other control characters in a URL filter literally (no stored URL holds one)', async () => {
      const none = { total: 0, tokens: [] };
      for (const url of ['\u0001', '#\u0001abc', 'cart\nitems', '\u001f', '\u007f', '#\t7', 'items/\u00017', '\r\n'])
        expect({ url, found: await find({ url }) }).toEqual({ url, found: none });
      expect(await find({ url: '\u0085' })).toEqual(none);
    });

    it('filters by token prefix', async () => {
      expect(await find({ token: '0000c' })).toEqual({ total: 2, tokens: ['0000c2', '0000c1'] });
      expect(await find({ token: '0000b2' })).toEqual({ total: 1, tokens: ['0000b2'] });
      expect(await find({ token: '1' })).toEqual({ total: 0, tokens: [] });
    });

    it('filters by time, both ends inclusive', async () => {
      expect(await find({ start: T0 + 2000, end: T0 + 4000 })).toEqual({
        total: 3,
        tokens: ['0000c1', '0000b2', '0000b1'],
      });
      expect(await find({ start: T0 + 8000 })).toEqual({ total: 2, tokens: ['0000e2', '0000e1'] });
      expect(await find({ end: T0 + 999 })).toEqual({ total: 1, tokens: ['0000a1'] });
      expect(await find({ start: T0 + 4000, end: T0 + 4000 })).toEqual({ total: 1, tokens: ['0000c1'] });
      expect(await find({ start: T0 + 4001, end: T0 + 4000 })).toEqual({ total: 0, tokens: [] });
    });

    it('combines filters', async () => {
      expect(await find({ ip: '192.168.', method: 'POST' })).toEqual({ total: 1, tokens: ['0000a2'] });
      expect(await find({ method: 'GET', statusCode: '2' })).toEqual({
        total: 4,
        tokens: ['0000e2', '0000e1', '0000d2', '0000a1'],
      });
      expect(await find({ url: 'items', statusCode: '4', start: T0 + 5000 })).toEqual({ total: 1, tokens: ['0000c2'] });
      expect(
        await find({
          ip: '127.',
          url: 'off',
          method: 'get',
          statusCode: '2',
          token: '0000',
          start: T0,
          end: T0 + 8000,
        }),
      ).toEqual({ total: 2, tokens: ['0000e1', '0000d2'] });
      expect(await find({ ip: '10.', method: 'POST' })).toEqual({ total: 0, tokens: [] });
    });

    it('ignores empty filters', async () => {
      expect((await find({ ip: '', method: '', statusCode: '', url: '', token: '' })).total).toBe(10);
    });
  });

  it(`counts matches up to COUNT_CAP + 1 only, however many there are, and still lists the newest`, async () => {
    const many = Array.from({ length: COUNT_CAP + 5 }, (_, i) =>
      record((0x300000 + i).toString(16), {
        time: T0 + i,
        method: i % 2 ? 'POST' : 'GET',
        url: `http://localhost/item/${i % 50}`,
        ip: `10.1.${i % 7}.1`,
        statusCode: i < 10 ? 500 : 200,
        text: [i % 3 === 0 ? 'many cart lines' : 'cart lines'],
      }),
    );
    for (let i = 0; i < many.length; i += 2000) await storage.write(many.slice(i, i + 2000));
    const total = async (criteria: Omit<ProfileSearchCriteria, 'limit'>) =>
      (await storage.find({ limit: 3, ...criteria })).total;
    const more = COUNT_CAP + 1;
    expect(await total({})).toBe(more);
    expect(await storedCount(storage)).toBe(more);
    expect(await total({ kinds: ['application'] })).toBe(more);
    expect(await total({ url: 'item/' })).toBe(more);
    // Two filters each common: exact, or (a store that bounds what a count reads) a lower bound, said so.
    const both = await storage.find({ limit: 3, statusCode: '2', ip: '10.1.' });
    if (both.atLeast) expect([both.total >= 1000, both.total <= COUNT_CAP - 5]).toEqual([true, true]);
    else expect(both.total).toBe(COUNT_CAP - 5);
    expect(await total({ ip: '10.1.', url: 'item' })).toBe(more);
    expect(await total({ text: 'cart' })).toBe(more);
    expect(await total({ text: 'many' })).toBe(Math.ceil((COUNT_CAP + 5) / 3));
    expect(await total({ method: 'POST' })).toBe(Math.floor((COUNT_CAP + 5) / 2));
    expect(await total({ statusCode: '5' })).toBe(10);
    expect(await total({ statusCode: '5', method: 'get' })).toBe(5);
    expect(await total({ url: 'item/7', method: 'POST' })).toBe(Math.ceil((COUNT_CAP + 5 - 7) / 50));
    expect(await total({ start: T0, end: T0 + 100, ip: '10.1.3' })).toBe(14);
    expect(await total({ text: 'cart', statusCode: '500' })).toBe(10);
    const newest = many
      .slice(-3)
      .reverse()
      .map((p) => p.token);
    expect(tokensOf((await storage.find({ limit: 3 })).rows)).toEqual(newest);
    expect(tokensOf((await storage.find({ limit: 3, text: 'cart lines' })).rows)).toEqual(newest);
    expect(tokensOf((await storage.find({ limit: 3, url: 'localhost/item' })).rows)).toEqual(newest);
  });

  describe('order', () => {
    it('puts equal times in reverse write order, within a batch and across batches', async () => {
      await storage.write([
        record('000001', { time: T0 }),
        record('000002', { time: T0 + 1 }),
        record('000003', { time: T0 }),
      ]);
      await storage.write([record('000004', { time: T0 }), record('000005', { time: T0 - 1 })]);
      const { rows } = await storage.find({ limit: 10 });
      expect(tokensOf(rows)).toEqual(['000002', '000004', '000003', '000001', '000005']);
      expect(tokensOf((await storage.find({ limit: 10, method: 'GET' })).rows)).toEqual([
        '000002',
        '000004',
        '000003',
        '000001',
        '000005',
      ]);
      expect(tokensOf((await storage.find({ limit: 10, url: 'localhost' })).rows)).toEqual([
        '000002',
        '000004',
        '000003',
        '000001',
        '000005',
      ]);
    });

    it('gives the neighbours by time, then write order', async () => {
      await storage.write([
        record('000001', { time: T0 }),
        record('000002', { time: T0 + 10 }),
        record('000003', { time: T0 }),
      ]);
      const neighbours = async (token: string) => {
        const { previous, next } = await storage.neighbours(token);
        return [previous?.token ?? null, next?.token ?? null];
      };
      expect(await neighbours('000001')).toEqual([null, '000003']);
      expect(await neighbours('000003')).toEqual(['000001', '000002']);
      expect(await neighbours('000002')).toEqual(['000003', null]);
      expect(await neighbours('ffffff')).toEqual([null, null]);
      expect((await storage.neighbours('000003')).next).toEqual(summary(record('000002', { time: T0 + 10 })));
    });
  });

  describe('matches the documented semantics on a varied store', () => {
    // Profiles over 30 hours (hourly totals, partial hours at range ends), searched both when matches are common
    // (walking from the newest) and rare (through the indexes), compared with a plain filter over the same data.
    const all: ProfileRecord[] = [];
    for (let i = 0; i < 900; i++) {
      const p = sampleProfile(i, {
        time: T0 + (Math.floor(i * i * 0.13 * 1000) % (30 * HOUR)),
        token: (0x100000 + i * 7919).toString(16).slice(-6),
      });
      all.push({ ...p, data: {} });
    }
    const expected = (c: ProfileSearchCriteria) => {
      const statusRange = c.statusCode
        ? [
            Number(c.statusCode) * 10 ** (3 - c.statusCode.length),
            (Number(c.statusCode) + 1) * 10 ** (3 - c.statusCode.length) - 1,
          ]
        : null;
      const order = all
        .map((p, i) => ({ p, i }))
        .sort((a, b) => b.p.time - a.p.time || b.i - a.i)
        .map(({ p }) => p);
      const matches = order.filter(
        (p) =>
          (c.ip === undefined || p.ip.startsWith(c.ip)) &&
          (c.method === undefined || p.method.toUpperCase() === c.method.toUpperCase()) &&
          (statusRange === null || (p.statusCode >= statusRange[0] && p.statusCode <= statusRange[1])) &&
          (c.url === undefined || p.url.toLowerCase().includes(c.url.toLowerCase())) &&
          (c.token === undefined || p.token.startsWith(c.token)) &&
          (c.start === undefined || p.time >= c.start) &&
          (c.end === undefined || p.time <= c.end) &&
          (c.kinds === undefined || c.kinds.includes(p.kind)),
      );
      return { total: matches.length, rows: matches.slice(0, c.limit).map(summary) };
    };

    beforeEach(async () => {
      for (let i = 0; i < all.length; i += 200) await storage.write(all.slice(i, i + 200));
    });

    const cases: ProfileSearchCriteria[] = [
      { limit: 10 },
      { limit: 5, method: 'GET' },
      { limit: 5, method: 'delete' },
      { limit: 5, method: 'OPTIONS' },
      { limit: 10, statusCode: '2' },
      { limit: 10, statusCode: '4' },
      { limit: 10, statusCode: '40' },
      { limit: 10, statusCode: '500' },
      { limit: 10, ip: '127.0.0.1' },
      { limit: 10, ip: '192.168.' },
      { limit: 10, ip: '10.1' },
      { limit: 10, ip: '2001:db8:' },
      { limit: 10, url: '/product/' },
      { limit: 10, url: 'checkout' },
      { limit: 10, url: 'LOCALHOST' },
      { limit: 10, url: 'wool-' },
      { limit: 10, url: 'q=' },
      { limit: 10, token: 'a' },
      { limit: 10, token: 'f1' },
      { limit: 10, token: '3' },
      { limit: 10, token: '2c' },
      { limit: 10, start: T0 + 90 * 60_000 + 17, end: T0 + 5 * HOUR - 1 },
      { limit: 10, start: T0 + 7 * HOUR + 123, end: T0 + 7 * HOUR + 40 * 60_000 },
      { limit: 10, start: T0 + 29 * HOUR },
      { limit: 10, end: T0 + 2 * HOUR },
      { limit: 10, method: 'GET', statusCode: '2', start: T0 + 3 * HOUR + 5, end: T0 + 20 * HOUR + 59_999 },
      { limit: 10, method: 'POST', statusCode: '3', start: T0 + 10 * HOUR },
      { limit: 10, ip: '192.168.', method: 'GET', statusCode: '2' },
      { limit: 10, ip: '10.', method: 'post' },
      { limit: 10, ip: '127.0.0.1', statusCode: '40' },
      { limit: 10, ip: '2001:db8:', method: 'GET', statusCode: '404' },
      { limit: 10, url: 'checkout', method: 'POST' },
      { limit: 10, url: '/product/', method: 'GET', statusCode: '404' },
      { limit: 10, url: 'LOCALHOST', statusCode: '5' },
      { limit: 10, url: 'q=', method: 'get', statusCode: '200' },
      { limit: 10, url: '/cart/items/1', method: 'DELETE' },
      { limit: 10, url: ':3000/', statusCode: '3' },
      { limit: 10, url: 'shoe-1', method: 'GET', statusCode: '2' },
      { limit: 10, url: 'nothing-like-this', method: 'GET' },
      { limit: 10, url: 'cart', statusCode: '4' },
      { limit: 10, url: '/product/', method: 'GET', start: T0 + 12 * HOUR, end: T0 + 18 * HOUR },
      { limit: 3, url: 'ca', ip: '127.' },
      { limit: 50, statusCode: '3', ip: '1' },
      { limit: 10, ip: '203.0.113.' },
      { limit: 10, url: 'nothing-like-this' },
      { limit: 10, statusCode: '599' },
      // Kinds (sampleProfile: about a fifth profiler pages, a fifth assets), alone and with each filter.
      { limit: 10, kinds: APPLICATION },
      { limit: 0, kinds: APPLICATION },
      { limit: 10, kinds: ['asset'] },
      { limit: 10, kinds: ['profiler', 'asset'] },
      { limit: 10, kinds: ['asset', 'profiler', 'application'] },
      { limit: 10, kinds: [] },
      { limit: 10, kinds: [], method: 'GET' },
      { limit: 10, kinds: APPLICATION, ip: '127.0.0.1' },
      { limit: 10, kinds: APPLICATION, ip: '192.168.' },
      { limit: 10, kinds: ['profiler'], ip: '2001:db8:' },
      { limit: 10, kinds: APPLICATION, method: 'GET' },
      { limit: 5, kinds: APPLICATION, method: 'delete' },
      { limit: 10, kinds: ['asset'], method: 'POST' },
      { limit: 10, kinds: APPLICATION, statusCode: '4' },
      { limit: 10, kinds: APPLICATION, statusCode: '200' },
      { limit: 10, kinds: ['asset'], statusCode: '3' },
      { limit: 10, kinds: APPLICATION, url: '/product/' },
      { limit: 10, kinds: ['profiler'], url: '_profiler' },
      { limit: 10, kinds: APPLICATION, url: 'shoe-1' },
      { limit: 10, kinds: ['asset', 'profiler'], url: 'localhost' },
      { limit: 10, kinds: APPLICATION, token: 'a' },
      { limit: 10, kinds: ['profiler'], token: '2c' },
      { limit: 10, kinds: APPLICATION, start: T0 + 90 * 60_000 + 17, end: T0 + 5 * HOUR - 1 },
      { limit: 10, kinds: ['asset'], start: T0 + 7 * HOUR + 123, end: T0 + 7 * HOUR + 40 * 60_000 },
      { limit: 10, kinds: APPLICATION, start: T0 + 29 * HOUR },
      { limit: 10, kinds: ['profiler', 'asset'], end: T0 + 2 * HOUR },
      {
        limit: 10,
        kinds: APPLICATION,
        method: 'GET',
        statusCode: '2',
        start: T0 + 3 * HOUR + 5,
        end: T0 + 20 * HOUR + 59_999,
      },
      { limit: 10, kinds: APPLICATION, ip: '192.168.', method: 'GET', statusCode: '2' },
      { limit: 10, kinds: APPLICATION, ip: '10.', start: T0 + 2 * HOUR + 1, end: T0 + 11 * HOUR - 1 },
      { limit: 10, kinds: APPLICATION, url: 'checkout', method: 'POST' },
      { limit: 10, kinds: APPLICATION, url: 'cart', statusCode: '4' },
      { limit: 10, kinds: APPLICATION, url: '/product/', method: 'GET', start: T0 + 12 * HOUR, end: T0 + 18 * HOUR },
      { limit: 3, kinds: APPLICATION, url: 'ca', ip: '127.' },
      {
        limit: 10,
        kinds: ['asset'],
        ip: '127.',
        url: '.css',
        method: 'GET',
        statusCode: '2',
        token: '',
        start: T0 + HOUR + 1,
      },
    ];
    it.each(cases.map((c) => [JSON.stringify(c), c] as const))('%s', async (_name, criteria) => {
      expect(await storage.find(criteria)).toEqual(expected(criteria));
    });

    it('keeps every count exact once the oldest are pruned', async () => {
      const oldest = all.map((p, i) => ({ p, i })).sort((a, b) => a.p.time - b.p.time || a.i - b.i);
      const removed = await storage.prune({ maxProfiles: 350, maxAgeMs: 0, now: T0 });
      expect(removed).toEqual(oldest.slice(0, all.length - 350).map(({ p }) => p.token));
      const kept = new Set(oldest.slice(all.length - 350).map(({ p }) => p.token));
      for (const criteria of cases) {
        const whole = expected({ ...criteria, limit: all.length });
        const left = whole.rows.filter((row) => kept.has(row.token));
        expect(await storage.find(criteria)).toEqual({ total: left.length, rows: left.slice(0, criteria.limit) });
      }
      expect(await storedCount(storage)).toBe(350);
    });
  });

  describe('kinds', () => {
    it('finds the newest application requests when the newest profiles are all of other kinds', async () => {
      // 3,000 profiles over three hours: the 40 oldest are the application's (every other one a POST), the others
      // assets and profiler pages. The walk from the newest gives up; the rows are found all the same.
      const profiles = Array.from({ length: 3000 }, (_, i) =>
        record((0x200000 + i).toString(16), {
          time: T0 + i * 3600,
          kind: i < 40 ? 'application' : i % 2 === 0 ? 'asset' : 'profiler',
          method: i % 2 === 0 ? 'GET' : 'POST',
          ip: i % 3 === 0 ? '10.0.0.1' : '127.0.0.1',
        }),
      );
      for (let i = 0; i < profiles.length; i += 500) await storage.write(profiles.slice(i, i + 500));
      const newestOf = (test: (p: ProfileRecord) => boolean, limit = 10) => {
        const matches = profiles.filter(test).reverse();
        return { total: matches.length, rows: matches.slice(0, limit).map(summary) };
      };
      const application = (p: ProfileRecord) => p.kind === 'application';
      expect(await storage.find({ limit: 10, kinds: APPLICATION })).toEqual(newestOf(application));
      expect(await storage.find({ limit: 10, kinds: APPLICATION, method: 'POST' })).toEqual(
        newestOf((p) => application(p) && p.method === 'POST'),
      );
      expect(await storage.find({ limit: 10, kinds: APPLICATION, statusCode: '2' })).toEqual(newestOf(application));
      expect(await storage.find({ limit: 10, kinds: APPLICATION, ip: '10.' })).toEqual(
        newestOf((p) => application(p) && p.ip === '10.0.0.1'),
      );
      expect(
        await storage.find({ limit: 5, kinds: APPLICATION, start: T0 + 10 * 3600, end: T0 + 2000 * 3600 }),
      ).toEqual(newestOf((p) => application(p) && p.time >= T0 + 10 * 3600, 5));
      expect(await storage.find({ limit: 10, kinds: ['profiler'], start: T0, end: T0 + 100 * 3600 })).toEqual(
        newestOf((p) => p.kind === 'profiler' && p.time <= T0 + 100 * 3600),
      );
      expect(await storage.find({ limit: 0 })).toEqual({ total: 3000, rows: [] });
    });

    it('gives the neighbours of the given kinds only, skipping the others', async () => {
      const kinds: ProfileKind[] = ['application', 'asset', 'asset', 'profiler', 'application', 'asset', 'profiler'];
      await storage.write(kinds.map((kind, i) => record(`00000${i}`, { kind, time: T0 + i })));
      const neighbours = async (token: string, of?: readonly ProfileKind[]) => {
        const { previous, next } = await storage.neighbours(token, of);
        return [previous?.token ?? null, next?.token ?? null];
      };
      expect(await neighbours('000004', APPLICATION)).toEqual(['000000', null]);
      expect(await neighbours('000000', APPLICATION)).toEqual([null, '000004']);
      // The profile itself may be of another kind.
      expect(await neighbours('000003', ['asset'])).toEqual(['000002', '000005']);
      expect(await neighbours('000003', ['application', 'profiler'])).toEqual(['000000', '000004']);
      expect(await neighbours('000003')).toEqual(['000002', '000004']);
      expect(await neighbours('000003', ['asset', 'profiler', 'application'])).toEqual(['000002', '000004']);
      expect(await neighbours('000003', [])).toEqual([null, null]);
      expect((await storage.neighbours('000005', ['profiler'])).next).toEqual(
        summary(record('000006', { kind: 'profiler', time: T0 + 6 })),
      );
    });

    it('lists the requests a redirect led to, oldest first, and forgets them when pruned', async () => {
      await storage.write([
        record('000001', { statusCode: 302, time: T0 }),
        record('000003', { redirectedFrom: '000001', time: T0 + 20 }),
        record('000002', { redirectedFrom: '000001', time: T0 + 10, kind: 'asset' }),
        record('000004', { redirectedFrom: '000003', time: T0 + 30 }),
        record('000005', { time: T0 + 40 }),
      ]);
      expect(tokensOf(await storage.redirectsFrom('000001'))).toEqual(['000002', '000003']);
      expect(await storage.redirectsFrom('000003')).toEqual([
        summary(record('000004', { redirectedFrom: '000003', time: T0 + 30 })),
      ]);
      expect(await storage.redirectsFrom('000005')).toEqual([]);
      expect(await storage.redirectsFrom('ffffff')).toEqual([]);
      await storage.prune({ maxProfiles: 3, maxAgeMs: 0, now: T0 });
      expect(tokensOf(await storage.redirectsFrom('000001'))).toEqual(['000003']);
    });

    it('keeps the totals of each kind exact through prune and clear', async () => {
      const kinds: ProfileKind[] = ['application', 'profiler', 'asset'];
      const profiles = Array.from({ length: 600 }, (_, i) =>
        record((0x300000 + i).toString(16), {
          time: T0 + i * 30_000,
          kind: kinds[Math.floor(i / 7) % 3],
          method: i % 4 === 0 ? 'POST' : 'GET',
          statusCode: i % 5 === 0 ? 404 : 200,
          ip: `10.0.${i % 3}.1`,
        }),
      );
      await storage.write(profiles);
      const expectExact = async (kept: ProfileRecord[]) => {
        const count = (test: (p: ProfileRecord) => boolean) => kept.filter(test).length;
        const of = (p: ProfileRecord, list: readonly ProfileKind[]) => list.includes(p.kind);
        for (const list of [APPLICATION, ['asset'], ['profiler', 'asset']] as const) {
          expect((await storage.find({ limit: 1, kinds: list })).total).toBe(count((p) => of(p, list)));
          expect((await storage.find({ limit: 1, kinds: list, method: 'POST' })).total).toBe(
            count((p) => of(p, list) && p.method === 'POST'),
          );
          expect((await storage.find({ limit: 1, kinds: list, statusCode: '4' })).total).toBe(
            count((p) => of(p, list) && p.statusCode === 404),
          );
          expect((await storage.find({ limit: 1, kinds: list, ip: '10.0.1' })).total).toBe(
            count((p) => of(p, list) && p.ip === '10.0.1.1'),
          );
          expect(
            (await storage.find({ limit: 1, kinds: list, ip: '10.0.', method: 'GET', statusCode: '2' })).total,
          ).toBe(count((p) => of(p, list) && p.method === 'GET' && p.statusCode === 200));
          const [start, end] = [T0 + HOUR + 17, T0 + 4 * HOUR + 5];
          expect((await storage.find({ limit: 1, kinds: list, start, end })).total).toBe(
            count((p) => of(p, list) && p.time >= start && p.time <= end),
          );
        }
        expect((await storage.find({ limit: 0 })).total).toBe(kept.length);
      };
      await expectExact(profiles);
      await storage.prune({ maxProfiles: 250, maxAgeMs: 0, now: T0 });
      await expectExact(profiles.slice(350));
      expect(await storage.clear()).toBe(250);
      await expectExact([]);
      await storage.write(profiles.slice(0, 100));
      await expectExact(profiles.slice(0, 100));
    });
  });

  it('finds the newest matches when they are common overall but missing among the newest', async () => {
    // 3,000 profiles, the 100 POSTs the oldest: the walk from the newest gives up and seeks them.
    const profiles = Array.from({ length: 3000 }, (_, i) =>
      record(i.toString(16).padStart(6, '0'), { time: T0 + i, method: i < 100 ? 'POST' : 'GET' }),
    );
    for (let i = 0; i < profiles.length; i += 500) await storage.write(profiles.slice(i, i + 500));
    const result = await storage.find({ limit: 10, ip: '127.', method: 'POST' });
    expect(result.total).toBe(100);
    expect(tokensOf(result.rows)).toEqual([
      '000063',
      '000062',
      '000061',
      '000060',
      '00005f',
      '00005e',
      '00005d',
      '00005c',
      '00005b',
      '00005a',
    ]);
  });

  it('searches a URL part found in more than a thousand distinct URLs', async () => {
    const profiles = Array.from({ length: 1500 }, (_, i) =>
      record(i.toString(16).padStart(6, '0'), {
        time: T0 + i * 1000,
        url: i % 5 === 0 ? `http://localhost/cart/${i}` : `http://localhost/Item/${i}?ref=${i % 7}`,
        method: i % 3 === 0 ? 'POST' : 'GET',
      }),
    );
    for (let i = 0; i < profiles.length; i += 500) await storage.write(profiles.slice(i, i + 500));
    const expected = (test: (p: ProfileRecord) => boolean, limit = 10) => {
      const matches = profiles.filter(test).reverse();
      return { total: matches.length, rows: matches.slice(0, limit).map(summary) };
    };
    const items = (p: ProfileRecord) => p.url.includes('/Item/');
    expect(await storage.find({ limit: 10, url: 'item/' })).toEqual(expected(items));
    expect(await storage.find({ limit: 10, url: 'IT' })).toEqual(expected(items));
    expect(await storage.find({ limit: 10, url: 'item/', method: 'post' })).toEqual(
      expected((p) => items(p) && p.method === 'POST'),
    );
    expect(await storage.find({ limit: 5, url: 'item/', start: T0 + 100_000, end: T0 + 400_000 })).toEqual(
      expected((p) => items(p) && p.time >= T0 + 100_000 && p.time <= T0 + 400_000, 5),
    );
    expect(await storage.find({ limit: 10, url: 'ref=3', token: '00' })).toEqual(
      expected((p) => p.url.includes('ref=3') && p.token.startsWith('00')),
    );
  });

  it('searches a URL part with digits found in more than a thousand distinct URLs', async () => {
    const profiles = Array.from({ length: 3000 }, (_, i) =>
      record(i.toString(16).padStart(6, '0'), {
        time: T0 + i * 1000,
        url: `http://localhost:${i % 3 === 0 ? 8080 : 3000}/Item/${i}?p=${i % 13}`,
        method: i % 4 === 0 ? 'POST' : 'GET',
      }),
    );
    for (let i = 0; i < profiles.length; i += 500) await storage.write(profiles.slice(i, i + 500));
    const expected = (test: (p: ProfileRecord) => boolean, limit = 10) => {
      const matches = profiles.filter(test).reverse();
      return { total: matches.length, rows: matches.slice(0, limit).map(summary) };
    };
    const has = (part: string) => (p: ProfileRecord) => p.url.toLowerCase().includes(part);
    for (const url of [':3000/', '0/item/', 'item/1', '=1', '1?p=1', '8080/item/2', 'host:8080']) {
      expect(await storage.find({ limit: 10, url })).toEqual(expected(has(url)));
    }
    expect(await storage.find({ limit: 10, url: ':3000/', method: 'POST' })).toEqual(
      expected((p) => has(':3000/')(p) && p.method === 'POST'),
    );
    expect(await storage.find({ limit: 5, url: 'item/1', start: T0 + 100_000, end: T0 + 1_500_000 })).toEqual(
      expected((p) => has('item/1')(p) && p.time >= T0 + 100_000 && p.time <= T0 + 1_500_000, 5),
    );
  });

  it('matches URL parts with digits and "#" exactly (a store may group URLs that differ by numbers)', async () => {
    await storage.write([
      record('000001', { url: 'http://localhost/item/12/edit', time: T0 + 1 }),
      record('000002', { url: 'http://localhost/item/7/edit', time: T0 + 2 }),
      record('000003', { url: 'http://localhost/item#/edit', time: T0 + 3 }),
      record('000004', { url: 'http://localhost/items/edit', time: T0 + 4 }),
    ]);
    const find = async (url: string) => {
      const result = await storage.find({ limit: 10, url });
      return { total: result.total, tokens: tokensOf(result.rows) };
    };
    expect(await find('item/')).toEqual({ total: 2, tokens: ['000002', '000001'] });
    expect(await find('#/')).toEqual({ total: 1, tokens: ['000003'] });
    expect(await find('m/1')).toEqual({ total: 1, tokens: ['000001'] });
    expect(await find('/7/')).toEqual({ total: 1, tokens: ['000002'] });
    expect(await find('7')).toEqual({ total: 1, tokens: ['000002'] });
    expect(await find('/1')).toEqual({ total: 1, tokens: ['000001'] });
    expect(await find('/EDIT')).toEqual({ total: 4, tokens: ['000004', '000003', '000002', '000001'] });
    expect((await storage.find({ limit: 10, url: 'item/', method: 'GET', statusCode: '2' })).total).toBe(2);
    expect((await storage.find({ limit: 10, url: 'item/', start: T0 + 2, end: T0 + 3 })).total).toBe(1);
  });

  it('folds the case of ASCII letters only in URLs (as LIKE does)', async () => {
    await storage.write([
      record('000001', { url: 'http://localhost/Café' }),
      record('000002', { url: 'http://localhost/CAFÉ' }),
    ]);
    expect(tokensOf((await storage.find({ limit: 10, url: 'cafÉ' })).rows)).toEqual(['000002']);
    expect(tokensOf((await storage.find({ limit: 10, url: 'CAFé' })).rows)).toEqual(['000001']);
    expect(tokensOf((await storage.find({ limit: 10, url: 'caf' })).rows)).toEqual(['000002', '000001']);
    expect(tokensOf((await storage.find({ limit: 10, url: 'é' })).rows)).toEqual(['000001']);
  });

  describe('tokens', () => {
    let tokenStore: TokenStore;

    beforeEach(() => {
      tokenStore = target.tokens(storage);
    });

    it('says which tokens are taken', async () => {
      await storage.write([record('000001'), record('00000a')]);
      expect(await tokenStore.taken(['000001', '000002', '00000a', 'zzz'])).toEqual(new Set(['000001', '00000a']));
      expect(await tokenStore.taken([])).toEqual(new Set());
    });

    it('lists the tokens written since a cursor, in write order whatever their times, a page at a time', async () => {
      expect(await tokenStore.tokensSince(null)).toEqual({ tokens: [], cursor: null });
      await storage.write([record('000003', { time: T0 }), record('000001', { time: T0 - 5 })]);
      await storage.write([record('000002', { time: T0 - 10 })]);
      const all = await tokenStore.tokensSince(null);
      expect(all.tokens).toEqual(['000003', '000001', '000002']);
      expect(typeof all.cursor).toBe('string');
      const first = await tokenStore.tokensSince(null, 2);
      expect(first.tokens).toEqual(['000003', '000001']);
      const second = await tokenStore.tokensSince(first.cursor, 2);
      expect(second.tokens).toEqual(['000002']);
      expect(second.cursor).toBe(all.cursor);
      expect(await tokenStore.tokensSince(second.cursor, 2)).toEqual({ tokens: [], cursor: second.cursor });
      await storage.write([record('000004', { time: T0 - 20 })]);
      const third = await tokenStore.tokensSince(second.cursor);
      expect(third.tokens).toEqual(['000004']);
      expect(third.cursor).not.toBe(second.cursor);
    });

    it('goes on after a cursor whose profile was pruned', async () => {
      await storage.write([record('000001', { time: T0 }), record('000002', { time: T0 + 1 })]);
      const { cursor } = await tokenStore.tokensSince(null);
      await storage.prune({ maxProfiles: 0, maxAgeMs: 1, now: T0 + 10 });
      await storage.write([record('000003', { time: T0 + 20 })]);
      expect((await tokenStore.tokensSince(cursor)).tokens).toEqual(['000003']);
    });

    it('reserves the tokens nobody has, and lets its instance write them', async () => {
      await storage.write([record('000001')]);
      expect(await tokenStore.reserveTokens(['000001', '000002', '000002', '000003'])).toEqual(['000002', '000003']);
      await storage.write([record('000002')]);
      expect(await storage.read('000002')).not.toBeNull();
      await tokenStore.releaseTokens(['000003', '000002']);
      expect(await storage.read('000002')).not.toBeNull();
      expect(await tokenStore.reserveTokens([])).toEqual([]);
    });

    it('iterates every stored token, across pages', async () => {
      const tokens = Array.from({ length: 20_005 }, (_, i) => (i * 97).toString(16).padStart(6, '0'));
      for (let i = 0; i < tokens.length; i += 5000)
        await storage.write(tokens.slice(i, i + 5000).map((t) => record(t)));
      const seen: string[] = [];
      for await (const token of tokenStore.allTokens()) seen.push(token);
      expect(seen).toEqual([...tokens].sort());
    });
  });

  describe('prune', () => {
    const seven = () =>
      Array.from({ length: 7 }, (_, i) =>
        record(`00000${i}`, {
          time: T0 + i * 1000,
          statusCode: 200 + i,
          method: i % 2 ? 'POST' : 'GET',
          ip: `10.0.0.${i % 3}`,
        }),
      );

    it('keeps the newest maxProfiles, returns the removed tokens and removes their data', async () => {
      await storage.write(seven());
      const removed = await storage.prune({ maxProfiles: 4, maxAgeMs: 0, now: T0 });
      expect(removed).toEqual(['000000', '000001', '000002']);
      expect(await storedCount(storage)).toBe(4);
      expect(await storage.read('000001')).toBeNull();
      expect(await storage.read('000003')).not.toBeNull();
      expect(tokensOf((await storage.find({ limit: 10 })).rows)).toEqual(['000006', '000005', '000004', '000003']);
      expect((await storage.find({ limit: 10, method: 'post' })).total).toBe(2);
      expect((await storage.find({ limit: 10, ip: '10.0.0.0' })).total).toBe(2);
      expect((await storage.find({ limit: 10, url: 'localhost/000002' })).total).toBe(0);
      expect(await storage.neighbours('000003')).toEqual({ previous: null, next: summary(seven()[4]) });
    });

    it('removes profiles older than maxAgeMs before now', async () => {
      await storage.write(seven());
      const removed = await storage.prune({ maxProfiles: 0, maxAgeMs: 2500, now: T0 + 5000 });
      expect(removed).toEqual(['000000', '000001', '000002']);
      expect(tokensOf((await storage.find({ limit: 10 })).rows)).toEqual(['000006', '000005', '000004', '000003']);
    });

    it('applies both limits', async () => {
      await storage.write(seven());
      expect(await storage.prune({ maxProfiles: 2, maxAgeMs: 1500, now: T0 + 3000 })).toEqual([
        '000000',
        '000001',
        '000002',
        '000003',
        '000004',
      ]);
      expect(await storedCount(storage)).toBe(2);
    });

    it('removes nothing within the limits', async () => {
      await storage.write(seven());
      expect(await storage.prune({ maxProfiles: 7, maxAgeMs: 60_000, now: T0 + 6000 })).toEqual([]);
      expect(await storage.prune({ maxProfiles: 0, maxAgeMs: 0, now: T0 })).toEqual([]);
      expect(await storedCount(storage)).toBe(7);
    });

    it('keeps exactly the newest maxProfiles across hours, wherever the cut falls (equal times in write order)', async () => {
      // Four hours, the second empty; equal times on both sides of an hour's start, and a run of equal times.
      const HOUR = 3_600_000;
      const start = Math.floor(T0 / HOUR) * HOUR;
      const times = [
        start,
        start + 5,
        start + 5,
        start + HOUR - 1,
        start + HOUR - 1,
        start + 2 * HOUR,
        start + 2 * HOUR,
        start + 2 * HOUR + 7,
        start + 2 * HOUR + 7,
        start + 2 * HOUR + 7,
        start + 3 * HOUR - 1,
        start + 3 * HOUR,
        start + 3 * HOUR + 1,
      ];
      const profiles = times.map((time, i) => record(i.toString(16).padStart(6, '0'), { time }));
      for (const keep of [12, 10, 8, 7, 6, 3, 2, 1]) {
        await storage.clear();
        // Written newest first in pairs (11 12, 9 10, …, 0), so that write order and time order differ: of the
        // three equal times 7, 8 and 9, 9 was written first.
        const written: number[] = [];
        for (let i = profiles.length; i > 0; i -= 2) {
          const slice = [Math.max(0, i - 2), i];
          await storage.write(profiles.slice(slice[0], slice[1]));
          for (let j = slice[0]; j < slice[1]; j++) written.push(j);
        }
        const oldest = [...written]
          .sort((a, b) => profiles[a].time - profiles[b].time || written.indexOf(a) - written.indexOf(b))
          .map((i) => profiles[i].token);
        const removed = await storage.prune({ maxProfiles: keep, maxAgeMs: 0, now: T0 });
        expect([keep, removed]).toEqual([keep, oldest.slice(0, profiles.length - keep)]);
        expect(await storedCount(storage)).toBe(keep);
        expect(tokensOf((await storage.find({ limit: 20 })).rows).sort()).toEqual(
          oldest.slice(profiles.length - keep).sort(),
        );
      }
    });

    it("reads every profile a prune leaves of a batch, its times in any order, in frames of the batch's own", async () => {
      // One write: sample profiles (several compressed frames) at shuffled times, so that write order and time order
      // differ within each frame; then prunes by count and by age cut through them.
      const order = Array.from({ length: 120 }, (_, i) => (i * 37) % 120);
      const batch = order.map((t, i) =>
        sampleProfile(i, { time: T0 + t * 1000, token: `00a${i.toString(16).padStart(3, '0')}` }),
      );
      await storage.write(batch);
      const byTime = [...batch].sort((a, b) => a.time - b.time);
      const check = async (kept: number) => {
        const left = new Set(byTime.slice(byTime.length - kept));
        for (const profile of batch.filter((_, i) => i % 7 === 0 || i > 110))
          expect(await storage.read(profile.token)).toEqual(left.has(profile) ? profile : null);
      };
      await check(120);
      await storage.prune({ maxProfiles: 90, maxAgeMs: 0, now: T0 });
      await check(90);
      await storage.prune({ maxProfiles: 0, maxAgeMs: 1, now: T0 + 100_000 });
      await check(20);
    });

    it('prunes many profiles in several chunks, oldest first', async () => {
      const profiles = Array.from({ length: 6000 }, (_, i) =>
        record(i.toString(16).padStart(6, '0'), { time: T0 + Math.floor(i / 2), url: `http://localhost/p/${i % 13}` }),
      );
      for (let i = 0; i < profiles.length; i += 1000) await storage.write(profiles.slice(i, i + 1000));
      const removed = await storage.prune({ maxProfiles: 1000, maxAgeMs: 0, now: T0 });
      expect(removed).toEqual(profiles.slice(0, 5000).map((p) => p.token));
      expect(await storedCount(storage)).toBe(1000);
      expect((await storage.find({ limit: 1, url: '/p/12' })).total).toBe(
        profiles.slice(5000).filter((p) => p.url.endsWith('/p/12')).length,
      );
      expect((await storage.find({ limit: 1, start: T0, end: T0 + 2499 })).total).toBe(0);
    });
  });

  it('keeps a URL searchable while a profile has it, and forgets it with the last one', async () => {
    const url = 'http://localhost:3000/checkout?step=1';
    await storage.write([
      record('000001', { url, time: T0 }),
      record('000002', { url, time: T0 + 1 }),
      record('000003', { url: 'http://localhost:3000/cart', time: T0 + 2 }),
      record('000004', { url, time: T0 + 3 }),
    ]);
    expect(await storage.find({ limit: 10, url: 'checkout' })).toEqual({
      total: 3,
      rows: [
        record('000004', { url, time: T0 + 3 }),
        record('000002', { url, time: T0 + 1 }),
        record('000001', { url, time: T0 }),
      ].map(summary),
    });
    await storage.prune({ maxProfiles: 3, maxAgeMs: 0, now: T0 });
    expect((await storage.find({ limit: 10, url: 'checkout' })).total).toBe(2);
    expect((await storage.find({ limit: 10, url: 'p=' })).total).toBe(2);
    await storage.prune({ maxProfiles: 1, maxAgeMs: 0, now: T0 });
    expect((await storage.find({ limit: 10, url: 'checkout' })).total).toBe(1);
    await storage.prune({ maxAgeMs: 1, maxProfiles: 0, now: T0 + 10 });
    expect(await storedCount(storage)).toBe(0);
    expect(await storage.find({ limit: 10, url: 'checkout' })).toEqual({ total: 0, rows: [] });
    expect(await storage.find({ limit: 10, url: 'p=' })).toEqual({ total: 0, rows: [] });
    await storage.write([record('000005', { url, time: T0 + 20 })]);
    expect(tokensOf((await storage.find({ limit: 10, url: 'CHECKOUT?STEP' })).rows)).toEqual(['000005']);
  });

  it('clears every profile and says how many there were', async () => {
    await storage.write([record('000001'), record('000002', { url: 'http://localhost/checkout' })]);
    expect(await storage.clear()).toBe(2);
    expect(await storedCount(storage)).toBe(0);
    expect(await storage.find({ limit: 10 })).toEqual({ total: 0, rows: [] });
    expect(await storage.find({ limit: 10, url: 'checkout' })).toEqual({ total: 0, rows: [] });
    expect(await storage.read('000001')).toBeNull();
    await storage.write([record('000002')]);
    expect(await storedCount(storage)).toBe(1);
    expect(await storage.clear()).toBe(1);
  });

  it('reports its size in bytes', async () => {
    const empty = await storage.size();
    await storage.write(Array.from({ length: 50 }, (_, i) => sampleProfile(i)));
    expect(empty).toBeGreaterThan(0);
    expect(await storage.size()).toBeGreaterThan(empty);
  });
}
