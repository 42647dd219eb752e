import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../src/database/shop-db.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';

const HOST = 'shop.test';
const text = (element: HTMLElement | null) => (element?.text ?? '').replace(/\s+/g, ' ').trim();
const cells = (page: HTMLElement, table: string) =>
  page.querySelectorAll(`table.${table} tbody tr`).map((tr) => tr.querySelectorAll('td').map(text));

describe('Comparing two profiles (e2e)', () => {
  let app: NestExpressApplication;
  let all: string;
  let searched: string;
  let lonely: string;
  const get = (path: string) => request(app.getHttpServer()).get(path).set('Host', HOST);

  beforeAll(async () => {
    app = await createTestApp();
    await seedCatalogue(app.get(ShopDb));
    all = (await get('/products').expect(200)).headers['x-debug-token'];
    searched = (await get('/products?q=tea').expect(200)).headers['x-debug-token'];
    lonely = (await get('/').expect(200)).headers['x-debug-token'];
    for (const token of [all, searched, lonely]) await storedProfile(app, token);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('shows both requests, the time with its delta per kernel event, and the controller', async () => {
    const page = parse((await get(`/_profiler/${all}/compare/${searched}`).expect(200)).text);
    expect(text(page.querySelector('h1'))).toBe('Comparison');
    expect(page.querySelectorAll('.compare-side').map((side) => text(side.querySelector('.url')))).toEqual([
      'GET http://shop.test/products',
      'GET http://shop.test/products?q=tea',
    ]);
    expect(text(page.querySelector('.compare-side[data-side="b"] .side-label'))).toBe(`B · ${searched}`);
    const times = cells(page, 'compare-times');
    expect(times.map((row) => row[0])).toEqual([
      'Total',
      'kernel.request',
      'kernel.controller',
      'kernel.controller_arguments',
      'kernel.response',
      'kernel.finish_request',
      'Controller CatalogueController::products',
    ]);
    for (const row of times)
      expect(row.slice(1)).toEqual([
        expect.stringMatching(/ m?s$/),
        expect.stringMatching(/ m?s$/),
        expect.stringMatching(/^[+-][\d.]+ m?s$/),
      ]);
  });

  it('lists the statements the search added and the ones it no longer ran, matched by their SQL', async () => {
    const page = parse((await get(`/_profiler/${all}/compare/${searched}`).expect(200)).text);
    const added = cells(page, 'compare-queries.added');
    expect(added.map((row) => row.slice(0, 2))).toEqual(
      expect.arrayContaining([
        [
          expect.stringMatching(
            /^select count\(\*\) as "n" from "products" where products\.search_text like \? escape/,
          ),
          '1',
        ],
        [expect.stringMatching(/^select "products"\."id", .* where products\.search_text like \?/), '1'],
      ]),
    );
    expect(added).toHaveLength(2);
    const removed = cells(page, 'compare-queries.removed');
    expect(removed.map((row) => row[0])).toEqual(expect.arrayContaining(['select count(*) as "n" from "products"']));
    expect(removed).toHaveLength(2);
    expect(text(page.querySelector('.compare-queries.added')?.parentNode?.previousElementSibling ?? null)).toBe(
      'Added in B 2',
    );
  });

  it('shows what differs in the response, and the listeners whose time changed', async () => {
    const page = parse((await get(`/_profiler/${all}/compare/${searched}`).expect(200)).text);
    const response = cells(page, 'compare-response');
    expect(response.map((row) => row[0])).toEqual(['Memory peak', 'Status', 'Response size']);
    expect(response[1]).toEqual(['Status', '200', '200', '']);
    expect(cells(page, 'compare-headers').map((row) => row[0])).toEqual(
      expect.arrayContaining(['content-length', 'etag']),
    );
    expect(page.querySelector('table.compare-headers')!.text).not.toContain('x-debug-token');
  });

  it('compares a profile with the previous request of its route, from every profile page', async () => {
    const profile = parse((await get(`/_profiler/${searched}`).expect(200)).text);
    const link = profile.querySelectorAll('.pager a').find((a) => a.text.startsWith('Compare with the previous'))!;
    expect([text(link), link.getAttribute('href')]).toEqual([
      'Compare with the previous GET of this route',
      `/_profiler/${searched}/compare/previous`,
    ]);
    const redirect = await get(`/_profiler/${searched}/compare/previous`).expect(302);
    expect(redirect.headers.location).toBe(`/_profiler/${all}/compare/${searched}`);
    const none = parse((await get(`/_profiler/${lonely}/compare/previous`).expect(404)).text);
    expect(text(none.querySelector('p.empty'))).toBe(
      `No GET request of route shop_home was profiled before ${lonely}.`,
    );
  });

  it('compares the two rows ticked on the search page, the older as A', async () => {
    const search = parse((await get('/_profiler/search?limit=10').expect(200)).text);
    const boxes = search.querySelectorAll('table.results input[type="checkbox"][name="token"]');
    expect(boxes.length).toBeGreaterThanOrEqual(3);
    expect(boxes.every((box) => box.getAttribute('form') === 'compare-form')).toBe(true);
    expect(boxes.find((box) => box.getAttribute('value') === all)!.getAttribute('aria-label')).toBe(`Compare ${all}`);
    const form = search.querySelector('form#compare-form')!;
    expect([form.getAttribute('action'), form.getAttribute('method')]).toEqual(['/_profiler/compare', 'get']);
    const picked = await get(`/_profiler/compare?token=${searched}&token=${all}`).expect(302);
    expect(picked.headers.location).toBe(`/_profiler/${all}/compare/${searched}`);
  });

  it('says what is wrong with a comparison it cannot make, with a 4xx', async () => {
    for (const query of [
      '',
      `?token=${all}`,
      `?token=${all}&token=${all}`,
      `?token=${all}&token=NOPE42`,
      `?token=a&token=b&token=c`,
    ]) {
      const page = parse((await get(`/_profiler/compare${query}`).expect(400)).text);
      expect([query, text(page.querySelector('p.empty'))]).toEqual([
        query,
        'Tick exactly two profiles in the list to compare them.',
      ]);
    }
    const missing = parse((await get(`/_profiler/${all}/compare/abcdef`).expect(404)).text);
    expect(text(missing.querySelector('p.empty'))).toBe('No profile "abcdef" in the store.');
    const bad = parse((await get(`/_profiler/NOTHEX/compare/zzzzzz`).expect(404)).text);
    expect(text(bad.querySelector('p.empty'))).toBe('No profile "NOTHEX" nor "zzzzzz" in the store.');
  });
});
