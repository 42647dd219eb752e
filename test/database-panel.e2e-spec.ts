import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { ExplainCsrf } from '../src/database/explain/explain-csrf.js';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../src/database/shop-db.js';
import { DatabaseFixturesModule } from './fixtures/database-fixtures.module.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';
import { describeOnEachDatabase, type TestDatabase } from './support/shop-databases.js';

const HOST = 'shop.test';
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();
/** Parsed with the markup inside <pre> (highlighted SQL), which node-html-parser keeps as text by default. */
const page = (html: string): HTMLElement => parse(html, { blockTextElements: { script: true, style: true } });

describeOnEachDatabase('Database panel: formatted SQL, runnable queries, EXPLAIN', 'dbexplain', databasePanelTools);

/** What the Database panel offers on either dialect, and how its EXPLAIN route refuses what it must. */
function databasePanelTools(database: () => Promise<TestDatabase>): void {
  let app: NestExpressApplication;
  let target: TestDatabase;
  const postgres = () => target.url !== undefined;
  const http = () => request(app.getHttpServer());
  const SLUG = 'ethiopian-espresso-roast-1-kg';

  beforeAll(async () => {
    target = await database();
    app = await createTestApp({
      imports: [DatabaseFixturesModule],
      ...(target.url ? { env: { DATABASE_URL: target.url } } : {}),
    });
    await seedCatalogue(app.get(ShopDb));
  });

  afterAll(async () => {
    await app?.close();
    await target?.teardown?.();
  });

  /** The Database panel of a request to `path`, and its rows. */
  async function panelOf(path: string): Promise<{ token: string; html: HTMLElement; rows: HTMLElement[] }> {
    const res = await http().get(path).set('Host', HOST).expect(200);
    const token = res.headers['x-debug-token'];
    await storedProfile(app, token);
    const html = page((await http().get(`/_profiler/${token}?panel=database`).set('Host', HOST).expect(200)).text);
    return { token, html, rows: html.querySelectorAll('table.db-queries tbody tr') };
  }

  /** The row of the product query (`where "slug" = ?`). */
  const productRow = (rows: HTMLElement[]) =>
    rows.find(
      (tr) =>
        text(tr.querySelector('pre.sql')).includes('where "products"."slug" =') ||
        text(tr.querySelector('pre.sql')).includes('where "slug" ='),
    )!;

  const form = (row: HTMLElement) => ({
    action: row.querySelector('form.db-explain-form')!.getAttribute('action')!.replace(/#.*$/, ''),
    query: row.querySelector('input[name=query]')!.getAttribute('value')!,
    csrf: row.querySelector('input[name=_token]')!.getAttribute('value')!,
  });

  it('shows a catalogue query laid out and highlighted, its raw statement and its runnable form with a copy button', async () => {
    const { rows } = await panelOf(`/products/${SLUG}`);
    const row = productRow(rows);
    expect(row).toBeDefined();
    const pretty = row.querySelector('pre.sql-pretty')!;
    expect(pretty.querySelector('.hljs-keyword')?.text).toBe('select');
    expect(pretty.text).toMatch(/^select\n {2}/);
    expect(pretty.text).toMatch(/\nwhere\n {2}/);
    expect(text(row.querySelector('details.db-raw pre.sql'))).toMatch(postgres() ? /"slug" = \$1/ : /"slug" = \?/);
    const runnable = row.querySelector('pre.runnable')!;
    expect(runnable.text).toContain(`"slug" = '${SLUG}'`);
    expect(runnable.text).not.toMatch(/\$1|\?/);
    const copy = row.querySelector('button[data-copy]')!;
    expect(copy.getAttribute('data-copy')).toBe(`#${runnable.id}`);
    expect(copy.hasAttribute('hidden')).toBe(true);
  });

  it("groups a transaction's statements, and names begin and commit after its first statement's caller, linked", async () => {
    const res = await http().get('/dbfx/restock').set('Host', HOST).expect(200);
    const token = res.headers['x-debug-token'];
    await storedProfile(app, token);
    const html = page((await http().get(`/_profiler/${token}?panel=database`).set('Host', HOST).expect(200)).text);
    const rows = html.querySelectorAll('table.db-queries tbody tr');
    const caller = `test/fixtures/database-fixtures.controller.ts:${res.body.line}`;
    const statement = (tr: HTMLElement) => text(tr.querySelector('pre.sql'));
    const begin = rows.findIndex((tr) => /^(begin|BEGIN)/.test(statement(tr)));
    expect(begin).toBeGreaterThanOrEqual(0);
    const group = rows.slice(begin, begin + 4);
    expect(group.map(statement).map((sql) => sql.split(/\s/)[0].toLowerCase())).toEqual([
      'begin',
      'select',
      'update',
      'commit',
    ]);
    for (const tr of [group[0], group[3]]) {
      expect(text(tr.querySelector('td.caller'))).toBe(`transaction of ${caller}`);
      expect(text(tr.querySelector('td.caller a.file-link'))).toBe(caller);
    }
    expect(text(group[1].querySelector('td.caller'))).toBe(caller);
  });

  it("folds the Logs panel by what ran: the param converter's query with its event, the controller's apart", async () => {
    const product = await panelOf(`/products/${SLUG}`);
    const restock = (await http().get('/dbfx/restock').set('Host', HOST).expect(200)).headers['x-debug-token'];
    await storedProfile(app, restock);
    const groupOf = async (token: string, query: string, sql: string) => {
      const html = page(
        (await http().get(`/_profiler/${token}?panel=logs${query}`).set('Host', HOST).expect(200)).text,
      );
      const group = html
        .querySelectorAll('details.log-group')
        .find((details) => details.querySelectorAll('.log-message').some((m) => m.text.includes(sql)))!;
      return text(group.querySelector('summary'));
    };
    for (const query of ['', '&channel=database']) {
      // The product is loaded by the ParamConverterListener, on kernel.controller.
      expect(await groupOf(product.token, query, '"slug" =')).toMatch(/^kernel\.controller: /);
      expect(await groupOf(restock, query, 'update "products"')).toMatch(/^In the controller: \d+ debug entries$/);
    }
  });

  it('sends the profiler page with a script nonce and the copy script', async () => {
    const res = await http().get(`/products/${SLUG}`).set('Host', HOST).expect(200);
    await storedProfile(app, res.headers['x-debug-token']);
    const panel = await http()
      .get(`/_profiler/${res.headers['x-debug-token']}?panel=database`)
      .set('Host', HOST)
      .expect(200);
    const nonce = /script-src 'nonce-([0-9a-f]{32})'/.exec(panel.headers['content-security-policy'])?.[1];
    expect(nonce).toBeDefined();
    const script = parse(panel.text).querySelector('script')!;
    expect(script.getAttribute('nonce')).toBe(nonce);
    expect(script.text).toContain('button[data-copy]');
  });

  it('explains a catalogue SELECT on a click, in the panel under that query', async () => {
    const { rows } = await panelOf(`/products/${SLUG}`);
    const { action, query, csrf } = form(productRow(rows));
    const res = await http().post(action).set('Host', HOST).type('form').send({ query, _token: csrf }).expect(200);
    const html = page(res.text);
    expect(text(html.querySelector('.panel h1'))).toBe('Database');
    const plan = html.querySelector(`#query-${query} .db-plan`)!;
    expect(text(plan.querySelector('h3'))).toBe(postgres() ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN');
    const lines = plan.querySelector('pre')!.text;
    if (postgres()) expect(lines).toMatch(/Scan .*on products|Seq Scan|Index Scan/);
    else expect(lines).toMatch(/SEARCH products USING INDEX|SCAN products/);
    expect(html.querySelectorAll('.db-plan').length).toBe(1);
  });

  it('offers no EXPLAIN for a write, and refuses one posted anyway with a 422', async () => {
    const { token, rows } = await panelOf('/dbfx/oversell');
    const write = rows.find((tr) => text(tr.querySelector('pre.sql')).startsWith('update'))!;
    expect(write.querySelector('form.db-explain-form')).toBeNull();
    const number = write.getAttribute('id')!.replace('query-', '');
    // A forged token first; then the server's own token for that query, as a page would have it if it offered one.
    const res = await http()
      .post(`/_profiler/${token}/explain`)
      .set('Host', HOST)
      .type('form')
      .send({ query: number, _token: 'x' })
      .expect(403);
    expect(res.text).toContain('Invalid CSRF token');
    const csrf = app.get(ExplainCsrf).token(token, Number(number));
    const refused = await http()
      .post(`/_profiler/${token}/explain`)
      .set('Host', HOST)
      .type('form')
      .send({ query: number, _token: csrf })
      .expect(422);
    expect(refused.text).toContain('Only a SELECT can be explained: this statement contains UPDATE.');
  });

  it('refuses a missing or forged CSRF token, hides the route from a cross-site POST, refuses a bad query number and a refused client with exact statuses', async () => {
    const { token, rows } = await panelOf(`/products/${SLUG}`);
    const { action, query, csrf } = form(productRow(rows));
    const post = (host = HOST) => http().post(action).set('Host', host).type('form');
    await post().send({ query }).expect(403);
    await post()
      .send({ query, _token: `${csrf.slice(0, -2)}AA` })
      .expect(403);
    await post()
      .send({ query: String(Number(query) + 1), _token: csrf })
      .expect(403);
    await post()
      .set('Sec-Fetch-Site', 'cross-site')
      .set('Origin', 'https://evil.example')
      .send({ query, _token: csrf })
      .expect(404);
    // For a page of another origin the profiler's routes do not exist.
    await post().set('Origin', 'https://evil.example').send({ query, _token: csrf }).expect(404);
    await post()
      .set('Sec-Fetch-Site', 'same-origin')
      .set('Origin', `http://${HOST}`)
      .send({ query, _token: csrf })
      .expect(200);
    await post().send({ query: 'abc', _token: csrf }).expect(400);
    await post().send({}).expect(400);
    await http()
      .post(`/_profiler/${token}/explain`)
      .set('Host', HOST)
      .type('form')
      .send({ query: '999', _token: app.get(ExplainCsrf).token(token, 999) })
      .expect(404);
    const refused = await post('public.example').send({ query, _token: csrf }).expect(404);
    expect(refused.text).not.toContain('EXPLAIN');
  });
}
