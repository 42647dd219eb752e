import type { Browser, Page } from 'playwright-core';
import { KernelFixturesModule } from '../fixtures/kernel-fixtures.module.js';
import { launchChromium, screenshot, startTestServer, type TestServer } from '../support/browser.js';
import { settle } from '../support/profiler.js';

describe('Profiler in a browser (e2e)', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const foreign: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ imports: [KernelFixturesModule] });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    page.on('request', (r) => {
      if (!r.url().startsWith(server.baseUrl) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    // Something to look at: a page, a 404, a 405 and a controller error.
    for (const path of ['/', '/fixture/items/1', '/nowhere', '/fixture/boom']) await fetch(`${server.baseUrl}${path}`);
    await fetch(`${server.baseUrl}/fixture/dir/`, { method: 'POST' });
    await settle();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  it('goes from /_profiler to the search page, filters, opens a profile and switches panels', async () => {
    await page.goto(`${server.baseUrl}/_profiler`);
    expect(new URL(page.url()).pathname).toBe('/_profiler/search');
    expect(await page.locator('h1').textContent()).toBe('Profile Search');
    expect(await page.locator('#results').textContent()).toBe('5 results found');
    // The profiler's 301 and 302 that led here are counted, not listed.
    expect(await page.locator('.left-out').textContent()).toBe('2 left out: 2 profiler requests.');
    await screenshot(page, 'profiler-search');

    await page.fill('input[name="status_code"]', '404');
    await page.click('form.search button[type="submit"]');
    await page.waitForURL(/status_code=404/);
    expect(await page.locator('#results').textContent()).toBe('1 results found');
    const row = page.locator('table.results tbody tr');
    expect(await row.locator('td').nth(3).textContent()).toBe(`${server.baseUrl}/nowhere`);
    await screenshot(page, 'profiler-search-404');

    await row.locator('td a').click();
    await page.waitForURL(/\/_profiler\/[0-9a-f]{6}$/);
    expect(await page.locator('.panel h1').textContent()).toBe('Exception');
    expect(await page.locator('.trace .label').allTextContents()).toEqual(['[2/2]', '[1/2]']);
    expect(await page.locator('nav.menu a[data-panel="exception"] .badge').textContent()).toBe('2');
    await screenshot(page, 'profiler-exception-panel');

    await page.click('nav.menu a[data-panel="logs"]');
    await page.waitForURL(/panel=logs/);
    expect(await page.locator('nav.menu a.current').getAttribute('data-panel')).toBe('logs');
    expect(await page.locator('table.logs tbody tr').count()).toBeGreaterThan(5);
    await page.click('.filters a:has-text("≥ error")');
    await page.waitForURL(/level=error/);
    expect(await page.locator('table.logs .level').allTextContents()).toEqual(['ERROR']);
    await screenshot(page, 'profiler-logs-panel');

    await page.click('nav.menu a[data-panel="performance"]');
    await page.waitForURL(/panel=performance/);
    const timeline = page.locator('svg.timeline');
    expect(await timeline.isVisible()).toBe(true);
    expect(await timeline.locator('g.tl-event').count()).toBeGreaterThanOrEqual(3);
    const box = await timeline.boundingBox();
    expect(box!.width).toBeGreaterThan(500);
    await screenshot(page, 'profiler-performance-panel');

    for (const panel of ['request', 'response', 'events', 'routing', 'memory', 'templates', 'config']) {
      await page.click(`nav.menu a[data-panel="${panel}"]`);
      await page.waitForURL(new RegExp(`panel=${panel}`));
      expect(await page.locator('nav.menu a.current').getAttribute('data-panel')).toBe(panel);
    }
    await screenshot(page, 'profiler-config-panel');
    expect(foreign).toEqual([]);
  });

  it('has a dark theme', async () => {
    const context = await browser.newContext({ colorScheme: 'dark' });
    const dark = await context.newPage();
    await dark.goto(`${server.baseUrl}/_profiler/search?limit=10`);
    expect(await dark.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(13, 17, 23)');
    await page.goto(`${server.baseUrl}/_profiler/search?limit=10`);
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(246, 248, 250)');
    await screenshot(dark, 'profiler-search-dark');
    await context.close();
  });

  it('works with JavaScript disabled: search, open, switch panels', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1400, height: 900 } });
    const plain = await context.newPage();
    await plain.goto(`${server.baseUrl}/_profiler/search?limit=10`);
    await plain.selectOption('select[name="method"]', 'POST');
    await plain.click('form.search button[type="submit"]');
    await plain.waitForURL(/method=POST/);
    expect(await plain.locator('#results').textContent()).toBe('1 results found');
    await plain.click('table.results tbody tr:first-child td a');
    await plain.waitForURL(/\/_profiler\/[0-9a-f]{6}$/);
    expect(await plain.locator('.summary dd').first().textContent()).toBe('POST');
    await plain.click('nav.menu a[data-panel="events"]');
    await plain.waitForURL(/panel=events/);
    expect(await plain.locator('.panel h1').textContent()).toBe('Events');
    await screenshot(plain, 'profiler-events-nojs');
    await context.close();
  });

  it('shows the toolbar on an HTML page, and its link opens the profile', async () => {
    await page.goto(`${server.baseUrl}/`);
    const toolbar = page.locator('.sk-toolbar');
    await toolbar.locator('.sk-bar').waitFor();
    const box = await toolbar.boundingBox();
    const viewport = page.viewportSize()!;
    expect(Math.round(box!.y + box!.height)).toBe(viewport.height);
    await screenshot(page, 'toolbar');
    await toolbar.locator('a.sk-profile').click();
    await page.waitForURL(/\/_profiler\/[0-9a-f]{6}$/);
    expect(await page.locator('.panel h1').textContent()).toBe('Request');
  });
});
