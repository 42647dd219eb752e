import type { ModuleNames } from '../module-names.js';

export const serviceSpecTemplate = (n: ModuleNames): string => `import { EventEmitter2 } from '@nestjs/event-emitter';
import { memoryShopDb } from '../../database/testing/memory-shop-db.js';
import type { ShopDb } from '../../database/shop-db.js';
import { ${n.pascal}ItemAddedEvent } from './${n.kebab}-item-added.event.js';
import { ${n.pascal}Repository } from './${n.kebab}.repository.js';
import { ${n.pascal}Service } from './${n.kebab}.service.js';
import { ${n.snake.toUpperCase()}_MIGRATIONS } from './migrations/index.js';

describe('${n.pascal}Service', () => {
  let db: ShopDb;
  let events: EventEmitter2;
  let service: ${n.pascal}Service;

  beforeEach(async () => {
    db = await memoryShopDb({ migrations: ${n.snake.toUpperCase()}_MIGRATIONS });
    events = new EventEmitter2();
    service = new ${n.pascal}Service(new ${n.pascal}Repository(db), events);
  });
  afterEach(() => db.destroy());

  it('adds items, lists them in the order they came, and counts them', async () => {
    const first = await service.add('Wool hat');
    await service.add('Linen scarf');
    expect(first).toEqual({ id: 1, name: 'Wool hat', created_at: expect.stringMatching(/^\\d{4}-\\d\\d-\\d\\dT.*Z$/) });
    expect((await service.list()).map((item) => item.name)).toEqual(['Wool hat', 'Linen scarf']);
    expect(await new ${n.pascal}Repository(db).count()).toBe(2);
  });

  it('tells the application what it added', async () => {
    const heard: ${n.pascal}ItemAddedEvent[] = [];
    events.on(${n.pascal}ItemAddedEvent.NAME, (event: ${n.pascal}ItemAddedEvent) => heard.push(event));
    const item = await service.add('Wool hat');
    expect(heard).toEqual([new ${n.pascal}ItemAddedEvent(item.id, 'Wool hat')]);
  });
});
`;

export const e2eSpecTemplate = (
  n: ModuleNames,
): string => `import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse } from 'node-html-parser';
import request from 'supertest';
import { ShopDb } from '../../../src/database/shop-db.js';
import { createTestApp } from '../../support/create-test-app.js';
import { formCsrfToken } from '../../support/customers.js';
import { profileData } from '../../support/profile-data.js';
import { storedProfile } from '../../support/profiler.js';
import { describeOnEachDatabase, type TestDatabase } from '../../support/shop-databases.js';

const HOST = 'shop.test';
const JSON_HEADERS = { Host: HOST, Accept: 'application/json' };
const text = (html: string, selector: string): string[] =>
  parse(html)
    .querySelectorAll(selector)
    .map((element) => element.text.trim());

describeOnEachDatabase('${n.label}', '${n.snake}', (database) => {
  let app: NestExpressApplication;
  let target: TestDatabase;

  beforeAll(async () => {
    target = await database();
    app = await createTestApp(target.url ? { env: { DATABASE_URL: target.url } } : {});
  });
  beforeEach(async () => {
    await app.get(ShopDb).deleteFrom('${n.snake}_items').execute();
  });
  afterAll(async () => {
    await app?.close();
    await target?.teardown?.();
  });

  const server = () => app.getHttpServer();
  /** A visitor's browser: opens the page, then sends its form with \`name\`. */
  const submitForm = async (name: string) => {
    const agent = request.agent(server());
    const form = await agent.get('/${n.kebab}').set('Host', HOST).expect(200);
    const res = await agent
      .post('/${n.kebab}')
      .set('Host', HOST)
      .type('form')
      .send({ _csrf_token: formCsrfToken(form.text, '/${n.kebab}'), name });
    return { agent, res };
  };

  it("links to its page from every page's navigation", async () => {
    const home = await request(server()).get('/').set('Host', HOST).expect(200);
    expect(parse(home.text).querySelector('header nav a.${n.kebab}-link')!.getAttribute('href')).toBe('/${n.kebab}');
    const page = await request(server()).get('/${n.kebab}').set('Host', HOST).expect(200);
    expect(text(page.text, 'h1')).toEqual(['${n.label}']);
    expect(text(page.text, 'title')).toEqual(['${n.label} – Shopkernel']);
    expect(text(page.text, '.${n.kebab}-count')).toEqual(['0 items']);
  });

  it('adds an item from its form, then shows it with a flash message', async () => {
    const { agent, res } = await submitForm('  Wool <hat>  ');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/${n.kebab}');
    const page = await agent.get('/${n.kebab}').set('Host', HOST).expect(200);
    expect(text(page.text, '.${n.kebab}-items li')).toEqual(['Wool <hat>']);
    expect(page.text).toContain('<li>Wool &lt;hat&gt;</li>');
    expect(text(page.text, '.flash.success')).toEqual(['Added Wool <hat>.']);
    expect(text(page.text, '.${n.kebab}-count')).toEqual(['1 item']);
  });

  it('shows its form again with the problem when the name is empty (400), and refuses a form without a token', async () => {
    const { agent, res } = await submitForm(' ');
    expect(res.status).toBe(400);
    expect(text(res.text, '.violations li')).toEqual(['Give the item a name of 1 to 100 characters.']);
    await agent.post('/${n.kebab}').set('Host', HOST).type('form').send({ name: 'Wool hat' }).expect(403);
    expect(await app.get(ShopDb).selectFrom('${n.snake}_items').selectAll().execute()).toEqual([]);
  });

  it('lists and adds items through its JSON API', async () => {
    const added = await request(server()).post('/api/${n.kebab}').set(JSON_HEADERS).send({ name: 'Wool hat' }).expect(201);
    expect(added.body).toEqual({ id: expect.any(Number), name: 'Wool hat', addedAt: expect.stringMatching(/Z$/) });
    const list = await request(server()).get('/api/${n.kebab}').set(JSON_HEADERS).expect(200);
    expect(list.body).toEqual({ count: 1, items: [added.body] });
  });

  it('answers an invalid JSON item with a 400 problem naming every violation', async () => {
    const res = await request(server())
      .post('/api/${n.kebab}')
      .set(JSON_HEADERS)
      .send({ name: '', colour: 'red' })
      .expect(400);
    expect(res.headers['content-type']).toMatch(/^application\\/problem\\+json/);
    expect(res.body.violations).toEqual([
      { property: 'colour', messages: ['property colour should not exist'] },
      { property: 'name', messages: ['Give the item a name of 1 to 100 characters.'] },
    ]);
  });

  it('shows what a request did in its profiler panel, toolbar block, search and the Events panel', async () => {
    const res = await request(server()).post('/api/${n.kebab}').set(JSON_HEADERS).send({ name: 'Wool hat' }).expect(201);
    const token = res.headers['x-debug-token'];
    const profile = await storedProfile(app, token);
    expect(profile.data['${n.kebab}']).toEqual({ count: 0, added: [{ id: res.body.id, name: 'Wool hat' }] });

    const panel = parse((await request(server()).get(\`/_profiler/\${token}?panel=${n.kebab}\`).set('Host', HOST).expect(200)).text);
    expect(panel.querySelector('nav.menu a[data-panel="${n.kebab}"] .badge')!.text).toBe('+1');
    expect(panel.querySelectorAll('table.${n.kebab}-added td').map((td) => td.text)).toEqual([String(res.body.id), 'Wool hat']);

    const toolbar = await request(server()).get('/_profiler/toolbar').set('Host', HOST).set('X-Debug-Toolbar-Of', token).expect(200);
    expect(text(toolbar.text, '.sk-block-${n.kebab} .sk-number')).toEqual(['0']);
    expect(text(toolbar.text, '.sk-block-${n.kebab} .sk-count')).toEqual(['+1']);

    // The search page's Text box finds the request by what it added (the collector's searchText()).
    const found = parse((await request(server()).get('/_profiler/search?q=wool+hat&limit=10').set('Host', HOST).expect(200)).text);
    expect(found.querySelectorAll('table.results td.token-cell a').map((a) => a.text)).toContain(token);

    const called = profileData(profile).events.called as Array<{ event: string; listener: string }>;
    expect(called).toContainEqual(
      expect.objectContaining({ event: 'kernel.controller', listener: '${n.pascal}CountListener::onKernelController' }),
    );
    const events = await request(server()).get(\`/_profiler/\${token}?panel=events\`).set('Host', HOST).expect(200);
    expect(text(events.text, 'table.events.called td.mono').join(' ')).toContain('${n.pascal}CountListener');
  });
});
`;
