import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { ProfilerService } from '../src/profiler/profiler.service.js';
import { KernelFixturesModule } from './fixtures/kernel-fixtures.module.js';
import { ProfilerFixturesModule } from './fixtures/profiler-fixtures.module.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile, storedProfiles } from './support/profiler.js';

const HOST = 'shop.test';
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();

describe('The request list leaves the profiler and assets out (e2e)', () => {
  let app: NestExpressApplication;
  const get = (path: string) => request(app.getHttpServer()).get(path).set('Host', HOST);
  /** A search page, with every profile written first (as a developer's search sees what was there before it). */
  const search = async (query: string) => {
    await storedProfiles(app);
    return parse((await get(`/_profiler/search?${query}`).expect(200)).text);
  };
  const urls = (page: HTMLElement) =>
    page.querySelectorAll('table.results tbody tr').map((tr) => new URL(text(tr.querySelectorAll('td')[3])).pathname);
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    app = await createTestApp({ imports: [KernelFixturesModule, ProfilerFixturesModule] });
    // A developer's few minutes: application pages and calls, a picture, and the profiler's own pages.
    const visits: [string, string][] = [
      ['home', '/'],
      ['picture', '/pfx/picture.svg'],
      ['items', '/fixture/items'],
      ['profilerRedirect', '/_profiler'],
      ['searchPage', '/_profiler/search?limit=10'],
      ['page', '/pfx/page'],
      ['picture2', '/pfx/picture.svg?v=2'],
    ];
    for (const [name, path] of visits) {
      const res = await get(path);
      tokens[name] = res.headers['x-debug-token'];
    }
    await storedProfiles(app);
  });

  afterAll(async () => {
    await app.close();
  });

  it('records every request with its kind, route and duration', async () => {
    const kinds = await Promise.all(
      ['home', 'picture', 'items', 'profilerRedirect', 'searchPage', 'page'].map(
        async (name) => (await storedProfile(app, tokens[name])).kind,
      ),
    );
    expect(kinds).toEqual(['application', 'asset', 'application', 'profiler', 'profiler', 'application']);
    const items = await storedProfile(app, tokens.items);
    expect(items.route).toBe('fixture_items');
    expect(items.duration).toBeGreaterThan(0);
    expect((await storedProfile(app, tokens.profilerRedirect)).statusCode).toBe(301);
  });

  it('lists application requests only by default, says how many were left out and links to them, in the eight columns', async () => {
    const page = await search('limit=10');
    expect(text(page.querySelector('#results'))).toBe('3 results found');
    expect(urls(page)).toEqual(['/pfx/page', '/fixture/items', '/']);
    expect(page.querySelectorAll('table.results thead th').map(text)).toEqual([
      'Status',
      'IP',
      'Method',
      'URL',
      'Time',
      'Token',
      'Duration',
      'Route',
    ]);
    const items = page.querySelectorAll('table.results tbody tr')[1].querySelectorAll('td');
    expect(text(items[6])).toMatch(/^\d+\.\d ms$/);
    expect(text(items[7])).toBe('fixture_items');
    // The search pages are profiles too: the one before this one is counted.
    const leftOut = page.querySelector('.left-out')!;
    expect(text(leftOut)).toBe('4 left out: 2 profiler requests, 2 assets (list them all).');
    expect(leftOut.querySelectorAll('a').map((a) => a.getAttribute('href'))).toEqual([
      '/_profiler/search?limit=10&profiler=1',
      '/_profiler/search?limit=10&assets=1',
      '/_profiler/search?limit=10&profiler=1&assets=1',
    ]);
    expect(page.querySelector('input[name="profiler"]')!.getAttribute('checked')).toBeUndefined();
  });

  it('brings each hidden kind back with its switch, and both with both', async () => {
    const assets = await search('limit=10&assets=1');
    expect(text(assets.querySelector('#results'))).toBe('5 results found');
    expect(urls(assets)).toEqual(['/pfx/picture.svg', '/pfx/page', '/fixture/items', '/pfx/picture.svg', '/']);
    expect(assets.querySelector('input[name="assets"]')!.hasAttribute('checked')).toBe(true);
    expect(text(assets.querySelector('.left-out'))).toMatch(/^\d+ left out: \d+ profiler requests\.$/);

    const all = await search('limit=50&profiler=1&assets=1');
    expect(all.querySelector('.left-out')).toBeNull();
    expect(urls(all)).toContain('/_profiler');
    expect(urls(all)).toContain('/pfx/picture.svg');
    const { total } = await storedProfiles(app);
    // Everything stored, except this very page, whose profile was not written yet when it searched.
    expect(text(all.querySelector('#results'))).toBe(`${total - 1} results found`);
  });

  it('lists every kind for a URL search: /_profiler finds the 301 of GET /_profiler', async () => {
    const page = await search('limit=50&url=%2F_profiler');
    const rows = page.querySelectorAll('table.results tbody tr');
    const redirect = rows.find((tr) => text(tr.querySelectorAll('td')[5]) === tokens.profilerRedirect)!;
    expect(text(redirect.querySelectorAll('td')[0])).toBe('301');
    expect(text(redirect.querySelectorAll('td')[3])).toBe('http://shop.test/_profiler');
    expect(page.querySelector('.left-out')).toBeNull();
    expect(page.querySelector('input[name="profiler"]')!.hasAttribute('disabled')).toBe(true);
    expect(text(page.querySelector('fieldset.switches .muted'))).toBe('A URL or token search lists every kind.');

    const pictures = await search('limit=10&url=picture');
    expect(text(pictures.querySelector('#results'))).toBe('2 results found');
  });

  it('keeps other filters with the switches: a status filter counts what it leaves out of its own matches', async () => {
    const page = await search('limit=10&status_code=2');
    expect(urls(page)).toEqual(['/pfx/page', '/fixture/items', '/']);
    expect(text(page.querySelector('.left-out'))).toMatch(
      /^\d+ left out: \d+ profiler requests, 2 assets \(list them all\)\.$/,
    );
  });

  it('"Latest" opens the newest application request, not the profiler page before it', async () => {
    await storedProfiles(app);
    const res = await get('/_profiler/latest').expect(302);
    expect(res.headers.location).toBe(`/_profiler/${tokens.page}`);
  });

  it('walks Previous and Next among application requests', async () => {
    const page = parse((await get(`/_profiler/${tokens.items}`).expect(200)).text);
    expect(page.querySelector('a[rel="prev"]')!.getAttribute('href')).toBe(`/_profiler/${tokens.home}`);
    expect(page.querySelector('a[rel="next"]')!.getAttribute('href')).toBe(`/_profiler/${tokens.page}`);
    // A picture's profile leads to the next picture, or page.
    const picture = parse((await get(`/_profiler/${tokens.picture}`).expect(200)).text);
    expect(picture.querySelector('a[rel="next"]')!.getAttribute('href')).toBe(`/_profiler/${tokens.items}`);
  });

  it('refuses a switch it does not know with a 400', async () => {
    const res = await get('/_profiler/search?limit=10&assets=yes').expect(400);
    expect(res.text).toContain('assets must be 1 (list static assets) or empty');
  });

  it('keeps the count exact through the service, as the store counts it', async () => {
    const profiler = app.get(ProfilerService);
    const application = await profiler.find({ limit: 0, kinds: ['application'] });
    const everything = await profiler.find({ limit: 0 });
    expect(application.total).toBe(3);
    expect(everything.total).toBeGreaterThan(application.total);
  });
});
