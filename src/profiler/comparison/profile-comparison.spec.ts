import type { ProfileRecord } from '../storage/profile-record.js';
import { compareProfiles, normalisedSql } from './profile-comparison.js';

function record(token: string, data: Record<string, unknown>, overrides: Partial<ProfileRecord> = {}): ProfileRecord {
  return {
    token,
    parent: null,
    ip: '127.0.0.1',
    method: 'GET',
    url: 'http://shop.test/products',
    time: 1_800_000_000_000,
    statusCode: 200,
    kind: 'application',
    duration: 10,
    route: 'catalogue_products',
    redirectedFrom: null,
    data,
    ...overrides,
  } as ProfileRecord;
}

const query = (sql: string, duration: number) => ({ sql, params: [], duration, start: 0, caller: null, error: null });
const log = (level: number, channel: string, message: string, context: Record<string, unknown> = {}) => ({
  level,
  channel,
  message,
  context,
  time: 0,
});

describe('compareProfiles', () => {
  const a = record('aaaaaa', {
    performance: {
      total: 10,
      untilResponse: 8,
      sections: [
        { name: 'kernel.request', category: 'event', start: 0, duration: 2 },
        { name: 'RouterListener::onKernelRequest', category: 'listener', start: 0, duration: 1 },
        { name: 'CatalogueController::products', category: 'controller', start: 3, duration: 4 },
      ],
    },
    database: {
      queries: [query('select * from products limit ?', 1), query('select count(*) from products', 0.5)],
    },
    logs: { entries: [log(200, 'request', 'Matched route "{route}".', { route: 'catalogue_products' })] },
    response: {
      statusCode: 200,
      headers: { 'content-type': 'text/html', etag: 'W/"a"', 'x-debug-token': 'aaaaaa' },
      size: 100,
    },
    memory: { peakRss: 100 * 1024 * 1024 },
  });
  const b = record(
    'bbbbbb',
    {
      performance: {
        total: 25,
        untilResponse: 20,
        sections: [
          { name: 'kernel.request', category: 'event', start: 0, duration: 2.5 },
          { name: 'RouterListener::onKernelRequest', category: 'listener', start: 0, duration: 1 },
          { name: 'kernel.exception', category: 'event', start: 5, duration: 3 },
          { name: 'CatalogueController::products', category: 'controller', start: 3, duration: 14 },
        ],
      },
      database: {
        queries: [
          query('select *   from products\n limit ?', 2),
          query('select * from categories where id = ?', 1),
          query('select * from categories where id = ?', 1),
        ],
      },
      logs: {
        entries: [
          log(200, 'request', 'Matched route "{route}".', { route: 'catalogue_products' }),
          log(400, 'request', 'Uncaught {class}', { class: 'Error' }),
        ],
      },
      response: {
        statusCode: 500,
        headers: { 'content-type': 'text/html', 'x-debug-token': 'bbbbbb', 'x-extra': '1' },
        size: 300,
      },
      memory: { peakRss: 120 * 1024 * 1024 },
    },
    { statusCode: 500, duration: 25 },
  );

  const c = compareProfiles(a, b);

  it('gives both sides and the total time with its delta', () => {
    expect([c.a.token, c.a.status, c.b.token, c.b.status]).toEqual(['aaaaaa', 200, 'bbbbbb', 500]);
    expect(c.duration).toEqual({ name: 'total', aMs: 10, bMs: 25, deltaMs: 15 });
    expect([c.a.memoryPeakBytes, c.b.responseBytes]).toEqual([100 * 1024 * 1024, 300]);
  });

  it('pairs kernel events, the controller and the listeners by name, a side missing one saying so', () => {
    expect(c.events).toEqual([
      { name: 'kernel.request', aMs: 2, bMs: 2.5, deltaMs: 0.5 },
      { name: 'kernel.exception', aMs: null, bMs: 3, deltaMs: null },
    ]);
    expect(c.controller).toEqual({ name: 'CatalogueController::products', aMs: 4, bMs: 14, deltaMs: 10 });
    expect(c.listeners).toEqual([]);
  });

  it('matches queries by their normalised SQL: added, removed and run a different number of times', () => {
    expect(c.queries).toMatchObject({ aCount: 2, bCount: 3, aMs: 1.5, bMs: 4 });
    expect(c.queries.added).toEqual([
      { sql: 'select * from categories where id = ?', aCount: 0, bCount: 2, aMs: 0, bMs: 2 },
    ]);
    expect(c.queries.removed).toEqual([
      { sql: 'select count(*) from products', aCount: 1, bCount: 0, aMs: 0.5, bMs: 0 },
    ]);
    expect(c.queries.changed).toEqual([]);
  });

  it('lists log entries one side has more of, errors first, with their placeholders filled', () => {
    expect(c.logs).toEqual([
      { level: 'ERROR', levelNumber: 400, channel: 'request', message: 'Uncaught Error', aCount: 0, bCount: 1 },
    ]);
  });

  it('lists the response headers that differ, not the ones every response has its own of', () => {
    expect(c.headers).toEqual([
      { name: 'etag', a: 'W/"a"', b: null },
      { name: 'x-extra', a: null, b: '1' },
    ]);
  });

  it('compares profiles without the optional collectors', () => {
    const bare = compareProfiles(record('cccccc', {}), record('dddddd', {}, { duration: null }));
    expect(bare.duration).toEqual({ name: 'total', aMs: 10, bMs: null, deltaMs: null });
    expect([bare.events, bare.controller, bare.queries.added, bare.logs, bare.headers]).toEqual([[], null, [], [], []]);
  });
});

describe('normalisedSql', () => {
  it('folds white space only', () => {
    expect(normalisedSql('  select *\n\tfrom  "Products"  ')).toBe('select * from "Products"');
  });
});
