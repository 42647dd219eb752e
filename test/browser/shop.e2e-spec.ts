import type { Browser, BrowserContext, Page } from 'playwright-core';
import { seedCatalogue } from '../../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../../src/database/shop-db.js';
import { launchChromium, screenshot, startTestServer, type TestServer } from '../support/browser.js';
import { settle } from '../support/profiler.js';

// The tests' TypeScript knows no DOM (lib: ES2023): the one browser type used in page functions is declared here.
interface BrowserImage {
  complete: boolean;
  alt: string;
  width: number;
  height: number;
  naturalWidth: number;
  naturalHeight: number;
  getAttribute(name: string): string | null;
  addEventListener(type: string, listener: () => void): void;
}

describe('The shop in a browser (e2e)', () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const foreign: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    await seedCatalogue(server.app.get(ShopDb));
    browser = await launchChromium();
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // The shop uses no external assets: its pictures, styles and the toolbar all come from the test server. Any
    // request elsewhere is refused and fails the test (afterEach).
    await context.route(
      (url) => url.origin !== server.baseUrl,
      (route) => {
        foreign.push(route.request().url());
        return route.abort();
      },
    );
    page = await context.newPage();
  });

  afterEach(async () => {
    await context?.close();
    // No request left the test server (127.0.0.1, its port) at all.
    expect(foreign.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  /** The first picture matching `selector`, once the browser has loaded it (or failed to: then its natural size is 0×0). */
  async function loadedPicture(
    selector: string,
  ): Promise<{ src: string; alt: string; width: number; height: number; naturalWidth: number; naturalHeight: number }> {
    const img = page.locator(selector).first();
    await img.scrollIntoViewIfNeeded();
    return img.evaluate(async (el: BrowserImage) => {
      if (!el.complete)
        await new Promise<void>((settled) =>
          ['load', 'error'].forEach((type) => el.addEventListener(type, () => settled())),
        );
      return {
        src: el.getAttribute('src') ?? '',
        alt: el.alt,
        width: el.width,
        height: el.height,
        naturalWidth: el.naturalWidth,
        naturalHeight: el.naturalHeight,
      };
    });
  }

  /** The profile the toolbar of the current page links to, opened by clicking it, then its Database panel. */
  async function databasePanelThroughToolbar(): Promise<void> {
    const toolbar = page.locator('.sk-toolbar');
    await toolbar.waitFor();
    await settle();
    await toolbar.locator('a.sk-profile').click();
    await page.waitForURL(/\/_profiler\/[0-9a-f]{6}$/);
    await page.click('nav.menu a[data-panel="database"]');
    await page.waitForURL(/panel=database/);
  }

  it('walks from the product list through the toolbar into the Database panel of its profile', async () => {
    await page.goto(`${server.baseUrl}/products?sort=price_asc`);
    expect(await page.locator('#result-count').textContent()).toBe('240 products');
    // The cards' pictures are the shop's own SVGs, loaded from the test server.
    const card = await loadedPicture('.product-card img');
    expect(card).toMatchObject({ width: 200, height: 150, naturalWidth: 800, naturalHeight: 600 });
    expect(card.src).toMatch(/^\/images\/products\/[a-z0-9-]+\.svg$/);
    expect(card.alt).toBe(await page.locator('.product-card .product-name').first().textContent());
    await screenshot(page, 'shop-product-list');
    await databasePanelThroughToolbar();
    const rows = page.locator('table.db-queries tbody tr');
    expect(await rows.count()).toBeGreaterThanOrEqual(3);
    const durations = await rows.locator('td:nth-child(3)').allTextContents();
    for (const duration of durations) expect(duration.trim()).toMatch(/^\d+(\.\d+)?$/);
    const sql = (await rows.locator('td:nth-child(4)').allTextContents()).join('\n');
    expect(sql).toMatch(/from "products"/);
    expect(sql).toMatch(/order by "products"."price_cents" asc/);
    expect(await page.locator('nav.menu a[data-panel="database"] .badge').textContent()).toBe(String(durations.length));
    await screenshot(page, 'shop-product-list-database-panel');
  });

  it('walks from a product page through the toolbar into the Database panel: the product loaded by its slug', async () => {
    await page.goto(`${server.baseUrl}/products`);
    await page.locator('.product-card a').first().click();
    await page.waitForURL(/\/products\/[a-z0-9-]+$/);
    const slug = new URL(page.url()).pathname.split('/').pop()!;
    expect(await page.locator('form.add-to-cart button').textContent()).toBe('Add to cart');
    const picture = await loadedPicture('article.product img');
    expect(picture).toEqual({
      src: `/images/products/${slug}.svg`,
      alt: await page.locator('article.product h1').textContent(),
      width: 400,
      height: 300,
      naturalWidth: 800,
      naturalHeight: 600,
    });
    await screenshot(page, 'shop-product-page');
    await databasePanelThroughToolbar();
    const statements = await page.locator('table.db-queries tbody tr td:nth-child(4)').allTextContents();
    expect(statements.some((s) => /from "products"/.test(s) && s.includes('"slug"'))).toBe(true);
    expect(await page.locator('table.db-queries').textContent()).toContain(slug);
    await screenshot(page, 'shop-product-page-database-panel');
  });

  it('buys: add to cart, change the quantity, register at checkout, place the order, see it in the history', async () => {
    await page.goto(`${server.baseUrl}/products?sort=price_desc`);
    await page.locator('.product-card a').first().click();
    await page.waitForURL(/\/products\//);
    const name = (await page.locator('article.product h1').textContent())!;
    await page.fill('form.add-to-cart input[name="quantity"]', '1');
    await page.click('form.add-to-cart button');
    await page.waitForURL(/\/cart$/);
    expect(await page.locator('.flash.success').textContent()).toContain(name);
    expect(await page.locator('.cart-line .product-name').allTextContents()).toEqual([name]);
    expect(await page.locator('header .cart-link').textContent()).toBe('Cart (1)');

    await page.fill('.cart-line form.update-line input[name="quantity"]', '2');
    await page.click('.cart-line form.update-line button');
    await page.waitForURL(/\/cart$/);
    expect(await page.locator('header .cart-link').textContent()).toBe('Cart (2)');
    await screenshot(page, 'shop-cart');

    await page.goto(`${server.baseUrl}/checkout`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.click('main a[href="/register"]');
    await page.fill('input[name="email"]', 'browser@example.com');
    await page.fill('input[name="password"]', 'a long enough password');
    await page.fill('input[name="password_confirmation"]', 'a long enough password');
    await screenshot(page, 'shop-register');
    await page.click('form[action="/register"] button');
    await page.waitForURL(/\/account$/);
    expect(await page.locator('.flash.success').textContent()).toBe('Welcome! Your account has been created.');
    // The anonymous cart followed the new customer.
    expect(await page.locator('header .cart-link').textContent()).toBe('Cart (2)');

    await page.goto(`${server.baseUrl}/checkout`);
    expect(await page.locator('table.lines tbody tr').count()).toBe(1);
    await page.fill('input[name="name"]', 'Grace Hopper');
    await page.fill('input[name="street"]', '1 Navy Way');
    await page.fill('input[name="postcode"]', '10115');
    await page.fill('input[name="city"]', 'Berlin');
    await page.selectOption('select[name="country"]', 'DE');
    await screenshot(page, 'shop-checkout');
    await page.click('form[action="/checkout"] button');
    await page.waitForURL(/\/account\/orders\/SK-[0-9A-Z]{8}$/);
    const reference = (await page.locator('#order-reference').textContent())!;
    expect(await page.locator('.flash.success').textContent()).toBe(
      `Thank you! Your order ${reference} has been placed.`,
    );
    expect(await page.locator('#order-address').innerText()).toContain('Grace Hopper');
    await screenshot(page, 'shop-order');
    expect(await page.locator('header .cart-link').textContent()).toBe('Cart');

    await page.click('a[href="/account/orders"]');
    expect(await page.locator('table.orders tbody tr td:first-child').allTextContents()).toEqual([reference]);
  });
});
