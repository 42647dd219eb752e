import type { Browser } from 'playwright-core';
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

/** A frame's file:line on the error page opens the profiler's source view at that line (issue 31, point 2). */
describe('The source view in Chromium (e2e)', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  for (const screen of SCREENS) {
    for (const scheme of SCHEMES) {
      it(`opens the throwing line from the error page at ${screen.width} px, ${scheme}: in view, marked, within the screen, axe-clean`, async () => {
        await withPage(browser, screen, scheme, async (page) => {
          await page.goto(`${server.baseUrl}/no/such/page`);
          const link = page.locator('#trace-box-2 .excerpt-file a');
          const href = (await link.getAttribute('href'))!;
          const line = /#L(\d+)$/.exec(href)![1];
          await link.click();
          await page.waitForURL(/\/_profiler\/open\?file=/);
          const target = page.locator(`li#L${line}`);
          expect(await target.isVisible()).toBe(true);
          // Scrolled to: the line is inside the window, not at the top of a long file.
          const box = (await target.boundingBox())!;
          expect(box.y).toBeGreaterThanOrEqual(0);
          expect(box.y + box.height).toBeLessThanOrEqual(screen.height);
          expect(await page.evaluate(`getComputedStyle(document.getElementById('L${line}')).fontWeight`)).toBe('600');
          const { scroll, window } = (await page.evaluate(
            '({ scroll: document.documentElement.scrollWidth, window: window.innerWidth })',
          )) as { scroll: number; window: number };
          expect(scroll).toBeLessThanOrEqual(window);
          await screenshot(page, `source-view-${screen.name}-${scheme}`, { fullPage: false });
          expect(await axeViolations(page)).toEqual([]);
        });
      });
    }
  }
});
