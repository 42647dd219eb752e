import type { Browser } from 'playwright-core';
import { seedCatalogue } from '../../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../../src/database/shop-db.js';
import { axeViolations, launchChromium, screenshot, startTestServer, type TestServer } from '../support/browser.js';
import { storedProfile } from '../support/profiler.js';

const SCREENS = [
  { name: 'desktop', viewport: { width: 1440, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
] as const;
const SCHEMES = ['light', 'dark'] as const;
const SLUG = 'ethiopian-espresso-roast-1-kg';

describe('The Database panel in Chromium (e2e)', () => {
  let server: TestServer;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer();
    await seedCatalogue(server.app.get(ShopDb));
    browser = await launchChromium();
    const res = await fetch(`${server.baseUrl}/products/${SLUG}`);
    token = res.headers.get('x-debug-token')!;
    await storedProfile(server.app, token);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  for (const screen of SCREENS) {
    for (const scheme of SCHEMES) {
      it(`at ${screen.viewport.width} px in ${scheme}: fits the screen, copies a runnable query, explains a SELECT, and passes axe-core`, async () => {
        // The page's own policy: the copy script must run under its nonce.
        const context = await browser.newContext({
          viewport: screen.viewport,
          colorScheme: scheme,
          permissions: ['clipboard-read', 'clipboard-write'],
        });
        const page = await context.newPage();
        try {
          await page.goto(`${server.baseUrl}/_profiler/${token}?panel=database`);
          const width = (await page.evaluate(
            '({ scroll: document.documentElement.scrollWidth, window: window.innerWidth })',
          )) as { scroll: number; window: number };
          expect(width.scroll).toBeLessThanOrEqual(width.window);

          const row = page
            .locator('table.db-queries tbody tr', { has: page.locator('form.db-explain-form') })
            .filter({ hasText: SLUG })
            .first();
          await row.locator('details.db-runnable summary').click();
          const copy = row.locator('button[data-copy]');
          await copy.click();
          // The clipboard answers asynchronously: the button says so once it has (and for two seconds).
          await row.locator('button[data-copy]', { hasText: 'Copied' }).waitFor({ timeout: 1500 });
          const copied = (await page.evaluate('navigator.clipboard.readText()')) as string;
          expect(copied).toContain(`'${SLUG}'`);
          await screenshot(page, `database-panel-${screen.name}-${scheme}`);

          await row.locator('form.db-explain-form button').click();
          await page.locator('.db-plan pre').waitFor();
          expect(await page.locator('.db-plan h3').textContent()).toBe('EXPLAIN QUERY PLAN');
          expect(await page.locator('.db-plan pre').textContent()).toMatch(/SEARCH products|SCAN products/);
          const after = (await page.evaluate(
            '({ scroll: document.documentElement.scrollWidth, window: window.innerWidth })',
          )) as { scroll: number; window: number };
          expect(after.scroll).toBeLessThanOrEqual(after.window);
          await screenshot(page, `database-panel-explain-${screen.name}-${scheme}`);
        } finally {
          await context.close();
        }

        // axe-core's script needs the policy bypassed.
        const audit = await browser.newContext({ viewport: screen.viewport, colorScheme: scheme, bypassCSP: true });
        try {
          const auditPage = await audit.newPage();
          await auditPage.goto(`${server.baseUrl}/_profiler/${token}?panel=database`);
          await auditPage.locator('details.db-runnable').first().evaluate('(d) => { d.open = true; }');
          expect(await axeViolations(auditPage)).toEqual([]);
        } finally {
          await audit.close();
        }
      });
    }
  }
});
