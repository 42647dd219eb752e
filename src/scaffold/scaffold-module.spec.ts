import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check, resolveConfig } from 'prettier';
import { scaffoldModule, ScaffoldRefusal } from './scaffold-module.js';

const APP_MODULE = [
  "import { Module } from '@nestjs/common';",
  "import { CartModule } from './shop/cart/cart.module.js';",
  '',
  '@Module({',
  '  imports: [',
  '    CartModule,',
  '  ],',
  '})',
  'export class AppModule {}',
  '',
].join('\n');

describe('scaffoldModule', () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'shopkernel-scaffold-'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'app.module.ts'), APP_MODULE);
    writeFileSync(join(root, '.prettierrc'), readFileSync('.prettierrc'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("writes the module's code, views and tests in its own folders and imports it in AppModule", async () => {
    const result = await scaffoldModule(root, 'gift-cards');
    expect(result.created).toEqual([
      'src/shop/gift-cards/gift-cards.module.ts',
      'src/shop/gift-cards/gift-cards.controller.ts',
      'src/shop/gift-cards/gift-cards-api.controller.ts',
      'src/shop/gift-cards/add-gift-cards-item.dto.ts',
      'src/shop/gift-cards/gift-cards.service.ts',
      'src/shop/gift-cards/gift-cards.service.spec.ts',
      'src/shop/gift-cards/gift-cards.repository.ts',
      'src/shop/gift-cards/gift-cards.schema.ts',
      'src/shop/gift-cards/gift-cards-item-added.event.ts',
      'src/shop/gift-cards/gift-cards-count.listener.ts',
      'src/shop/gift-cards/migrations/index.ts',
      'src/shop/gift-cards/migrations/0001-create-items.ts',
      'src/shop/gift-cards/profiler/gift-cards-profile.ts',
      'src/shop/gift-cards/profiler/gift-cards-profile.listener.ts',
      'src/shop/gift-cards/profiler/gift-cards.collector.ts',
      'views/shop/gift-cards/index.hbs',
      'views/shop/gift-cards/slots/header-links.hbs',
      'views/shop/gift-cards/profiler/panels/gift-cards.hbs',
      'views/shop/gift-cards/profiler/toolbar/gift-cards.hbs',
      'test/shop/gift-cards/gift-cards.e2e-spec.ts',
    ]);
    expect(result.updated).toEqual(['src/app.module.ts']);
    for (const path of result.created) expect([path, existsSync(join(root, path))]).toEqual([path, true]);
    // Formatted by Prettier too: this short list fits on one line.
    expect(readFileSync(join(root, 'src', 'app.module.ts'), 'utf8')).toBe(
      [
        "import { Module } from '@nestjs/common';",
        "import { CartModule } from './shop/cart/cart.module.js';",
        "import { GiftCardsModule } from './shop/gift-cards/gift-cards.module.js';",
        '',
        '@Module({',
        '  imports: [CartModule, GiftCardsModule],',
        '})',
        'export class AppModule {}',
        '',
      ].join('\n'),
    );
  });

  it('spells the name as each place expects it: classes, the table, routes, URLs, the panel', async () => {
    await scaffoldModule(root, 'gift-cards');
    const read = (path: string) => readFileSync(join(root, path), 'utf8');
    expect(read('src/shop/gift-cards/gift-cards.module.ts')).toContain('export class GiftCardsModule {}');
    expect(read('src/shop/gift-cards/migrations/0001-create-items.ts')).toContain(".createTable('gift_cards_items')");
    expect(read('src/shop/gift-cards/migrations/index.ts')).toContain("'gift-cards-0001-create-items': createItems");
    expect(read('src/shop/gift-cards/gift-cards.controller.ts')).toContain("@RouteName('gift_cards_index')");
    expect(read('src/shop/gift-cards/gift-cards-api.controller.ts')).toContain("@Controller('api/gift-cards')");
    expect(read('src/shop/gift-cards/profiler/gift-cards.collector.ts')).toContain("readonly label = 'Gift cards';");
    expect(read('views/shop/gift-cards/slots/header-links.hbs')).toContain(
      '<a href="/gift-cards" class="gift-cards-link">Gift cards</a>',
    );
  });

  it('writes TypeScript as Prettier formats it with the project settings', async () => {
    const { created } = await scaffoldModule(root, 'wishlist');
    for (const path of created.filter((file) => file.endsWith('.ts'))) {
      const source = readFileSync(join(root, path), 'utf8');
      const options = { ...(await resolveConfig(join(root, path))), filepath: join(root, path) };
      expect([path, await check(source, options)]).toEqual([path, true]);
    }
  });

  it('refuses a module that exists, writing nothing', async () => {
    mkdirSync(join(root, 'views', 'shop', 'wishlist'), { recursive: true });
    await expect(scaffoldModule(root, 'wishlist')).rejects.toThrow(
      new ScaffoldRefusal('views/shop/wishlist exists already: nothing was written.'),
    );
    expect(existsSync(join(root, 'src', 'shop', 'wishlist'))).toBe(false);
    expect(readFileSync(join(root, 'src', 'app.module.ts'), 'utf8')).toBe(APP_MODULE);
  });

  it('refuses a name that is not one, or is taken, writing nothing', async () => {
    await expect(scaffoldModule(root, '../evil')).rejects.toBeInstanceOf(ScaffoldRefusal);
    await expect(scaffoldModule(root, 'cart')).rejects.toThrow(
      '"cart" is taken by the shop or the profiler: choose another name.',
    );
    expect(existsSync(join(root, 'src', 'shop'))).toBe(false);
    expect(existsSync(join(root, 'evil'))).toBe(false);
  });
});
