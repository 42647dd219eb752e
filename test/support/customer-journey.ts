import type { Browser, Page } from 'playwright-core';
import { seedCatalogue } from '../../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../../src/database/shop-db.js';
import { PasswordHasher } from '../../src/security/password-hasher.js';
import { UserRepository } from '../../src/users/user.repository.js';
import type { TestServer } from './browser.js';

const PASSWORD = 'correct horse battery';

/** The address the journey's order is sent to. */
export async function fillCheckoutAddress(page: Page): Promise<void> {
  await page.fill('input[name="name"]', 'Grace Hopper');
  await page.fill('input[name="street"]', '1 Navy Way');
  await page.fill('input[name="postcode"]', '10115');
  await page.fill('input[name="city"]', 'Berlin');
  await page.selectOption('select[name="country"]', 'DE');
}

/**
 * What a customer does in a browser, for the profiles the panels' tests open: the catalogue seeded, an account
 * made, then log in, open the first product, add it to the cart, check out, and ask for a page that does not exist.
 * Returns the product page's path.
 */
export async function customerJourney(
  server: TestServer,
  browser: Browser,
  email: string,
): Promise<{ productPath: string }> {
  await seedCatalogue(server.app.get(ShopDb));
  await server.app
    .get(UserRepository)
    .create(email, await server.app.get(PasswordHasher).hash(PASSWORD), ['ROLE_USER']);
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto(`${server.baseUrl}/login`);
    await page.fill('input[name="email"]', email);
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('form[action="/login"] button');
    await page.waitForURL(/\/account$/);
    await page.goto(`${server.baseUrl}/products`);
    await page.locator('.product-card a').first().click();
    await page.waitForURL(/\/products\//);
    const productPath = new URL(page.url()).pathname;
    await page.click('form.add-to-cart button');
    await page.waitForURL(/\/cart$/);
    await page.goto(`${server.baseUrl}/checkout`);
    await fillCheckoutAddress(page);
    await page.click('form[action="/checkout"] button');
    await page.waitForURL(/\/account\/orders\/SK-[0-9A-Z]{8}$/);
    await page.goto(`${server.baseUrl}/no/such/page`);
    return { productPath };
  } finally {
    await context.close();
  }
}
