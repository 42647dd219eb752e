import { withModuleImport } from './app-module-import.js';

const WISHLIST = { className: 'WishlistModule', from: './shop/wishlist/wishlist.module.js' };

describe('withModuleImport', () => {
  it('imports the module after the last import and lists it last in @Module imports', () => {
    const source = [
      "import { Module } from '@nestjs/common';",
      "import { CartModule } from './shop/cart/cart.module.js';",
      '',
      '// The application.',
      '@Module({',
      '  imports: [',
      '    ConfigModule,',
      '    CartModule, // the cart',
      '  ],',
      '})',
      'export class AppModule {}',
      '',
    ].join('\n');
    expect(withModuleImport(source, WISHLIST)).toBe(
      [
        "import { Module } from '@nestjs/common';",
        "import { CartModule } from './shop/cart/cart.module.js';",
        "import { WishlistModule } from './shop/wishlist/wishlist.module.js';",
        '',
        '// The application.',
        '@Module({',
        '  imports: [',
        '    ConfigModule,',
        '    CartModule, // the cart',
        '    WishlistModule,',
        '  ],',
        '})',
        'export class AppModule {}',
        '',
      ].join('\n'),
    );
  });

  it('fills an empty imports list, and extends one written on one line', () => {
    const empty = "import { Module } from '@nestjs/common';\n\n@Module({ imports: [] })\nexport class AppModule {}\n";
    expect(withModuleImport(empty, WISHLIST)).toBe(
      "import { Module } from '@nestjs/common';\nimport { WishlistModule } from './shop/wishlist/wishlist.module.js';\n\n" +
        '@Module({ imports: [WishlistModule] })\nexport class AppModule {}\n',
    );
    const oneLine = '@Module({ imports: [CartModule] })\nexport class AppModule {}\n';
    expect(withModuleImport(oneLine, WISHLIST)).toBe(
      "import { WishlistModule } from './shop/wishlist/wishlist.module.js';\n" +
        '@Module({ imports: [CartModule, WishlistModule] })\nexport class AppModule {}\n',
    );
  });

  it('leaves a module that is imported already as it is', () => {
    const source =
      "import { WishlistModule } from './shop/wishlist/wishlist.module.js';\n@Module({ imports: [WishlistModule] })\nexport class AppModule {}\n";
    expect(withModuleImport(source, WISHLIST)).toBe(source);
  });

  it('says what to do by hand when AppModule has no imports list', () => {
    expect(() => withModuleImport('@Module({})\nexport class AppModule {}\n', WISHLIST)).toThrow(
      'src/app.module.ts has no @Module({ imports: [...] }): add WishlistModule to its imports by hand.',
    );
  });
});
