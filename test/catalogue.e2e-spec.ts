import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { buildCatalogue, type SeedProduct } from '../src/database/seed/catalogue.js';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../src/database/shop-db.js';
import { createTestApp } from './support/create-test-app.js';
import { describeOnEachDatabase, type TestDatabase } from './support/shop-databases.js';
import { storedProfile } from './support/profiler.js';
import { profileData } from './support/profile-data.js';

const HOST = 'shop.test';
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();

/** The seed, in insertion order (a fresh database numbers the products 1…240 in this order). */
const CATALOGUE = buildCatalogue();
const PRODUCTS = CATALOGUE.products.map((p, index) => ({ ...p, id: index + 1 }));
type Seeded = SeedProduct & { id: number };

const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const SORTED: Record<string, (a: Seeded, b: Seeded) => number> = {
  name: (a, b) => byteOrder(a.name, b.name) || a.id - b.id,
  price_asc: (a, b) => a.price_cents - b.price_cents || byteOrder(a.name, b.name) || a.id - b.id,
  price_desc: (a, b) => b.price_cents - a.price_cents || byteOrder(a.name, b.name) || a.id - b.id,
  newest: (a, b) => byteOrder(b.created_at, a.created_at) || b.id - a.id,
};
const euros = (cents: number): string =>
  `€${Math.floor(cents / 100).toLocaleString('en-US')}.${String(cents % 100).padStart(2, '0')}`;

describeOnEachDatabase('Catalogue', 'catalogue', catalogueContract);

function catalogueContract(database: () => Promise<TestDatabase>): void {
  let app: NestExpressApplication;
  let db: TestDatabase;
  const get = (path: string) => request(app.getHttpServer()).get(path).set('Host', HOST);

  beforeAll(async () => {
    db = await database();
    app = await createTestApp(db.url ? { env: { DATABASE_URL: db.url } } : {});
    await seedCatalogue(app.get(ShopDb));
  });

  afterAll(async () => {
    await app?.close();
    await db?.teardown?.();
  });

  async function page(path: string): Promise<HTMLElement> {
    const res = await get(path)
      .expect(200)
      .expect('Content-Type', /text\/html/);
    return parse(res.text);
  }
  const names = (html: HTMLElement): string[] => html.querySelectorAll('.product-card .product-name').map(text);

  describe('GET /products', () => {
    it.each(Object.keys(SORTED))('lists 24 products of 240 sorted by %s', async (sort) => {
      const html = await page(`/products?sort=${sort}`);
      expect(text(html.querySelector('#result-count'))).toBe('240 products');
      const expected = [...PRODUCTS].sort(SORTED[sort]).slice(0, 24);
      expect(names(html)).toEqual(expected.map((p) => p.name));
      expect(html.querySelector('#catalogue-sort option[selected]')?.getAttribute('value')).toBe(sort);
    });

    it('sorts by name by default, and shows each card with its price, stock and picture', async () => {
      const html = await page('/products');
      const first = [...PRODUCTS].sort(SORTED.name)[0];
      const card = html.querySelector('.product-card')!;
      expect(text(card.querySelector('.product-name'))).toBe(first.name);
      expect(card.querySelector('a')?.getAttribute('href')).toBe(`/products/${first.slug}`);
      expect(text(card.querySelector('.price'))).toBe(euros(first.price_cents));
      expect(card.querySelector('img')?.getAttribute('alt')).toBe(first.name);
      expect(card.querySelector('img')?.getAttribute('src')).toBe(first.image_url);
      expect(html.querySelectorAll('.product-card')).toHaveLength(24);
      expect(html.querySelectorAll('nav.categories a')).toHaveLength(10);
    });

    it('pages through the list, the links keeping sort and search', async () => {
      const sorted = [...PRODUCTS].sort(SORTED.price_desc);
      const second = await page('/products?sort=price_desc&page=2');
      expect(names(second)).toEqual(sorted.slice(24, 48).map((p) => p.name));
      expect(text(second.querySelector('.pagination p'))).toBe('Page 2 of 10');
      expect(second.querySelector('.pagination a[rel=prev]')?.getAttribute('href')).toBe(
        '/products?sort=price_desc&page=1',
      );
      expect(second.querySelector('.pagination a[rel=next]')?.getAttribute('href')).toBe(
        '/products?sort=price_desc&page=3',
      );
      expect(text(second.querySelector('.pagination [aria-current=page]'))).toBe('2');

      const last = await page('/products?sort=price_desc&page=10');
      expect(names(last)).toEqual(sorted.slice(216, 240).map((p) => p.name));
      expect(last.querySelector('.pagination a[rel=next]')).toBeNull();

      const searched = await page('/products?q=a&sort=newest');
      expect(searched.querySelector('.pagination a[rel=next]')?.getAttribute('href')).toBe(
        '/products?q=a&sort=newest&page=2',
      );
    });

    it('answers 404 for a page after the last, and 400 for a page that is not a whole number from 1', async () => {
      const beyond = await get('/products?page=11').expect(404);
      expect(beyond.text).toContain('Page 11 does not exist: the list has 10 pages.');
      for (const bad of ['abc', '0', '-1', '1.5', '']) {
        const res = await get(`/products?page=${bad}`).expect(400);
        expect(res.text).toContain(
          `The &quot;page&quot; query parameter must be a whole number from 1, &quot;${bad}&quot; given.`,
        );
      }
      await get('/products?page=1&page=2').expect(400);
    });

    it('rejects a malformed page in kernel.request (PaginationListener), before any controller runs', async () => {
      const res = await get('/products?page=abc').expect(400);
      const profile = await storedProfile(app, res.headers['x-debug-token']);
      const called: Array<{ event: string; listener: string; priority: number }> = profileData(profile).events.called;
      const request = called.filter((c) => c.event === 'kernel.request');
      expect(request[request.length - 1]).toMatchObject({
        listener: 'PaginationListener::onKernelRequest',
        priority: 4,
      });
      expect(called.map((c) => c.event)).not.toContain('kernel.controller');
    });

    it('answers 400 for an unknown sort, naming the valid ones', async () => {
      const res = await get('/products?sort=price').expect(400);
      expect(res.text).toContain(
        'Invalid sort &quot;price&quot;: expected one of name, price_asc, price_desc, newest.',
      );
    });

    it('searches names and descriptions, case-insensitively', async () => {
      const target = PRODUCTS[37];
      const term = target.name.split(' ').slice(-1)[0].toUpperCase();
      const matches = PRODUCTS.filter((p) =>
        `${p.name} ${p.description}`.toLowerCase().includes(term.toLowerCase()),
      ).sort(SORTED.name);
      expect(matches.length).toBeGreaterThan(0);
      const html = await page(`/products?q=${encodeURIComponent(term)}`);
      expect(text(html.querySelector('#result-count'))).toBe(
        `${matches.length} product${matches.length === 1 ? '' : 's'} for “${term}”`,
      );
      expect(names(html)).toEqual(matches.slice(0, 24).map((p) => p.name));
      expect(names(html)).toContain(target.name);
      expect(html.querySelector('#catalogue-q')?.getAttribute('value')).toBe(term);

      const exact = await page(`/products?q=${encodeURIComponent(target.name.toLowerCase())}`);
      expect(names(exact)).toContain(target.name);
    });

    it('shows 0 results for a term nothing matches', async () => {
      const html = await page('/products?q=zzqxj-no-such-thing');
      expect(text(html.querySelector('#result-count'))).toBe('0 products for “zzqxj-no-such-thing”');
      expect(html.querySelectorAll('.product-card')).toHaveLength(0);
      expect(text(html.querySelector('.empty'))).toBe('No products found.');
      expect(html.querySelector('.pagination')).toBeNull();
    });

    it('treats % and _ in the search text literally', async () => {
      for (const q of ['%', '_', '0%']) {
        const literal = PRODUCTS.filter((p) => `${p.name} ${p.description}`.toLowerCase().includes(q)).length;
        expect(literal).toBeLessThan(240);
        const html = await page(`/products?q=${encodeURIComponent(q)}`);
        expect(text(html.querySelector('#result-count'))).toBe(
          `${literal} product${literal === 1 ? '' : 's'} for “${q}”`,
        );
      }
    });

    it('escapes the search text everywhere it is shown', async () => {
      const q = '<script>alert(1)</script>"\'&';
      const res = await get(`/products?q=${encodeURIComponent(q)}`).expect(200);
      expect(res.text).not.toContain('<script>alert(1)');
      expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      const html = parse(res.text);
      // Parsed back, the page shows exactly what was typed, as text.
      expect(text(html.querySelector('#search-term'))).toBe(q);
      expect(html.querySelector('#search-term')?.childNodes.every((n) => n.nodeType === 3)).toBe(true);
      // The one script is the debug toolbar's, loaded from the profiler.
      expect(
        html.querySelectorAll('script').map((script) => script.getAttribute('src')?.replace(/\?v=[0-9a-f]{12}$/, '')),
      ).toEqual(['/_profiler/toolbar.js']);
      expect(html.querySelector('#catalogue-q')?.getAttribute('value')).toBe(q);
      expect(html.querySelector('.pagination a[rel=next]')).toBeNull();
    });
  });

  describe('GET /categories/:slug', () => {
    it("lists the category's products with the same sorting and paging", async () => {
      const category = CATALOGUE.categories[3];
      const mine = PRODUCTS.filter((p) => p.category_slug === category.slug);
      const html = await page(`/categories/${category.slug}?sort=price_asc`);
      expect(text(html.querySelector('h1'))).toBe(category.name);
      expect(text(html.querySelector('#result-count'))).toBe(`${mine.length} products`);
      expect(names(html)).toEqual(
        [...mine]
          .sort(SORTED.price_asc)
          .slice(0, 24)
          .map((p) => p.name),
      );
      expect(html.querySelector('.pagination')).toBeNull();
      expect(html.querySelector('form.catalogue-filter')?.getAttribute('action')).toBe(`/categories/${category.slug}`);
      await get(`/categories/${category.slug}?page=2`).expect(404);
      await get(`/categories/${category.slug}?sort=bogus`).expect(400);
    });

    it('answers 404 for an unknown category, through the parameter converter', async () => {
      const res = await get('/categories/no-such-category').expect(404);
      expect(res.text).toContain('Category &quot;no-such-category&quot; not found.');
    });
  });

  describe('HTTP caching', () => {
    it('sends Cache-Control, Vary and an ETag on catalogue pages, and a bodiless 304 when If-None-Match has it', async () => {
      const soldOut = PRODUCTS.find((p) => p.stock === 0)!;
      for (const path of [
        '/products?sort=price_asc',
        `/categories/${CATALOGUE.categories[0].slug}`,
        `/products/${soldOut.slug}`,
      ]) {
        const first = await get(path).expect(200);
        expect(first.headers['cache-control']).toBe('public, max-age=60');
        expect(first.headers.vary).toBe('Accept-Language');
        expect(first.headers['set-cookie']).toBeUndefined();
        const etag = first.headers.etag;
        expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
        const again = await get(path).set('If-None-Match', `"other", ${etag}`).expect(304);
        expect(again.text).toBe('');
        expect(again.headers.etag).toBe(etag);
        expect(again.headers['content-type']).toBeUndefined();
        await get(path).set('If-None-Match', '"other"').expect(200);
      }
    });

    it("makes the page of a product in stock private: its add-to-cart form's CSRF token is the visitor's own", async () => {
      // Rendering the token ({{csrf_field "cart"}}) stores it in the visitor's session: the page starts a session
      // (Set-Cookie) and carries a per-visitor secret, so the session listener turns @HttpCache's `public` into
      // `private` and no shared cache may keep it. The ETag still works for the visitor's own browser: with the
      // session cookie, the token and so the page are the same, and If-None-Match gets a 304.
      const path = `/products/${PRODUCTS.find((p) => p.stock > 0)!.slug}`;
      const first = await get(path).expect(200);
      expect(first.headers['cache-control']).toBe('max-age=0, must-revalidate, private');
      expect(first.headers.vary).toBe('Accept-Language');
      const cookie = ([] as string[])
        .concat(first.headers['set-cookie'] ?? [])
        .find((c) => c.startsWith('SHOPSESSID='));
      expect(cookie).toBeDefined();
      const session = cookie!.split(';')[0];
      const etag = first.headers.etag;
      expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
      const again = await get(path).set('Cookie', session).set('If-None-Match', etag).expect(304);
      expect(again.headers['cache-control']).toBe('max-age=0, must-revalidate, private');
      // Another visitor gets another token, so another page.
      expect((await get(path).expect(200)).headers.etag).not.toBe(etag);
    });

    it('does not cache errors: a 404 keeps no-store and no ETag', async () => {
      const res = await get('/products/no-such-thing').expect(404);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.etag).toBeUndefined();
    });
  });

  describe('GET /products/:slug', () => {
    const find = (predicate: (p: Seeded) => boolean): Seeded => {
      const product = PRODUCTS.find(predicate);
      if (!product) throw new Error('No such product in the seed');
      return product;
    };

    it('shows the product: name, price, stock, description, picture and category link', async () => {
      const product = find((p) => p.stock > 5 && p.price_cents >= 1000);
      const category = CATALOGUE.categories.find((c) => c.slug === product.category_slug)!;
      const html = await page(`/products/${product.slug}`);
      expect(text(html.querySelector('article.product h1'))).toBe(product.name);
      expect(text(html.querySelector('article.product .price'))).toBe(euros(product.price_cents));
      expect(text(html.querySelector('article.product .price'))).toMatch(/^€[\d,]+\.\d0$/);
      expect(text(html.querySelector('article.product .stock'))).toBe('In stock');
      expect(text(html.querySelector('article.product .description'))).toBe(product.description);
      const img = html.querySelector('article.product img')!;
      expect([img.getAttribute('src'), img.getAttribute('alt')]).toEqual([product.image_url, product.name]);
      const link = html.querySelector('a.category-link')!;
      expect([link.getAttribute('href'), text(link)]).toEqual([`/categories/${category.slug}`, category.name]);
      expect(text(html.querySelector('title'))).toBe(`${product.name} – Shopkernel`);
    });

    it('says when a product is sold out or nearly', async () => {
      const soldOut = find((p) => p.stock === 0);
      expect(text((await page(`/products/${soldOut.slug}`)).querySelector('article.product .stock'))).toBe(
        'Out of stock',
      );
      // The seed may have no product with 1–5 left: make one.
      const low = find((p) => p.stock > 5);
      await app.get(ShopDb).updateTable('products').set({ stock: 3 }).where('slug', '=', low.slug).execute();
      try {
        expect(text((await page(`/products/${low.slug}`)).querySelector('article.product .stock'))).toBe('Only 3 left');
      } finally {
        await app.get(ShopDb).updateTable('products').set({ stock: low.stock }).where('slug', '=', low.slug).execute();
      }
    });

    it('answers 404 for an unknown slug from kernel.controller, the ParamConverterListener in the Events panel', async () => {
      const res = await get('/products/no-such-thing').expect(404);
      expect(res.text).toContain('Product &quot;no-such-thing&quot; not found.');
      const profile = await storedProfile(app, res.headers['x-debug-token']);
      const data = profileData(profile);
      const called: Array<{ event: string; listener: string; priority: number }> = data.events.called;
      expect(called).toContainEqual(
        expect.objectContaining({
          event: 'kernel.controller',
          listener: 'ParamConverterListener::onKernelController',
          priority: 0,
        }),
      );
      expect(called.map((c) => c.event)).toContain('kernel.exception');
      expect(data.exception!.exceptions[0]).toMatchObject({
        class: 'NotFoundHttpException',
        message: 'Product "no-such-thing" not found.',
        statusCode: 404,
      });
    });

    it('loads a product for the handler through the same listener', async () => {
      const product = PRODUCTS[0];
      const res = await get(`/products/${product.slug}`).expect(200);
      const profile = await storedProfile(app, res.headers['x-debug-token']);
      const data = profileData(profile);
      expect(data.events.called).toContainEqual(
        expect.objectContaining({ event: 'kernel.controller', listener: 'ParamConverterListener::onKernelController' }),
      );
      expect(data.exception?.exceptions ?? []).toEqual([]);
    });
  });

  describe('GET /images/products/:slug.svg', () => {
    /** The body of an SVG answer (supertest keeps image/* bodies as a Buffer). */
    const svgOf = (res: request.Response): string => (Buffer.isBuffer(res.body) ? res.body.toString('utf8') : res.text);

    it("serves every seeded product's picture itself: an SVG, public for a day, with an ETag and nosniff", async () => {
      const product = PRODUCTS[0];
      expect(product.image_url).toBe(`/images/products/${product.slug}.svg`);
      const res = await get(product.image_url).expect(200);
      expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe("default-src 'none'");
      expect(res.headers['cache-control']).toBe('public, max-age=86400');
      expect(res.headers.etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
      expect(res.headers['set-cookie']).toBeUndefined();
      const svg = svgOf(res);
      expect(svg).toMatch(
        /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="800" height="600" viewBox="0 0 800 600" role="img" aria-label="Ethiopian Espresso Roast, 1 kg">/,
      );
      expect(svg).toContain('<title>Ethiopian Espresso Roast, 1 kg</title>');
      expect(svg).toContain('>EE</text>');
      // No debug toolbar in an image, and nothing fetched from elsewhere.
      expect(svg).not.toContain('sk-toolbar');
      expect(svg).not.toMatch(/href=|https?:\/\/(?!www\.w3\.org\/2000\/svg")/);
      // Every product of the list links a picture the shop serves.
      const html = await page('/products?sort=newest');
      const sources = html.querySelectorAll('.product-card img').map((img) => img.getAttribute('src')!);
      expect(sources).toHaveLength(24);
      for (const src of sources.slice(0, 3))
        await get(src).expect(200).expect('Content-Type', 'image/svg+xml; charset=utf-8');
    });

    it('answers 304 without a body when If-None-Match has the ETag, and draws the new name once it changes', async () => {
      const product = PRODUCTS[1];
      const first = await get(product.image_url).expect(200);
      const etag = first.headers.etag;
      const again = await get(product.image_url).set('If-None-Match', etag).expect(304);
      expect(again.text).toBe('');
      expect([again.headers.etag, again.headers['cache-control'], again.headers['content-type']]).toEqual([
        etag,
        'public, max-age=86400',
        undefined,
      ]);
      await get(product.image_url).set('If-None-Match', '"something-else"').expect(200);
      const shop = app.get(ShopDb);
      await shop.updateTable('products').set({ name: 'Renamed Roast' }).where('slug', '=', product.slug).execute();
      try {
        const renamed = await get(product.image_url).set('If-None-Match', etag).expect(200);
        expect(renamed.headers.etag).not.toBe(etag);
        expect(svgOf(renamed)).toContain('<title>Renamed Roast</title>');
      } finally {
        await shop.updateTable('products').set({ name: product.name }).where('slug', '=', product.slug).execute();
      }
    });

    it("escapes the product's name in the picture", async () => {
      const shop = app.get(ShopDb);
      const category = await shop.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
      await shop
        .insertInto('products')
        .values({
          slug: 'image-test-lamp',
          name: `Lamp "Amber" <b>&</b> 'Co'`,
          description: 'A lamp.',
          price_cents: 990,
          stock: 1,
          image_url: null,
          category_id: category.id,
        })
        .execute();
      try {
        const res = await get('/images/products/image-test-lamp.svg')
          .expect(200)
          .expect('Content-Type', 'image/svg+xml; charset=utf-8');
        const svg = svgOf(res);
        const escaped = 'Lamp &quot;Amber&quot; &lt;b&gt;&amp;&lt;/b&gt; &#39;Co&#39;';
        expect(svg).not.toContain('<b>');
        expect(svg).toContain(`aria-label="${escaped}"`);
        expect(svg).toContain(`<title>${escaped}</title>`);
        expect(svg).toContain(`<tspan x="400" y="500">${escaped}</tspan>`);
        expect(svg).toContain('>LA</text>');
      } finally {
        await shop.deleteFrom('products').where('slug', '=', 'image-test-lamp').execute();
      }
    });

    it('answers 404 for an unknown slug through the kernel (the parameter converter), and for another extension', async () => {
      const res = await get('/images/products/no-such-thing.svg')
        .expect(404)
        .expect('Content-Type', 'text/html; charset=utf-8');
      expect(res.text).toContain('Product &quot;no-such-thing&quot; not found.');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.etag).toBeUndefined();
      const profile = await storedProfile(app, res.headers['x-debug-token']);
      const data = profileData(profile);
      expect(data.events.called).toContainEqual(
        expect.objectContaining({ event: 'kernel.controller', listener: 'ParamConverterListener::onKernelController' }),
      );
      expect(data.exception!.exceptions[0]).toMatchObject({
        class: 'NotFoundHttpException',
        message: 'Product "no-such-thing" not found.',
        statusCode: 404,
      });
      const json = await get('/images/products/no-such-thing.svg').set('Accept', 'application/json').expect(404);
      expect(json.body).toMatchObject({ status: 404, detail: 'Product "no-such-thing" not found.' });
      const png = await get(`/images/products/${PRODUCTS[0].slug}.png`).expect(404);
      expect(png.text).toContain(
        `No route found for &quot;GET http://${HOST}/images/products/${PRODUCTS[0].slug}.png&quot;`,
      );
    });
  });
}
