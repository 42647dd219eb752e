import { buildCatalogue, slugify } from './catalogue.js';

describe('buildCatalogue', () => {
  const catalogue = buildCatalogue();

  it('has at least 200 products in at least 8 categories, every product in one of them', () => {
    expect(catalogue.products.length).toBe(240);
    expect(catalogue.categories.length).toBe(10);
    const categories = new Set(catalogue.categories.map((c) => c.slug));
    expect(catalogue.products.every((p) => categories.has(p.category_slug))).toBe(true);
    for (const slug of categories) expect(catalogue.products.filter((p) => p.category_slug === slug).length).toBe(24);
  });

  it('has unique slugs and names, integer prices in cents, stock levels with some sold out, images served by the shop', () => {
    const products = catalogue.products;
    expect(new Set(products.map((p) => p.slug)).size).toBe(products.length);
    expect(new Set(products.map((p) => p.name)).size).toBe(products.length);
    expect(new Set(catalogue.categories.map((c) => c.slug)).size).toBe(catalogue.categories.length);
    expect(products.every((p) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(p.slug))).toBe(true);
    expect(
      products.every((p) => Number.isInteger(p.price_cents) && p.price_cents > 0 && p.price_cents % 100 === 90),
    ).toBe(true);
    expect(products.every((p) => Number.isInteger(p.stock) && p.stock >= 0)).toBe(true);
    const soldOut = products.filter((p) => p.stock === 0).length;
    expect(soldOut).toBeGreaterThan(10);
    expect(soldOut).toBeLessThan(60);
    expect(products.every((p) => p.image_url === `/images/products/${p.slug}.svg`)).toBe(true);
    expect(products.every((p) => p.description.length > 80)).toBe(true);
    expect(new Set(products.map((p) => p.created_at)).size).toBe(products.length);
  });

  it('is deterministic', () => {
    expect(buildCatalogue()).toEqual(catalogue);
    expect(catalogue.products[0]).toEqual({
      slug: 'ethiopian-espresso-roast-1-kg',
      name: 'Ethiopian Espresso Roast, 1 kg',
      description:
        'A dark, syrupy roast made for espresso machines and moka pots. The Ethiopian lot tastes of jasmine, bergamot and ripe peach. Roasted in Hamburg every Tuesday and shipped within two days.',
      price_cents: 2890,
      stock: 43,
      image_url: '/images/products/ethiopian-espresso-roast-1-kg.svg',
      category_slug: 'coffee-tea',
      created_at: '2025-06-30T09:00:00.000Z',
    });
  });
});

describe('slugify', () => {
  it('makes URL keys of names', () => {
    expect(slugify('Olive Wood Cutting Board')).toBe('olive-wood-cutting-board');
    expect(slugify('Cushion Cover, 45 × 45 cm')).toBe('cushion-cover-45-x-45-cm');
    expect(slugify('Cedar & Sage Bar Soap')).toBe('cedar-and-sage-bar-soap');
    expect(slugify('Crème Brûlée')).toBe('creme-brulee');
  });
});
