import type { Browser, BrowserContext, Page } from 'playwright-core';
import { seedCatalogue } from '../../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../../src/database/shop-db.js';
import { PasswordHasher } from '../../src/security/password-hasher.js';
import { UserRepository } from '../../src/users/user.repository.js';
import { axeViolations, launchChromium, screenshot, startTestServer, type TestServer } from '../support/browser.js';
import { settle, storedProfiles } from '../support/profiler.js';
import { fillCheckoutAddress } from '../support/customer-journey.js';

const SCHEMES = ['light', 'dark'] as const;

/** The page's width as laid out, against the window's. */
function widths(page: Page): Promise<{ scroll: number; window: number }> {
  return page.evaluate('({ scroll: document.documentElement.scrollWidth, window: window.innerWidth })') as Promise<{
    scroll: number;
    window: number;
  }>;
}

describe('The toolbar and the request list in Chromium (e2e)', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    server = await startTestServer();
    await seedCatalogue(server.app.get(ShopDb));
    await server.app
      .get(UserRepository)
      .create('toolbar@example.com', await server.app.get(PasswordHasher).hash('correct horse battery'), ['ROLE_USER']);
    browser = await launchChromium();
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    page = await context.newPage();
  });

  afterEach(async () => {
    await context?.close();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  /** A page of the shop, once its toolbar has loaded. */
  async function open(path: string): Promise<void> {
    await page.goto(`${server.baseUrl}${path}`);
    await page.locator('.sk-toolbar .sk-bar').waitFor();
  }

  async function logIn(): Promise<void> {
    await page.goto(`${server.baseUrl}/login`);
    await page.fill('input[name="email"]', 'toolbar@example.com');
    await page.fill('input[name="password"]', 'correct horse battery');
    await page.click('form[action="/login"] button');
    await page.waitForURL(/\/account$/);
  }

  it('after browsing the profiler, lists application requests in "Last 10" and "Latest"; the switches and a URL search bring the others back', async () => {
    await open('/products');
    await page.locator('.product-card a').first().click();
    await page.waitForURL(/\/products\/[a-z0-9-]+$/);
    await page.locator('.sk-toolbar .sk-bar').waitFor();
    const productUrl = page.url();
    // The profiler's own pages, several times over (the first answers 301, then 302 to the search).
    for (let i = 0; i < 3; i++) {
      await page.goto(`${server.baseUrl}/_profiler`);
      await page.click('header.top a:has-text("Last 10")');
    }
    await storedProfiles(server.app);

    await page.click('header.top a:has-text("Last 10")');
    const listed = await page.locator('table.results tbody tr td:nth-child(4)').allTextContents();
    expect(listed.length).toBeGreaterThanOrEqual(2);
    for (const url of listed) expect(new URL(url).pathname).not.toMatch(/^\/(_profiler|images)\b/);
    expect(listed[0]).toBe(productUrl);
    const leftOut = (await page.locator('.left-out').textContent())!;
    expect(leftOut).toMatch(/^\d+ left out: \d+ profiler requests, \d+ assets \(list them all\)\.$/);
    expect(await page.locator('table.results thead th').allTextContents()).toEqual([
      'Status',
      'IP',
      'Method',
      'URL',
      'Time',
      'Token',
      'Duration',
      'Route',
    ]);
    await screenshot(page, 'request-list-default');

    await page.click('header.top a:has-text("Latest")');
    await page.waitForURL(/\/_profiler\/[0-9a-f]{6}$/);
    expect(await page.locator('.summary .url').textContent()).toBe(productUrl);

    await page.click('header.top a:has-text("Last 10")');
    await page.check('input[name="assets"]');
    await page.click('form.search button[type="submit"]');
    await page.waitForURL(/assets=1/);
    const withAssets = await page.locator('table.results tbody tr td:nth-child(4)').allTextContents();
    expect(withAssets.some((url) => /\/images\/products\/[a-z0-9-]+\.svg$/.test(url))).toBe(true);
    expect(withAssets.some((url) => url.includes('/_profiler'))).toBe(false);
    await page.check('input[name="profiler"]');
    await page.click('form.search button[type="submit"]');
    await page.waitForURL(/profiler=1/);
    expect(
      (await page.locator('table.results tbody tr td:nth-child(4)').allTextContents()).some((url) =>
        url.includes('/_profiler'),
      ),
    ).toBe(true);

    await page.goto(`${server.baseUrl}/_profiler/search?limit=50&url=${encodeURIComponent('/_profiler')}`);
    const rows = await page
      .locator('table.results tbody tr')
      .evaluateAll((trs: { children: ArrayLike<{ textContent: string | null }> }[]) =>
        trs.map((tr) => Array.from(tr.children).map((td) => (td.textContent ?? '').trim())),
      );
    expect(
      rows.some((cells) => cells[0] === '301' && cells[2] === 'GET' && cells[3] === `${server.baseUrl}/_profiler`),
    ).toBe(true);
    await screenshot(page, 'request-list-url-search');
  });

  it('follows "Place order": the order page\'s toolbar and profile name the POST /checkout and link to it, and the button is not covered', async () => {
    await logIn();
    await open('/products');
    await page.locator('.product-card a').first().click();
    await page.waitForURL(/\/products\//);
    await page.click('form.add-to-cart button');
    await page.waitForURL(/\/cart$/);
    await page.locator('.sk-toolbar .sk-bar').waitFor();
    // Add to cart redirected too: the cart page names it.
    expect(await page.locator('.sk-block-request .sk-redirect').textContent()).toBe('↪ 303');

    await open('/checkout');
    await fillCheckoutAddress(page);
    // At the bottom of the page, the toolbar is below the button, not over it.
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    const button = page.locator('form[action="/checkout"] button');
    const box = (await button.boundingBox())!;
    const bar = (await page.locator('.sk-toolbar .sk-bar').boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(bar.y);
    const hit = await page.evaluate(
      `(() => { const el = document.elementFromPoint(${box.x + box.width / 2}, ${box.y + box.height / 2}); return el && el.closest('form[action="/checkout"] button') !== null; })()`,
    );
    expect(hit).toBe(true);
    await screenshot(page, 'toolbar-checkout-bottom', { fullPage: false });
    await button.click();
    await page.waitForURL(/\/account\/orders\/SK-[0-9A-Z]{8}$/);

    const request = page.locator('.sk-toolbar .sk-block-request');
    await request.locator('.sk-value').hover();
    const info = request.locator('.sk-info');
    expect(await info.isVisible()).toBe(true);
    const from = (await info.locator('div:has(dt:text-is("Redirected from")) dd').textContent())!;
    expect(from).toMatch(/^POST \/checkout \([0-9a-f]{6}, 303\)$/);
    await screenshot(page, 'toolbar-redirected-from', { fullPage: false });
    const token = /\(([0-9a-f]{6}),/.exec(from)![1];
    await info.locator('dd a').click();
    await page.waitForURL(new RegExp(`/_profiler/${token}$`));
    expect(await page.locator('.summary .url').textContent()).toBe(`${server.baseUrl}/checkout`);
    const forward = (await page.locator('.redirect-to').textContent())!;
    expect(forward).toMatch(/^Redirected to GET \/account\/orders\/SK-[0-9A-Z]{8} \([0-9a-f]{6}, 200\)$/);
    await page.click('.redirect-to a');
    await page.waitForURL(/\/_profiler\/[0-9a-f]{6}$/);
    expect(await page.locator('.redirect-from').textContent()).toBe(`Redirected from POST /checkout (${token}, 303)`);
  });

  it("opens each block's details on hover and on keyboard focus; Escape closes them; each links to its panel", async () => {
    await logIn();
    await open('/products');
    const blocks = page.locator('.sk-toolbar .sk-bar > .sk-block:not([hidden])');
    const names = await blocks.evaluateAll((els: { className: string }[]) =>
      els.map((el) => /sk-block-(\w+)/.exec(el.className)![1]),
    );
    expect(names).toEqual(['request', 'performance', 'memory', 'logs', 'database', 'security', 'session', 'cart']);
    for (const name of names) {
      const block = page.locator(`.sk-toolbar .sk-block-${name}`);
      const info = block.locator('.sk-info');
      await block.locator('.sk-value').hover();
      expect([name, await info.isVisible()]).toEqual([name, true]);
      expect(await info.locator('a.sk-more').getAttribute('href')).toMatch(
        new RegExp(`^/_profiler/[0-9a-f]{6}\\?panel=${name}$`),
      );
      await page.mouse.move(700, 100);
      expect([name, await info.isVisible()]).toEqual([name, false]);
      await block.locator('.sk-value').focus();
      expect([name, 'focus', await info.isVisible()]).toEqual([name, 'focus', true]);
      // The details' links come next in the keyboard's order.
      await page.keyboard.press('Tab');
      expect(await page.evaluate(`document.activeElement.closest('.sk-info') !== null`)).toBe(true);
      await page.keyboard.press('Escape');
      expect([name, 'escape', await info.isVisible()]).toEqual([name, 'escape', false]);
    }
    await page.locator('.sk-block-database .sk-value').focus();
    expect(await page.locator('.sk-block-database .sk-info').textContent()).toMatch(/Queries\d+/);
    await screenshot(page, 'toolbar-database-details', { fullPage: false });
    await page.locator('.sk-block-security .sk-value').hover();
    expect(await page.locator('.sk-block-security .sk-info dd').first().textContent()).toMatch(
      /^toolbar@example\.com \(#\d+\)$/,
    );
    await page.locator('.sk-block-database .sk-value').click();
    await page.waitForURL(/panel=database$/);
    expect(await page.locator('.panel h1').textContent()).toBe('Database');
  });

  it('stays hidden across a reload once hidden, and comes back when asked', async () => {
    await open('/');
    await page.click('.sk-toolbar button.sk-hide');
    expect(await page.locator('.sk-toolbar .sk-bar').isVisible()).toBe(false);
    expect(await page.locator('.sk-toolbar button.sk-show').isVisible()).toBe(true);
    await screenshot(page, 'toolbar-hidden', { fullPage: false });
    await page.reload();
    await page.locator('.sk-toolbar button.sk-show').waitFor({ state: 'visible' });
    expect(await page.locator('.sk-toolbar .sk-bar').isVisible()).toBe(false);
    expect(await page.evaluate("document.querySelector('.sk-toolbar-spacer').offsetHeight")).toBe(0);
    await page.click('.sk-toolbar button.sk-show');
    expect(await page.locator('.sk-toolbar .sk-bar').isVisible()).toBe(true);
    await page.reload();
    await page.locator('.sk-toolbar .sk-bar').waitFor({ state: 'visible' });
    expect(await page.evaluate("document.querySelector('.sk-toolbar-spacer').offsetHeight")).toBe(
      await page.evaluate("document.querySelector('.sk-toolbar .sk-bar').offsetHeight"),
    );
  });

  it("lists the page's fetch calls as they happen, with a working link to each one's profile, failures in red, another origin without a link", async () => {
    await open('/');
    expect(await page.locator('.sk-block-ajax').isVisible()).toBe(false);
    await page.evaluate("fetch('/api/cart').then((r) => r.json())");
    const ajax = page.locator('.sk-toolbar .sk-block-ajax');
    await ajax.locator('.sk-count').filter({ hasText: '1' }).waitFor();
    await page.locator('.sk-calls tbody tr td:nth-child(5) a').first().waitFor({ state: 'attached' });
    await page.evaluate("fetch('/api/nowhere').catch(() => null)");
    const otherOrigin = server.baseUrl.replace('127.0.0.1', 'localhost');
    await page.evaluate(`fetch('${otherOrigin}/api/cart').catch(() => null)`);
    await ajax.locator('.sk-count').filter({ hasText: '3' }).waitFor();
    // XMLHttpRequest too (without its CSRF token: refused).
    await page.evaluate(
      "new Promise((done) => { const xhr = new XMLHttpRequest(); xhr.open('post', '/api/cart/lines'); xhr.setRequestHeader('Content-Type', 'application/json'); xhr.onloadend = done; xhr.send('{}'); })",
    );
    await ajax.locator('.sk-count').filter({ hasText: '4' }).waitFor();
    await page.waitForFunction("document.querySelectorAll('.sk-calls tbody td.sk-pending').length === 0");
    await ajax.locator('.sk-value').hover();
    const rows = ajax.locator('.sk-calls tbody tr');
    const cells = async (i: number) => (await rows.nth(i).locator('td').allTextContents()).map((t) => t.trim());
    // Newest first.
    expect(await cells(0)).toEqual([
      'POST',
      '403',
      '/api/cart/lines',
      expect.stringMatching(/^\d+ ms$/),
      expect.stringMatching(/^[0-9a-f]{6}$/),
    ]);
    expect(await cells(1)).toEqual([
      'GET',
      'network error',
      `${otherOrigin}/api/cart`,
      expect.stringMatching(/^\d+ ms$/),
      'other origin',
    ]);
    expect(await cells(2)).toEqual([
      'GET',
      '404',
      '/api/nowhere',
      expect.stringMatching(/^\d+ ms$/),
      expect.stringMatching(/^[0-9a-f]{6}$/),
    ]);
    expect(await cells(3)).toEqual([
      'GET',
      '200',
      '/api/cart',
      expect.stringMatching(/^\d+ ms$/),
      expect.stringMatching(/^[0-9a-f]{6}$/),
    ]);
    expect(await rows.nth(2).getAttribute('class')).toBe('sk-error');
    expect(await rows.nth(3).getAttribute('class')).toBeNull();
    expect(await ajax.getAttribute('class')).toContain('sk-error');
    expect(await ajax.locator('.sk-value').getAttribute('aria-label')).toBe('4 fetch/XHR calls, 3 failed');
    await screenshot(page, 'toolbar-fetch-calls', { fullPage: false });
    await settle();
    await rows.nth(3).locator('a').click();
    await page.waitForURL(/\/_profiler\/[0-9a-f]{6}$/);
    expect(await page.locator('.summary .url').textContent()).toBe(`${server.baseUrl}/api/cart`);
  });

  for (const scheme of SCHEMES) {
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1440, height: 900 },
    ]) {
      it(`keeps the page no wider than the screen at ${viewport.width} px with a block open, axe-clean (${scheme})`, async () => {
        const themed = await browser.newContext({ viewport, colorScheme: scheme });
        const shown = await themed.newPage();
        try {
          await shown.goto(`${server.baseUrl}/products`);
          await shown.locator('.sk-toolbar .sk-bar').waitFor();
          for (const name of ['request', 'database', 'logs']) {
            await shown.locator(`.sk-block-${name} .sk-value`).hover();
            const measured = await widths(shown);
            expect([name, measured.scroll]).toEqual([name, measured.window]);
            const info = (await shown.locator(`.sk-block-${name} .sk-info`).boundingBox())!;
            expect(info.x).toBeGreaterThanOrEqual(0);
            expect(info.x + info.width).toBeLessThanOrEqual(viewport.width);
          }
          await shown.locator('.sk-block-request .sk-value').hover();
          await screenshot(shown, `toolbar-${viewport.width}-${scheme}`, { fullPage: false });
          expect(await axeViolations(shown)).toEqual([]);
        } finally {
          await themed.close();
        }
      });
    }
  }

  it("lays a profile out at 390 px: the panels' menu one row of tabs above the panel, never over it", async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const shown = await phone.newPage();
    try {
      const res = await shown.goto(`${server.baseUrl}/products`);
      await shown.goto(`${server.baseUrl}/_profiler/${await res!.headerValue('x-debug-token')}?panel=database`);
      const layout = (await shown.evaluate(`(() => {
        const menu = document.querySelector('nav.menu').getBoundingClientRect();
        const panel = document.querySelector('section.panel').getBoundingClientRect();
        return { position: getComputedStyle(document.querySelector('nav.menu')).position, menuHeight: menu.height, menuBottom: menu.bottom, panelTop: panel.top, width: document.documentElement.scrollWidth };
      })()`)) as { position: string; menuHeight: number; menuBottom: number; panelTop: number; width: number };
      expect(layout.position).toBe('static');
      expect(layout.menuHeight).toBeLessThan(60);
      expect(layout.panelTop).toBeGreaterThanOrEqual(layout.menuBottom);
      expect(layout.width).toBeLessThanOrEqual(390);
      await screenshot(shown, 'profile-database-390');
    } finally {
      await phone.close();
    }
  });
});
