import type { NestExpressApplication } from '@nestjs/platform-express';
import { jest } from '@jest/globals';
import fs, { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'node-html-parser';
import request from 'supertest';
import { buildCatalogue } from '../src/database/seed/catalogue.js';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../src/database/shop-db.js';
import { createTestApp } from './support/create-test-app.js';

const HOST = 'shop.test';

/**
 * A feature module adds to pages it does not own through slots: a template at views/<its folder>/slots/<slot>.hbs.
 * The project's views are copied to a temporary folder so that the test can add and change templates there.
 */
describe('page slots filled by a module, read again in development (e2e)', () => {
  let app: NestExpressApplication;
  let project: string;
  const slug = buildCatalogue().products[0].slug;

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'shopkernel-slots-'));
    cpSync(join(process.cwd(), 'views'), join(project, 'views'), { recursive: true });
    const slots = join(project, 'views', 'shop', 'fixture-wishlist', 'slots');
    mkdirSync(slots, { recursive: true });
    writeFileSync(
      join(slots, 'header-links.hbs'),
      '<a href="/fixture-wishlist" class="fixture-wishlist-link">Wishlist</a>',
    );
    writeFileSync(
      join(slots, 'product-actions.hbs'),
      '<form class="add-to-wishlist" method="post" action="/fixture-wishlist/{{product.slug}}"><button>Save {{product.name}}</button></form>',
    );
    app = await createTestApp({ env: { VIEW_CACHE: '0' }, config: { projectDir: project } });
    await seedCatalogue(app.get(ShopDb));
  });
  afterAll(async () => {
    await app.close();
    rmSync(project, { recursive: true, force: true });
  });

  const page = async (path: string) =>
    parse((await request(app.getHttpServer()).get(path).set('Host', HOST).expect(200)).text);

  it("renders the module's header link in the layout's navigation, on every page", async () => {
    for (const path of ['/', '/products', `/products/${slug}`]) {
      const links = (await page(path)).querySelectorAll('header nav a').map((a) => a.getAttribute('href'));
      expect(links).toEqual(expect.arrayContaining(['/products', '/cart', '/fixture-wishlist']));
    }
  });

  it("renders the module's product action with the product page's context, escaped", async () => {
    const product = buildCatalogue().products[0];
    const form = (await page(`/products/${slug}`)).querySelector('article.product form.add-to-wishlist')!;
    expect(form.getAttribute('action')).toBe(`/fixture-wishlist/${slug}`);
    expect(form.querySelector('button')!.text).toBe(`Save ${product.name}`);
  });

  it('shows an edited slot template without a restart', async () => {
    writeFileSync(
      join(project, 'views', 'shop', 'fixture-wishlist', 'slots', 'header-links.hbs'),
      '<a href="/fixture-wishlist" class="fixture-wishlist-link">Saved items</a>',
    );
    let label = '';
    for (let i = 0; i < 100 && label !== 'Saved items'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      label = (await page('/')).querySelector('a.fixture-wishlist-link')!.text;
    }
    expect(label).toBe('Saved items');
  });

  it('compiles a page once: an unchanged page and its layout are not read again, an edited one shows at once', async () => {
    await page('/');
    const read = jest.spyOn(fs, 'readFile');
    try {
      await page('/');
      await page('/');
      expect(read.mock.calls.map(([file]) => String(file)).filter((file) => file.endsWith('.hbs'))).toEqual([]);
    } finally {
      read.mockRestore();
    }
    const layout = join(project, 'views', 'layouts', 'main.hbs');
    writeFileSync(layout, readFileSync(layout, 'utf8').replace('</body>', '<p id="edited-layout">Edited</p></body>'));
    let edited = false;
    for (let i = 0; i < 100 && !edited; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      edited = (await page('/')).querySelector('#edited-layout') !== null;
    }
    expect(edited).toBe(true);
  });
});
