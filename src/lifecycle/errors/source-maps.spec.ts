import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { SourceMaps } from './source-maps.js';

/** Types and blank lines the compiler drops, so that compiled and source lines differ. */
const SOURCE = [
  'type Sku = string;',
  '',
  'interface Item {',
  '  sku: Sku;',
  '}',
  '',
  'export function fail(item: Item): never {',
  '  throw new Error(item.sku);',
  '}',
  '',
].join('\n');
const THROW_LINE = 8;

describe('SourceMaps', () => {
  let project: string;
  /** The compiled line and column (1-based, as V8 reports them) of the `throw`. */
  let at: { line: number; column: number };

  const compile = (name: string, options: ts.CompilerOptions): ts.TranspileOutput =>
    ts.transpileModule(SOURCE, {
      fileName: `${name}.ts`,
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2023, ...options },
    });

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'shopkernel-source-maps-'));
    mkdirSync(join(project, 'src'));
    mkdirSync(join(project, 'dist'));
    writeFileSync(join(project, 'src', 'item.ts'), SOURCE);
    const lines = compile('item', {}).outputText.split('\n');
    const index = lines.findIndex((l) => l.includes('throw new Error'));
    at = { line: index + 1, column: lines[index].indexOf('throw') + 1 };
    expect(at.line).not.toBe(THROW_LINE);
  });

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  /** Writes dist/<name>.js, with its map wherever `place` puts it; returns the compiled file's path. */
  function build(name: string, place: (js: string, map: string) => void): string {
    const out = compile(name, { sourceMap: true });
    const map = JSON.stringify({ ...JSON.parse(out.sourceMapText!), sources: ['../src/item.ts'] });
    const js = out.outputText.replace(/\/\/# sourceMappingURL=.*$/m, '');
    place(js, map);
    return join(project, 'dist', `${name}.js`);
  }

  it('follows the sourceMappingURL comment to a map of another name', () => {
    const file = build('named', (js, map) => {
      writeFileSync(join(project, 'dist', 'named.js'), `${js}//# sourceMappingURL=maps/named.map\n`);
      mkdirSync(join(project, 'dist', 'maps'), { recursive: true });
      writeFileSync(
        join(project, 'dist', 'maps', 'named.map'),
        JSON.stringify({ ...JSON.parse(map), sources: ['../../src/item.ts'] }),
      );
    });
    expect(new SourceMaps().locate(file, at.line, at.column)).toEqual({
      file: join(project, 'src', 'item.ts'),
      line: THROW_LINE,
      column: 3,
    });
  });

  it('reads an inline (base64 data: URL) map, as inlineSourceMap writes it', () => {
    const file = build('inline', (js, map) => {
      writeFileSync(
        join(project, 'dist', 'inline.js'),
        `${js}//# sourceMappingURL=data:application/json;base64,${Buffer.from(map).toString('base64')}\n`,
      );
    });
    expect(new SourceMaps().locate(file, at.line, at.column)).toEqual({
      file: join(project, 'src', 'item.ts'),
      line: THROW_LINE,
      column: 3,
    });
  });

  it('falls back to the .js.map beside a file whose comment was stripped, and takes file: URLs', () => {
    const file = build('beside', (js, map) => {
      writeFileSync(join(project, 'dist', 'beside.js'), js);
      writeFileSync(join(project, 'dist', 'beside.js.map'), map);
    });
    expect(new SourceMaps().locate(pathToFileURL(file).href, at.line, at.column)).toEqual({
      file: join(project, 'src', 'item.ts'),
      line: THROW_LINE,
      column: 3,
    });
  });

  it('maps a position once: the same frozen answer for every later ask', () => {
    const file = build('cached', (js, map) => {
      writeFileSync(join(project, 'dist', 'cached.js'), js);
      writeFileSync(join(project, 'dist', 'cached.js.map'), map);
    });
    const maps = new SourceMaps();
    const first = maps.locate(file, at.line, at.column);
    expect(first).toEqual({ file: join(project, 'src', 'item.ts'), line: THROW_LINE, column: 3 });
    expect(Object.isFrozen(first)).toBe(true);
    expect(maps.locate(file, at.line, at.column)).toBe(first);
    expect(maps.locate(file, at.line, at.column + 1)).not.toBe(first);
  });

  it('leaves a location alone when no map leads on: no map, a broken map, not JavaScript, not a path, not a local URL', () => {
    const maps = new SourceMaps();
    const bare = build('bare', (js) => writeFileSync(join(project, 'dist', 'bare.js'), js));
    expect(maps.locate(bare, at.line, at.column)).toEqual({ file: bare, line: at.line, column: at.column });
    const broken = build('broken', (js) =>
      writeFileSync(
        join(project, 'dist', 'broken.js'),
        `${js}//# sourceMappingURL=data:application/json;base64,e30K\n`,
      ),
    );
    expect(maps.locate(broken, at.line, at.column)).toEqual({ file: broken, line: at.line, column: at.column });
    expect(maps.locate(join(project, 'src', 'item.ts'), 8, 3)).toEqual({
      file: join(project, 'src', 'item.ts'),
      line: 8,
      column: 3,
    });
    expect(maps.locate('node:internal/process/task_queues', 95, 5)).toEqual({
      file: 'node:internal/process/task_queues',
      line: 95,
      column: 5,
    });
    expect(maps.locate(join(project, 'dist', 'missing.js'), 3, 1)).toEqual({
      file: join(project, 'dist', 'missing.js'),
      line: 3,
      column: 1,
    });
    // A file: URL with a host, which fileURLToPath refuses: a stack may hold anything, locate never throws.
    expect(maps.locate('file://evil/a.js', 1, 1)).toEqual({ file: 'file://evil/a.js', line: 1, column: 1 });
  });
});
