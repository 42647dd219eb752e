import type { Browser } from 'playwright-core';
import request from 'supertest';
import { HttpClientFixturesModule } from '../fixtures/http-client-fixtures.module.js';
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
import { storedProfile } from '../support/profiler.js';
import { startStubService, type StubService } from '../support/stub-service.js';

/** The HTTP Client panel with two calls, one of them to a long URL with a masked key, as a person sees it. */
describe('The HTTP Client panel in Chromium (e2e)', () => {
  let server: TestServer;
  let browser: Browser;
  let stub: StubService;
  let token: string;

  beforeAll(async () => {
    stub = await startStubService((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}'),
    );
    const base = stub.base;
    server = await startTestServer({ imports: [HttpClientFixturesModule] });
    browser = await launchChromium();
    const fetched = `${base}/v2/shipping/rates/quote/for/a/rather/long/path?country=FR&postcode=75001&api_key=SECRET-KEY-3`;
    const res = await request(server.baseUrl)
      .get(`/fixture-http/both?fetch=${encodeURIComponent(fetched)}&http=${encodeURIComponent(`${base}/ping`)}`)
      .expect(200);
    token = res.headers['x-debug-token'];
    await storedProfile(server.app, token);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
    await stub?.close();
  });

  for (const screen of SCREENS) {
    for (const scheme of SCHEMES) {
      it(`lists the calls and opens one's headers and cURL command at ${screen.width} px, ${scheme}`, async () => {
        await withPage(browser, screen, scheme, async (page) => {
          await page.goto(`${server.baseUrl}/_profiler/${token}?panel=http_client`);
          expect(await page.locator('table.http-calls tbody tr').count()).toBe(2);
          await page.click('details#call-1 summary');
          const curl = await page.locator('pre#curl-1').textContent();
          expect(curl).toContain('api_key=******');
          expect(curl).not.toContain('SECRET');
          expect(await page.locator('details#call-1 table.kv').first().isVisible()).toBe(true);
          await screenshot(page, `http-client-${screen.name}-${scheme}`);
          const { scroll, window } = (await page.evaluate(
            '({ scroll: document.documentElement.scrollWidth, window: window.innerWidth })',
          )) as { scroll: number; window: number };
          expect(scroll).toBeLessThanOrEqual(window);
          expect(await axeViolations(page)).toEqual([]);
        });
      });
    }
  }
});
