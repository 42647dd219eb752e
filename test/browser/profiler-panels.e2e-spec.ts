import type { Browser, Page } from 'playwright-core';
import { customerJourney } from '../support/customer-journey.js';
import {
  axeViolations,
  launchChromium,
  screenshot,
  startTestServer,
  type TestServer,
  withPage,
  SCREENS,
  SCHEMES,
} from '../support/browser.js';
import { settle, storedProfiles } from '../support/profiler.js';

describe('The Logs and Performance panels in Chromium (e2e)', () => {
  let server: TestServer;
  let browser: Browser;
  const tokens: Record<'checkout' | 'notFound', string> = { checkout: '', notFound: '' };

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium();
    // A checkout POST and a 404, made as a customer would.
    await customerJourney(server, browser, 'panels@example.com');
    await settle();
    tokens.checkout = (await storedProfiles(server.app, { method: 'POST', url: '/checkout' })).rows[0].token;
    tokens.notFound = (await storedProfiles(server.app, { statusCode: '404', url: '/no/such/page' })).rows[0].token;
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  async function open(
    page: Page,
    token: string,
    panel: string,
  ): Promise<{ scroll: number; window: number; violations: string[] }> {
    await page.goto(`${server.baseUrl}/_profiler/${token}?panel=${panel}`);
    const { scroll, window } = (await page.evaluate(
      '({ scroll: document.documentElement.scrollWidth, window: window.innerWidth })',
    )) as { scroll: number; window: number };
    return { scroll, window, violations: await axeViolations(page) };
  }

  for (const screen of SCREENS) {
    for (const scheme of SCHEMES) {
      it(`shows both panels of a checkout POST and a 404 within ${screen.width} px, ${scheme}, without serious axe violations`, async () => {
        await withPage(browser, screen, scheme, async (page) => {
          const seen: string[] = [];
          for (const [request, token] of Object.entries(tokens)) {
            for (const panel of ['logs', 'performance']) {
              const result = await open(page, token, panel);
              await screenshot(page, `panels-${request}-${panel}-${screen.name}-${scheme}`);
              expect({ request, panel, fits: result.scroll <= result.window, violations: result.violations }).toEqual({
                request,
                panel,
                fits: true,
                violations: [],
              });
              if (panel === 'performance') {
                const svg = (await page.locator('svg.timeline').boundingBox())!;
                const wrap = (await page.locator('.timeline-wrap').boundingBox())!;
                expect(svg.width).toBeGreaterThan(wrap.width - 24);
                expect(await page.locator('ul.tl-legend li').count()).toBeGreaterThan(2);
                // Labels are drawn at their own size, whatever the width.
                const size = await page.evaluate(
                  "getComputedStyle(document.querySelector('svg.timeline g.tl-event text')).fontSize",
                );
                expect(size).toBe('11px');
              } else {
                expect(await page.locator('details.log-group').count()).toBeGreaterThan(0);
                expect(await page.locator('details.log-group[open]').count()).toBe(0);
              }
              seen.push(`${request}/${panel}`);
            }
          }
          expect(seen).toHaveLength(4);
        });
      });
    }
  }

  it('links each error and warning of the 404 to its row, and shows a folded group when opened', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(`${server.baseUrl}/_profiler/${tokens.notFound}?panel=logs`);
      const first = page.locator('section.log-problems li a').first();
      expect(await first.isVisible()).toBe(true);
      const target = (await first.getAttribute('href'))!;
      await first.click();
      expect(await page.locator(target).isVisible()).toBe(true);
      const group = page.locator('details.log-group').first();
      const rows = group.locator('> table > tbody > tr');
      expect(await rows.first().isVisible()).toBe(false);
      await group.locator('> summary').click();
      expect(await rows.first().isVisible()).toBe(true);
      await screenshot(page, 'panels-404-logs-group-open', { fullPage: false });
    } finally {
      await context.close();
    }
  });
});
