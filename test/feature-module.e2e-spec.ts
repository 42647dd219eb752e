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
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';
import { describeOnEachDatabase, type TestDatabase } from './support/shop-databases.js';

const HOST = 'shop.test';
const JSON_HEADERS = { Host: HOST, Accept: 'application/json', 'Content-Type': 'application/json' };

describeOnEachDatabase('A feature module plugs into the core without edits of it', 'feature', (database) => {
  let app: NestExpressApplication;
  let target: TestDatabase;

  beforeAll(async () => {
    target = await database();
    app = await createTestApp({
      imports: [WishlistFixtureModule],
      env: target.url ? { DATABASE_URL: target.url } : {},
    });
  });
  afterAll(async () => {
    await app?.close();
    await target?.teardown?.();
  });

  it("migrates the module's table at start, after the core's, and records it", async () => {
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
      app.get(ShopDb),
    );
    expect(applied.rows.map((row) => row.name)).toEqual([...Object.keys(MIGRATIONS), 'wishlist-0001-items']);
  });

  it('serves a CSRF token for the id its JSON API declares, and its route writes its table', async () => {
    const agent = request.agent(app.getHttpServer());
    await agent.post('/api/wishlist/items/wool-hat').set(JSON_HEADERS).send({}).expect(403);
    const { token } = (await agent.get('/api/csrf-token/wishlist').set(JSON_HEADERS).expect(200)).body;
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    await agent
      .post('/api/wishlist/items/wool-hat')
      .set(JSON_HEADERS)
      .set('X-CSRF-Token', token)
      .send({})
      .expect(201, { added: 'wool-hat' });
    await agent
      .get('/api/wishlist/items')
      .set(JSON_HEADERS)
      .expect(200, { items: ['wool-hat'] });
  });

  it('keeps ids only HTML forms use in their pages, and says which ids there are', async () => {
    const res = await request(app.getHttpServer()).get('/api/csrf-token/authenticate').set(JSON_HEADERS).expect(404);
    expect(res.body.detail).toBe('No CSRF token "authenticate": ask for one of cart, checkout, logout, wishlist.');
  });
});
