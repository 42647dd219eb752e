import type { Browser } from 'playwright-core';
import request from 'supertest';
import { seedCatalogue } from '../../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../../src/database/shop-db.js';
import { ProfilerFixturesModule } from '../fixtures/profiler-fixtures.module.js';
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

describe('Full-text search on the search page in Chromium (e2e)', () => {
  let server: TestServer;
  let browser: Browser;
  let logged: string;

  beforeAll(async () => {
    server = await startTestServer({ imports: [ProfilerFixturesModule] });
    browser = await launchChromium();
    await seedCatalogue(server.app.get(ShopDb));
    const get = (path: string) => request(server.baseUrl).get(path);
    for (const path of ['/products', '/products?q=tea', '/no/such/page']) await get(path);
    logged = (await get('/pfx/logs').expect(200)).headers['x-debug-token'];
    await storedProfile(server.app, logged);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  for (const screen of SCREENS) {
    for (const scheme of SCHEMES) {
      it(`finds a request by its log message, typed in the Text box, at ${screen.width} px, ${scheme}`, async () => {
        await withPage(browser, screen, scheme, async (page) => {
          await page.goto(`${server.baseUrl}/_profiler/search?limit=10`);
          // The first field of the form, reached from the page's top with the keyboard.
          await page.getByLabel('Text').focus();
          await page.keyboard.type('stock low');
          await page.keyboard.press('Enter');
          await page.waitForURL(/q=stock\+low/);
          expect(await page.locator('#results').textContent()).toBe('1 results found');
          expect(await page.locator('table.results td.token-cell a').allTextContents()).toEqual([logged]);
          const matched = page.locator('tr.matched');
          expect(await matched.locator('a').textContent()).toBe('Logs');
          expect(await matched.locator('mark').allTextContents()).toEqual(['Stock', 'low']);
          expect(await matched.locator('.excerpt').textContent()).toBe('Stock low for TEA-1');
          expect(await page.getByLabel('Text').inputValue()).toBe('stock low');
          await screenshot(page, `full-text-search-${screen.name}-${scheme}`);
          await expectFitsAndAccessible(page);
          await matched.locator('a').click();
          await page.waitForURL(new RegExp(`/_profiler/${logged}\\?panel=logs$`));
          expect(await page.locator('h2').first().textContent()).toBe('Errors and warnings (2)');
        });
      });
    }
  }
});
