import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeModule } from './make-module.cli.js';

describe('makeModule (the command)', () => {
  let root: string;
  let out: string;
  let err: string;
  const run = (...args: string[]) =>
    makeModule(
      args,
      root,
      (text) => (out += text),
      (text) => (err += text),
    );

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'shopkernel-make-module-'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'app.module.ts'), '@Module({ imports: [] })\nexport class AppModule {}\n');
    writeFileSync(join(root, '.prettierrc'), readFileSync('.prettierrc'));
    out = '';
    err = '';
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('lists what it wrote and says what to do next', async () => {
    expect(await run('wishlist')).toBe(0);
    const lines = out.split('\n');
    expect(lines[0]).toBe('created src/shop/wishlist/wishlist.module.ts');
    expect(lines.filter((line) => line.startsWith('created '))).toHaveLength(20);
    expect(lines.slice(20)).toEqual([
      'updated src/app.module.ts',
      '',
      'Next: npm run start:dev, then open /wishlist and its panel in the profiler;',
      '      npm run test:jest -- test/shop/wishlist src/shop/wishlist runs its tests.',
      '',
    ]);
    expect(err).toBe('');
  });

  it.each([[[]], [['wishlist', 'extra']], [['--help']]])('answers %j with the usage and status 2', async (args) => {
    expect(await run(...args)).toBe(2);
    expect([out, err]).toEqual([
      '',
      'Usage: npm run make:module -- <name>   (lower-case words joined by hyphens: gift-cards)\n',
    ]);
  });

  it('says why a name is refused, with status 1', async () => {
    expect(await run('Gift_Cards')).toBe(1);
    expect(err).toBe(
      '"Gift_Cards" is not a module name: lower-case letters and digits, words joined by single hyphens (gift-cards), at most 40 characters.\n',
    );
  });

  it.each(['delete', 'new', 'class', 'constructor', 'prototype', 'await', 'to-string', 'has-own-property', 'app'])(
    'refuses %s in one line, with status 1, writing nothing and leaving AppModule as it was',
    async (name) => {
      const appModule = readFileSync(join(root, 'src', 'app.module.ts'), 'utf8');
      expect(await run(name)).toBe(1);
      expect(out).toBe('');
      expect(err).toMatch(new RegExp(`^"${name}" would be .*: choose another name\\.( Nothing was written\\.)?\\n$`));
      expect(readdirSync(join(root, 'src'))).toEqual(['app.module.ts']);
      expect(readdirSync(root).sort()).toEqual(['.prettierrc', 'src']);
      expect(readFileSync(join(root, 'src', 'app.module.ts'), 'utf8')).toBe(appModule);
    },
  );
});
