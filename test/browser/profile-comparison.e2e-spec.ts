import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { seedCatalogue } from '../../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../../src/database/shop-db.js';
import {
  expectFitsAndAccessible,
  launchChromium,
  SCHEMES,
  SCREENS,
  screenshot,
  startTestServer,
  type TestServer,
  withPage,
} from '../support/browser.js';
import { storedProfile } from '../support/profiler.js';

const SECRET = 'SECRET-BROWSER-REPLAY-9051';

describe('Comparing and replaying requests in Chromium (e2e)', () => {
  let server: TestServer;
  let browser: Browser;
  let all: string;
  let searched: string;
  let secret: string;

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium();
    await seedCatalogue(server.app.get(ShopDb));
    const get = (path: string) => request(server.baseUrl).get(path);
    all = (await get('/products').expect(200)).headers['x-debug-token'];
    searched = (await get('/products?q=tea').expect(200)).headers['x-debug-token'];
    secret = (await get('/products').set('X-Api-Key', SECRET).expect(200)).headers['x-debug-token'];
    for (const token of [all, searched, secret]) await storedProfile(server.app, token);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  for (const screen of SCREENS) {
    for (const scheme of SCHEMES) {
      it(`compares two catalogue requests at ${screen.width} px, ${scheme}: the added queries and the time delta`, async () => {
        await withPage(browser, screen, scheme, async (page) => {
          await page.goto(`${server.baseUrl}/_profiler/${all}/compare/${searched}`);
          expect(await page.locator('h1').textContent()).toBe('Comparison');
          const total = page.locator('table.compare-times tbody tr').first();
          expect(await total.locator('td').first().textContent()).toBe('Total');
          expect(await total.locator('td.delta').textContent()).toMatch(/^[+-][\d.]+ m?s$/);
          await expectVisible(page, 'h3:has-text("Added in B")');
          const added = await page.locator('table.compare-queries.added td.statement').allTextContents();
          expect(added).toHaveLength(2);
          for (const sql of added) expect(sql).toContain('where products.search_text like ?');
          await page.locator('table.compare-queries.added').scrollIntoViewIfNeeded();
          await screenshot(page, `compare-${screen.name}-${scheme}`);
          await expectFitsAndAccessible(page);
        });
      });
    }
  }

  it('compares two rows ticked on the search page', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    try {
      await page.goto(`${server.baseUrl}/_profiler/search?limit=10`);
      await page.check(`input[type="checkbox"][value="${searched}"]`);
      await page.check(`input[type="checkbox"][value="${all}"]`);
      await page.click('form#compare-form button');
      await page.waitForURL(new RegExp(`/_profiler/${all}/compare/${searched}$`));
      expect(await page.locator('.compare-side .side-label').allTextContents()).toEqual([
        `A · ${all}`,
        `B · ${searched}`,
      ]);
      await expectFitsAndAccessible(page);
    } finally {
      await context.close();
    }
  });

  for (const screen of SCREENS) {
    it(`replays a GET with a secret header at ${screen.width} px: masked in the cURL command, then the comparison opens`, async () => {
      const context = await browser.newContext({
        viewport: { width: screen.width, height: screen.height },
        bypassCSP: true,
      });
      const page = await context.newPage();
      try {
        await page.goto(`${server.baseUrl}/_profiler/${secret}`);
        await page.click('details.curl summary');
        const command = await page.locator('pre#curl-command').textContent();
        expect(command).toContain("-H 'x-api-key: ******'");
        expect(command).not.toContain(SECRET);
        expect(command!.split('\n')[0]).toBe('# Masked by the profiler (put the real values back): x-api-key');
        await screenshot(page, `profile-curl-${screen.name}`, { fullPage: false });
        await expectFitsAndAccessible(page);
        await page.click('form.replay-form button');
        await page.waitForURL(new RegExp(`/_profiler/${secret}/compare/[0-9a-f]{6}$`));
        const sides = await page.locator('.compare-side .url').allTextContents();
        expect(sides).toEqual([`GET ${server.baseUrl}/products`, `GET ${server.baseUrl}/products`]);
        const replayed = /compare\/([0-9a-f]{6})$/.exec(page.url())![1];
        expect(replayed).not.toBe(secret);
        await page.click(`.compare-side[data-side="b"] .side-label a`);
        await page.waitForURL(new RegExp(`/_profiler/${replayed}$`));
        expect(await page.locator('.summary dd.token').textContent()).toBe(replayed);
      } finally {
        await context.close();
      }
    });
  }
});

async function expectVisible(page: Page, selector: string): Promise<void> {
  expect(await page.locator(selector).isVisible()).toBe(true);
}
