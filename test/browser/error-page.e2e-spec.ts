import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { KernelFixturesModule } from '../fixtures/kernel-fixtures.module.js';
import { axeViolations, launchChromium, screenshot, startTestServer, type TestServer } from '../support/browser.js';

// Page functions run in Chromium, but the project is type-checked without the DOM library (src/ is Node code):
// the few browser globals they use are declared here, for this file only.
declare const document: {
  documentElement: { scrollHeight: number };
  querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
};
declare const navigator: { clipboard: { readText(): Promise<string> } };
declare function getComputedStyle(element: unknown): { backgroundColor: string; color: string };

const VIEWPORT = { width: 1280, height: 800 };
const MISSING = '/missing/page';

/** Width and height of a PNG file (from its IHDR chunk), after checking its signature. */
async function pngSize(path: string): Promise<{ width: number; height: number }> {
  const png = await readFile(path);
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

const backgroundOf = (page: Page, selector: string): Promise<string> =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => getComputedStyle(el).backgroundColor);

describe('Debug error page in Chromium (e2e)', () => {
  let browser: Browser;
  let server: TestServer;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    server = await startTestServer({ imports: [KernelFixturesModule] });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  async function open(options: { javaScriptEnabled?: boolean; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
    const context = await browser.newContext({
      viewport: VIEWPORT,
      javaScriptEnabled: options.javaScriptEnabled ?? true,
    });
    contexts.push(context);
    const page = await context.newPage();
    await page.emulateMedia({ colorScheme: options.colorScheme ?? 'light' });
    return page;
  }

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  it('shows the 404 of an unmatched path: title, sections, the chain in order, frames, the highlighted line', async () => {
    const page = await open();
    const response = await page.goto(`${server.baseUrl}${MISSING}`);
    expect(response?.status()).toBe(404);
    expect(await page.title()).toBe(`No route found for "GET ${server.baseUrl}${MISSING}" (404 Not Found)`);

    // One row per entry; the debug entries' group rows name a kernel event.
    const logRows = await page.locator('#logs tbody tr:not(.log-group)').count();
    expect(logRows).toBeGreaterThan(0);
    for (const [selector, heading] of [
      ['#exceptions h2', 'Exceptions 2'],
      ['#logs h2', `Logs ${logRows}`],
      ['#stack-traces h2', 'Stack Traces 2'],
    ]) {
      await expect(page.locator(selector).isVisible()).resolves.toBe(true);
      expect((await page.locator(selector).innerText()).replace(/\s+/g, ' ').trim()).toBe(heading);
    }
    expect(await page.locator('#exceptions .trace .label').allInnerTexts()).toEqual(['[2/2]', '[1/2]']);
    expect(await page.locator('#exceptions .trace .class').allInnerTexts()).toEqual([
      'NotFoundHttpException',
      'ResourceNotFoundException',
    ]);
    expect(await page.locator('#exceptions .trace .message').allInnerTexts()).toEqual([
      `No route found for "GET ${server.baseUrl}${MISSING}"`,
      `No routes found for "${MISSING}/".`,
    ]);

    // Every frame of a no-route 404 is the kernel's: one line each, folded under their count, the first marked as
    // the one whose excerpt is shown above; the inner exception is folded too.
    const group = page.locator('#trace-box-2 .frame-group > details');
    expect(await group.evaluate((el) => (el as unknown as { open: boolean }).open)).toBe(false);
    await expect(page.locator('#trace-box-2 .frame').first().isVisible()).resolves.toBe(false);
    await group.locator('summary').click();
    expect(await page.locator('#trace-box-2 .frame .fn').first().innerText()).toBe('RouterListener.onKernelRequest');
    expect(await page.locator('#trace-box-2 .frame').first().innerText()).toMatch(/\(excerpt above\)$/);
    expect(await page.locator('details#trace-box-1').evaluate((el) => (el as unknown as { open: boolean }).open)).toBe(
      false,
    );

    const current = page.locator('#trace-box-2 > .code-box ol.excerpt li.current');
    await expect(current.isVisible()).resolves.toBe(true);
    expect(await current.innerText()).toContain('throw new NotFoundHttpException(noRouteMessage(request), error);');
    expect(await current.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(255, 244, 194)');
  });

  it('loads nothing from another origin', async () => {
    const page = await open();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`${server.baseUrl}${MISSING}?q=1`);
    await page.waitForLoadState('load');
    expect(requests[0]).toBe(`${server.baseUrl}${MISSING}?q=1`);
    expect(requests.filter((url) => new URL(url).origin !== server.baseUrl)).toEqual([]);
  });

  it('works with JavaScript disabled: sections visible, details fold natively, copy buttons stay hidden', async () => {
    const page = await open({ javaScriptEnabled: false });
    const response = await page.goto(`${server.baseUrl}${MISSING}`);
    expect(response?.status()).toBe(404);
    for (const selector of [
      '#exceptions h2',
      '#logs h2',
      '#stack-traces h2',
      '#trace-box-2 > .code-box ol.excerpt li.current',
    ]) {
      await expect(page.locator(selector).isVisible()).resolves.toBe(true);
    }
    expect((await page.locator('#stack-traces pre.stack').first().innerText()).split('\n')[0]).toBe(
      `[2/2] NotFoundHttpException: No route found for "GET ${server.baseUrl}${MISSING}"`,
    );
    // The copy buttons exist for scripts to reveal; without JavaScript they are not shown.
    const buttons = page.locator('#stack-traces button.copy');
    expect(await buttons.count()).toBe(2);
    expect(await buttons.evaluateAll((els) => els.map((el) => el.hidden && el.offsetParent === null))).toEqual([
      true,
      true,
    ]);
    // The folded framework frames open without any script.
    const vendor = page.locator('#trace-box-2 .frame-group > details').first();
    expect(await vendor.evaluate((el) => el.open)).toBe(false);
    await vendor.locator('summary').click();
    expect(await vendor.evaluate((el) => el.open)).toBe(true);
  });

  it('copies a stack trace with the copy button when JavaScript runs', async () => {
    const page = await open();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await page.goto(`${server.baseUrl}${MISSING}`);
    // The second trace is folded: opened first.
    await page.locator('#stack-traces details').nth(1).locator('summary').click();
    const button = page.locator('#stack-traces button.copy').nth(1);
    await expect(button.isVisible()).resolves.toBe(true);
    expect(await button.innerText()).toBe('Copy');
    await button.click();
    await page.waitForFunction(
      () => document.querySelectorAll('#stack-traces button.copy')[1]?.textContent === 'Copied',
    );
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(await page.locator('#stack-trace-1').textContent());
    expect(copied.split('\n')[0]).toBe(`[1/2] ResourceNotFoundException: No routes found for "${MISSING}/".`);
  });

  it('follows prefers-color-scheme: the dark theme changes the computed colours', async () => {
    const light = await open({ colorScheme: 'light' });
    await light.goto(`${server.baseUrl}${MISSING}`);
    const dark = await open({ colorScheme: 'dark' });
    await dark.goto(`${server.baseUrl}${MISSING}`);
    expect(await backgroundOf(light, 'body')).toBe('rgb(246, 248, 250)');
    expect(await backgroundOf(dark, 'body')).toBe('rgb(13, 17, 23)');
    expect(await backgroundOf(light, '#trace-box-2 > .code-box ol.excerpt li.current')).toBe('rgb(255, 244, 194)');
    expect(await backgroundOf(dark, '#trace-box-2 > .code-box ol.excerpt li.current')).toBe('rgb(61, 52, 21)');
    expect(await dark.locator('body').evaluate((el) => getComputedStyle(el).color)).toBe('rgb(230, 237, 243)');
  });

  it('takes full-page screenshots of the light and dark 404 pages and of the 405 page', async () => {
    const light = await open({ colorScheme: 'light' });
    await light.goto(`${server.baseUrl}${MISSING}`);
    const dark = await open({ colorScheme: 'dark' });
    await dark.goto(`${server.baseUrl}${MISSING}`);
    const notAllowed = await open();
    // A browser navigates with GET; the request is sent as PUT to a GET/POST route.
    await notAllowed.route(`${server.baseUrl}/fixture/items`, (route) => route.continue({ method: 'PUT' }));
    const response = await notAllowed.goto(`${server.baseUrl}/fixture/items`);
    expect(response?.status()).toBe(405);
    expect(await response?.headerValue('allow')).toBe('GET, POST');
    expect(await notAllowed.title()).toBe(
      `No route found for "PUT ${server.baseUrl}/fixture/items": Method Not Allowed (Allow: GET, POST) (405 Method Not Allowed)`,
    );

    for (const [page, name] of [
      [light, 'error-page-404-light'],
      [dark, 'error-page-404-dark'],
      [notAllowed, 'error-page-405'],
    ] as const) {
      const size = await pngSize(await screenshot(page, name));
      expect(size.width).toBe(VIEWPORT.width);
      // Full page: the whole document, taller than the viewport.
      expect(size.height).toBe(await page.evaluate(() => document.documentElement.scrollHeight));
      expect(size.height).toBeGreaterThan(VIEWPORT.height);
    }
  });

  for (const scheme of ['light', 'dark'] as const) {
    for (const viewport of [
      { width: 1440, height: 900 },
      { width: 390, height: 844 },
    ]) {
      it(`fits the no-route 404 in two screens at 1440 px (its size: test/error-page.e2e-spec.ts), no wider than ${viewport.width} px, axe-clean (${scheme})`, async () => {
        const context = await browser.newContext({ viewport, colorScheme: scheme });
        contexts.push(context);
        const page = await context.newPage();
        await page.goto(`${server.baseUrl}${MISSING}`);
        const measured = (await page.evaluate(
          '({ width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight })',
        )) as { width: number; height: number };
        expect(measured.width).toBeLessThanOrEqual(viewport.width);
        if (viewport.width === 1440) expect(measured.height).toBeLessThanOrEqual(2000);
        await screenshot(page, `error-404-${viewport.width}-${scheme}`);
        expect(await axeViolations(page)).toEqual([]);
      });
    }
  }

  it('copies the failure as Markdown, secrets masked, for an issue or a coding assistant', async () => {
    const page = await open();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await page.goto(`${server.baseUrl}${MISSING}?token=s3cr3t`);
    await page.click('header button.copy-md');
    await page.waitForFunction("document.querySelector('header button.copy-md').textContent === 'Copied'");
    const copied = (await page.evaluate('navigator.clipboard.readText()')) as string;
    expect(copied.split('\n').slice(0, 3)).toEqual([
      `## NotFoundHttpException: No route found for "GET ${server.baseUrl}${MISSING}?token=******"`,
      '',
      `\`GET ${server.baseUrl}${MISSING}?token=******\` answered **404 Not Found** (route: none, controller: none, profile ${await page
        .locator('header a.profile')
        .innerText()
        .then((t) => t.replace('Profile ', ''))}).`,
    ]);
    expect(copied).toContain('- [2/2] `NotFoundHttpException`');
    expect(copied).toContain('  - at `RouterListener.onKernelRequest` (src/lifecycle/listeners/router.listener.ts:');
    expect(copied).toContain('- [1/2] `ResourceNotFoundException`');
    expect(copied).not.toContain('s3cr3t');
  });
});
