import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { AppConfig } from '../config/app-config.js';
import { SourceMaps } from '../lifecycle/errors/source-maps.js';
import { SourceResolver } from '../profiler/error-page/source-resolver.js';
import { DatabaseCollector, type DatabaseData } from './database.collector.js';
import { ExplainCsrf } from './explain/explain-csrf.js';
import type { RecordedQuery } from './query-recorder.js';

const CATEGORIES = 'select "id", "slug" from "categories" order by "position"';
const PRODUCTS = 'select "id", "name" from "products" where "category_id" = ?';
const STOCK = 'update "products" set "stock" = ? where "id" = ?';

/** A compiled file with its source map, as `nest build` leaves them: dist/shop/catalogue.js → src/shop/catalogue.ts. */
const SOURCE = [
  'type Id = number;',
  '',
  'export async function products(db: any, id: Id) {',
  '  // the N of N+1',
  '  return db.selectFrom("products").where("category_id", "=", id).execute();',
  '}',
  '',
].join('\n');

/** The panel's view model, as far as these tests read it. */
type Row = Record<string, unknown>;
interface PanelModel {
  [field: string]: unknown;
  similarGroups: Array<Row & { callers: string[] }>;
  identicalGroups: Row[];
  warnings: Array<{ sql: string }>;
  queries: Array<Row & { html: string; transaction?: { begins: boolean } }>;
}

describe('DatabaseCollector', () => {
  let project: string;
  let compiled: string;
  let collector: DatabaseCollector;
  const query = (
    sql: string,
    params: unknown[],
    duration: number,
    caller: RecordedQuery['caller'] = null,
    error: string | null = null,
  ): RecordedQuery => ({
    sql,
    params,
    duration,
    start: 1,
    caller,
    error,
  });
  const panel = (data: DatabaseData) => collector.panel(data) as PanelModel;

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'shopkernel-db-collector-'));
    mkdirSync(join(project, 'src', 'shop'), { recursive: true });
    mkdirSync(join(project, 'dist', 'shop'), { recursive: true });
    writeFileSync(join(project, 'src', 'shop', 'catalogue.ts'), SOURCE);
    const out = ts.transpileModule(SOURCE, {
      fileName: 'catalogue.ts',
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2023, sourceMap: true },
    });
    compiled = join(project, 'dist', 'shop', 'catalogue.js');
    writeFileSync(compiled, out.outputText);
    writeFileSync(
      `${compiled}.map`,
      JSON.stringify({ ...JSON.parse(out.sourceMapText!), sources: ['../../src/shop/catalogue.ts'] }),
    );
    const config = AppConfig.fromEnv(
      { APP_ENV: 'test', DATABASE_URL: 'postgres://shop:secret@db:5432/shop' },
      { projectDir: project },
    );
    collector = new DatabaseCollector(config, new SourceResolver(config, new SourceMaps()), new ExplainCsrf());
  });

  afterAll(() => {
    rmSync(project, { recursive: true, force: true });
  });

  /** The line of the compiled file that runs the query (as V8 would report it). */
  const compiledLine = () =>
    ts
      .transpileModule(SOURCE, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2023 } })
      .outputText.split('\n')
      .findIndex((l) => l.includes('selectFrom')) + 1;

  const data = (queries: RecordedQuery[], dropped = 0): DatabaseData => ({
    dialect: 'postgres',
    database: 'postgres://shop:******@db:5432/shop',
    queries,
    dropped,
  });

  it('counts queries in the badge: a warning for a statement run 5 times or more, an error for a failure', () => {
    const products = (n: number) => Array.from({ length: n }, (_, i) => query(PRODUCTS, [i], 0.5));
    expect(collector.badge(data([query(CATEGORIES, [], 1), ...products(4)]))).toEqual({ text: '5', kind: 'info' });
    expect(collector.badge(data([query(CATEGORIES, [], 1), ...products(5)]))).toEqual({ text: '6', kind: 'warning' });
    expect(
      collector.badge(data([query(STOCK, [-1, 3], 1, null, 'CHECK constraint failed: products_stock_not_negative')])),
    ).toEqual({ text: '1', kind: 'error' });
    expect(collector.badge(data([], 0))).toEqual({ text: '0', kind: 'info' });
    expect(collector.badge(data([query(CATEGORIES, [], 1)], 7))).toEqual({ text: '8', kind: 'info' });
  });

  it('groups similar queries (same SQL) and identical ones (same SQL and parameters) with counts and total time', () => {
    const caller = { file: compiled, line: compiledLine(), column: 10 };
    const model = panel(
      data([
        query(CATEGORIES, [], 1),
        query(PRODUCTS, [1], 0.25, caller),
        query(PRODUCTS, [2], 0.25, caller),
        query(PRODUCTS, [3], 0.25, caller),
        query(PRODUCTS, [1], 0.25, caller),
        query(PRODUCTS, [4], 0.5, caller),
        query(CATEGORIES, [], 2),
        query(STOCK, [-1, 3], 0.5, null, 'CHECK constraint failed: products_stock_not_negative'),
      ]),
    );
    expect([model.count, model.total, model.statements, model.duplicates, model.failed, model.threshold]).toEqual([
      8,
      '5.00',
      3,
      2,
      1,
      5,
    ]);
    expect(model.database).toBe('postgres://shop:******@db:5432/shop');
    expect(model.similarGroups.map((g) => [g.sql, g.count, g.variants, g.time, g.numbers, g.repeated])).toEqual([
      [PRODUCTS, 5, 4, '1.50', '2, 3, 4, 5, 6', true],
      [CATEGORIES, 2, 1, '3.00', '1, 7', false],
    ]);
    expect(model.identicalGroups.map((g) => [g.sql, g.params, g.count, g.time])).toEqual([
      [CATEGORIES, '[]', 2, '3.00'],
      [PRODUCTS, '[1]', 2, '0.50'],
    ]);
    expect(model.warnings.map((g) => g.sql)).toEqual([PRODUCTS]);
    expect(model.queries.map((q) => [q.number, q.params, q.duration, q.similarCount, q.repeated, q.error])).toEqual([
      [1, null, '1.00', 2, false, null],
      [2, '[1]', '0.25', 5, true, null],
      [3, '[2]', '0.25', 5, true, null],
      [4, '[3]', '0.25', 5, true, null],
      [5, '[1]', '0.25', 5, true, null],
      [6, '[4]', '0.50', 5, true, null],
      [7, null, '2.00', 2, false, null],
      [8, '[-1,3]', '0.50', 1, false, 'CHECK constraint failed: products_stock_not_negative'],
    ]);
  });

  it('maps callers from compiled JavaScript to the TypeScript line when the panel is opened', () => {
    const caller = { file: compiled, line: compiledLine(), column: 10 };
    expect(caller.line).not.toBe(5);
    const model = panel(
      data([query(PRODUCTS, [1], 0.25, caller), query(PRODUCTS, [2], 0.25, caller), query(CATEGORIES, [], 1)]),
    );
    expect(model.queries.map((q) => q.caller)).toEqual(['src/shop/catalogue.ts:5', 'src/shop/catalogue.ts:5', null]);
    expect(model.similarGroups[0].callers).toEqual(['src/shop/catalogue.ts:5']);
  });

  it("marks slow queries, inlines parameters, offers EXPLAIN for a SELECT only and names a transaction's caller", () => {
    const caller = { file: compiled, line: compiledLine(), column: 10 };
    const record = { token: 'abc123' } as never;
    const model = collector.panel(
      data([
        query('begin', [], 0.1),
        query(PRODUCTS.replace('?', '$1'), ["it's"], 75, caller),
        query(STOCK.replace('?', '$1').replace('?', '$2'), [true, null], 1, caller),
        query('commit', [], 0.1),
        query('select 1', [], 0.1),
      ]),
      { profile: record, query: {} },
    ) as PanelModel;
    expect([model.slowQueryMs, model.slowCount]).toEqual([50, 1]);
    expect(
      model.queries.map((q) => [
        q.slow,
        q.runnable,
        q.explainToken === null,
        q.caller ?? `${q.callerNote}${q.transactionCaller === null ? '' : ` ${q.transactionCaller}`}`,
        q.transaction?.begins ?? null,
      ]),
    ).toEqual([
      [false, 'begin', true, 'transaction of src/shop/catalogue.ts:5', true],
      [
        true,
        `select "id", "name" from "products" where "category_id" = 'it''s'`,
        false,
        'src/shop/catalogue.ts:5',
        false,
      ],
      [false, 'update "products" set "stock" = TRUE where "id" = NULL', true, 'src/shop/catalogue.ts:5', false],
      [false, 'commit', true, 'transaction of src/shop/catalogue.ts:5', false],
      [false, 'select 1', false, 'not captured: run outside a query builder', null],
    ]);
    expect(model.queries[1].html).toContain('<span class="hljs-keyword">select</span>');
  });
});
