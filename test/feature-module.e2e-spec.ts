import type { NestExpressApplication } from '@nestjs/platform-express';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'node-html-parser';
import { sql } from 'kysely';
import request from 'supertest';
import { ShopDb } from '../src/database/shop-db.js';
import { MIGRATIONS } from '../src/database/migrations/index.js';
import { WishlistFixtureModule } from './fixtures/wishlist-fixture.module.js';
import { createCustomer, logInWithForm, loggedInCustomer } from './support/customers.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';
import { describeOnEachDatabase, type TestDatabase } from './support/shop-databases.js';

const HOST = 'shop.test';
const JSON_HEADERS = { Host: HOST, Accept: 'application/json', 'Content-Type': 'application/json' };

describeOnEachDatabase('A feature module plugs into the core without edits of it', 'feature', (database) => {
  let app: NestExpressApplication;
  let target: TestDatabase;
  /** The project's views, with the module's own views folder added (its profiler panel). */
  let project: string;

  beforeAll(async () => {
    target = await database();
    project = mkdtempSync(join(tmpdir(), 'shopkernel-feature-'));
    cpSync(join(process.cwd(), 'views'), join(project, 'views'), { recursive: true });
    const panels = join(project, 'views', 'shop', 'fixture-wishlist', 'profiler', 'panels');
    mkdirSync(panels, { recursive: true });
    writeFileSync(
      join(panels, 'fixture-wishlist.hbs'),
      '<h2>Added to the wishlist</h2><ul class="wishlist-added">{{#each added}}<li>{{this}}</li>{{/each}}</ul>',
    );
    writeFileSync(
      join(project, 'views', 'shop', 'fixture-wishlist', 'show.hbs'),
      '<h1>{{title}}</h1><ul class="wishlist">{{#each items}}<li>{{this}}</li>{{/each}}</ul>',
    );
    app = await createTestApp({
      imports: [WishlistFixtureModule],
      env: target.url ? { DATABASE_URL: target.url } : {},
      config: { projectDir: project },
    });
  });
  afterAll(async () => {
    await app?.close();
    await target?.teardown?.();
    rmSync(project, { recursive: true, force: true });
  });

  it("migrates the module's table at start, after the core's, and records it", async () => {
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
      app.get(ShopDb),
    );
    const names = applied.rows.map((row) => row.name);
    // The core's first, in order; the fixture's among the modules' (the application's own may be there too).
    expect(names.slice(0, Object.keys(MIGRATIONS).length)).toEqual(Object.keys(MIGRATIONS));
    expect(names.slice(Object.keys(MIGRATIONS).length)).toContain('fixture-wishlist-0001-items');
  });

  it('serves a CSRF token for the id its JSON API declares, and its route writes its table', async () => {
    const agent = request.agent(app.getHttpServer());
    await agent.post('/api/fixture-wishlist/items/wool-hat').set(JSON_HEADERS).send({}).expect(403);
    const { token } = (await agent.get('/api/csrf-token/fixture-wishlist').set(JSON_HEADERS).expect(200)).body;
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    await agent
      .post('/api/fixture-wishlist/items/wool-hat')
      .set(JSON_HEADERS)
      .set('X-CSRF-Token', token)
      .send({})
      .expect(201, { added: 'wool-hat' });
    await agent
      .get('/api/fixture-wishlist/items')
      .set(JSON_HEADERS)
      .expect(200, { items: ['wool-hat'] });
  });

  it("shows the module's profiler panel, its template in the module's views folder", async () => {
    const agent = request.agent(app.getHttpServer());
    const { token } = (await agent.get('/api/csrf-token/fixture-wishlist').set(JSON_HEADERS).expect(200)).body;
    const res = await agent
      .post('/api/fixture-wishlist/items/mug')
      .set(JSON_HEADERS)
      .set('X-CSRF-Token', token)
      .send({})
      .expect(201);
    const profile = res.headers['x-debug-token'];
    await storedProfile(app, profile);
    const page = await agent.get(`/_profiler/${profile}?panel=fixture-wishlist`).set('Host', HOST).expect(200);
    const html = parse(page.text);
    expect(html.querySelector('nav.menu a[data-panel="fixture-wishlist"] .badge')!.text).toBe('1');
    expect(html.querySelectorAll('ul.wishlist-added li').map((li) => li.text)).toEqual(['mug']);
  });

  it('keeps ids only HTML forms use in their pages, and says which ids there are', async () => {
    const res = await request(app.getHttpServer()).get('/api/csrf-token/authenticate').set(JSON_HEADERS).expect(404);
    expect(res.body.detail).toBe(
      'No CSRF token "authenticate": ask for one of cart, checkout, fixture-wishlist, logout.',
    );
  });

  describe('access declared on its own controllers, none in the core access map', () => {
    it('sends an anonymous visitor of its page to the login page, and back to it after logging in', async () => {
      const agent = request.agent(app.getHttpServer());
      const sent = await agent.get('/fixture-wishlist').set('Host', HOST).set('Accept', 'text/html').expect(302);
      expect(sent.headers.location).toBe('/login');
      const login = await logInWithForm(agent, await createCustomer(app));
      expect(login.headers.location).toBe('/fixture-wishlist');
      const page = await agent.get('/fixture-wishlist').set('Host', HOST).set('Accept', 'text/html').expect(200);
      expect(parse(page.text).querySelector('h1')!.text).toBe('Wishlist');
    });

    it('answers an anonymous script with a 401 problem and the login challenge', async () => {
      const res = await request(app.getHttpServer()).get('/api/fixture-wishlist/report').set(JSON_HEADERS).expect(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['www-authenticate']).toBe(
        'Cookie realm="Shopkernel", form-action="/login", cookie-name="SHOPSESSID"',
      );
      expect(res.body.detail).toBe('Full authentication is required to access this resource.');
    });

    it('answers a customer without the role with a 403, and one with it with the data', async () => {
      const customer = await loggedInCustomer(app);
      const denied = await customer.get('/api/fixture-wishlist/report').set(JSON_HEADERS).expect(403);
      expect(denied.body).toMatchObject({ status: 403, detail: 'Access Denied.' });
      const admin = await loggedInCustomer(app, ['ROLE_ADMIN']);
      await admin.get('/api/fixture-wishlist/report').set(JSON_HEADERS).expect(200, { lists: 0 });
    });
  });
});
