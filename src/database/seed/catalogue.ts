import { DEPARTMENTS } from './catalogue-data.js';

export interface SeedCategory {
  slug: string;
  name: string;
  description: string;
  position: number;
}

export interface SeedProduct {
  slug: string;
  name: string;
  description: string;
  price_cents: number;
  stock: number;
  image_url: string;
  category_slug: string;
  created_at: string;
}

export interface SeedCatalogue {
  categories: SeedCategory[];
  products: SeedProduct[];
}

/** Products are dated one every seven hours before this moment, so "newest first" is stable. */
const NEWEST = Date.UTC(2025, 5, 30, 9, 0, 0);
const HOURS = 3_600_000;

/**
 * The demo catalogue: every department's lines in every style, with prices in cents (ending in 90), stock levels
 * (about one product in eight sold out), image URLs (the shop's own pictures, `/images/products/<slug>.svg`, served
 * by the catalogue's ProductImageController) and dates. Deterministic: the same rows on every run and
 * every machine, so re-seeding replaces rows in place.
 */
export function buildCatalogue(): SeedCatalogue {
  const random = mulberry32(20250630);
  const categories: SeedCategory[] = DEPARTMENTS.map((d, position) => ({
    slug: d.slug,
    name: d.name,
    description: d.description,
    position,
  }));
  const products: SeedProduct[] = [];
  const slugs = new Set<string>();
  for (const department of DEPARTMENTS) {
    for (const [l, line] of department.lines.entries()) {
      for (const [s, style] of department.styles.entries()) {
        const name = `${style.label} ${line.name}`;
        const slug = uniqueSlug(slugify(name), slugs);
        const soldOut = random() < 0.12;
        products.push({
          slug,
          name,
          description: `${line.blurb} ${style.blurb} ${department.notes[(l + s) % department.notes.length]}`,
          price_cents: price(line.price * style.factor),
          stock: soldOut ? 0 : 1 + Math.floor(random() * 120),
          image_url: `/images/products/${slug}.svg`,
          category_slug: department.slug,
          created_at: new Date(NEWEST - products.length * 7 * HOURS).toISOString(),
        });
      }
    }
  }
  return { categories, products };
}

/** `Olive Wood Cutting Board` → `olive-wood-cutting-board`; `Cushion Cover, 45 × 45 cm` → `cushion-cover-45-x-45-cm`. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/×/g, 'x')
    .replace(/&/g, ' and ')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function uniqueSlug(base: string, taken: Set<string>): string {
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
  taken.add(slug);
  return slug;
}

/** A shop price: whole euros minus ten cents (24.90), never below 1.90. */
function price(cents: number): number {
  return Math.max(190, Math.round(cents / 100) * 100 - 10);
}

/** A small seeded PRNG (mulberry32): the same sequence everywhere. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
