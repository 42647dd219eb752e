import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse } from 'node-html-parser';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../src/database/shop-db.js';
import type { OutgoingCalls } from '../src/profiler/http-client/outgoing-call.js';
import { createTestApp } from './support/create-test-app.js';
import { formCsrfToken, loggedInCustomer, type Agent } from './support/customers.js';
import { profileData } from './support/profile-data.js';
import { describeOnEachDatabase, type TestDatabase } from './support/shop-databases.js';
import { startStubService, type StubService } from './support/stub-service.js';
import { storedProfile } from './support/profiler.js';

const HOST = 'shop.test';
const ADDRESS = { name: 'Ada Lovelace', street: '12 Rue de Rivoli', postcode: '75001', city: 'Paris', country: 'FR' };

/** A customer with a product in the cart, and the checkout's CSRF token (of `on`). */
async function shopper(on: NestExpressApplication): Promise<{ agent: Agent; csrf: string }> {
  const agent = await loggedInCustomer(on);
  const cart = await agent.get('/api/cart').set('Host', HOST).expect(200);
  await agent
    .post('/api/cart/lines')
    .set('Host', HOST)
    .set('X-CSRF-Token', cart.body.csrfToken)
    .send({ productId: 1, quantity: 1 })
    .expect(201);
  const csrf = (await agent.get('/api/csrf-token/checkout').set('Host', HOST).expect(200)).body.token;
  return { agent, csrf };
}

/**
 * The checkout asks the carrier's address service (ADDRESS_CHECK_URL) whether it delivers there: the shop's one
 * outgoing call, off by default. A stub service stands for the carrier: it refuses postcodes starting with 99.
 */
describe('The checkout asks the address service (e2e)', () => {
  let app: NestExpressApplication;
  let carrier: StubService;
  let carrierBase: string;
  let carrierUp = true;

  beforeAll(async () => {
    carrier = await startStubService((req, res) => {
      if (!carrierUp) return void res.writeHead(503).end();
      const postcode = new URL(req.url!, 'http://carrier').searchParams.get('postcode') ?? '';
      const body = JSON.stringify(
        postcode.startsWith('99')
          ? { deliverable: false, message: `No delivery to ${postcode}.` }
          : { deliverable: true },
      );
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(body.length) }).end(body);
    });
    carrierBase = `${carrier.base}/check`;
    app = await createTestApp({ env: { ADDRESS_CHECK_URL: carrierBase } });
    await seedCatalogue(app.get(ShopDb));
  });

  afterAll(async () => {
    await app?.close();
    await carrier?.close();
  });

  const checkout = (agent: Agent, csrf: string, address: object) =>
    agent
      .post('/api/checkout')
      .set('Host', HOST)
      .set('X-CSRF-Token', csrf)
      .set('Accept', 'application/json')
      .send(address);

  it('places the order for an address the service delivers to, the call in the HTTP Client panel', async () => {
    const { agent, csrf } = await shopper(app);
    const res = await checkout(agent, csrf, ADDRESS).expect(201);
    const profile = await storedProfile(app, res.headers['x-debug-token']);
    const { calls } = profile.data.http_client as OutgoingCalls;
    expect(calls.map((c) => [c.method, c.url, c.status])).toEqual([
      ['GET', `${carrierBase}?country=FR&postcode=75001&city=Paris`, 200],
    ]);
    expect(calls[0].caller!.file).toMatch(/\/src\/shop\/orders\/address-check\.ts$/);
  });

  it('refuses an address the service does not deliver to: 400 for scripts, the form again for people', async () => {
    const { agent, csrf } = await shopper(app);
    const res = await checkout(agent, csrf, { ...ADDRESS, postcode: '99999' }).expect(400);
    expect(res.body.violations).toEqual([{ property: 'postcode', messages: ['No delivery to 99999.'] }]);
    const form = await agent.get('/checkout').set('Host', HOST).expect(200);
    const page = await agent
      .post('/checkout')
      .set('Host', HOST)
      .type('form')
      .send({ _csrf_token: formCsrfToken(form.text, '/checkout'), ...ADDRESS, postcode: '99001' })
      .expect(400);
    expect(parse(page.text).querySelector('ul.violations li[data-field="postcode"]')!.text).toBe(
      'No delivery to 99001.',
    );
    expect(
      await app.get(ShopDb).selectFrom('orders').select('id').where('shipping_postcode', 'like', '99%').execute(),
    ).toEqual([]);
  });

  it('takes the address unchecked when the service is down, saying so in the log', async () => {
    const { agent, csrf } = await shopper(app);
    carrierUp = false;
    try {
      const res = await checkout(agent, csrf, ADDRESS).expect(201);
      const profile = await storedProfile(app, res.headers['x-debug-token']);
      const logs = (
        profileData(profile).logs as { entries: Array<{ level: number; message: string; context: object }> }
      ).entries;
      expect(logs.find((e) => e.level === 300)).toMatchObject({
        message: 'Address check unavailable ({reason}): the address was taken unchecked.',
        context: { reason: 'it answered 503' },
      });
      expect((profile.data.http_client as OutgoingCalls).calls[0].status).toBe(503);
    } finally {
      carrierUp = true;
    }
  });

  it('calls nothing when no service is configured (the default)', async () => {
    const plain = await createTestApp();
    try {
      await seedCatalogue(plain.get(ShopDb));
      const { agent, csrf } = await shopper(plain);
      const res = await checkout(agent, csrf, { ...ADDRESS, postcode: '99999' }).expect(201);
      expect((await storedProfile(plain, res.headers['x-debug-token'])).data.http_client).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});

/**
 * An address service answering 200 with something it should not (JSON of another shape, HTML, broken JSON) is a
 * service that is down: the order is placed unchecked with the fallback's log line, never a 500.
 */
describeOnEachDatabase('An address service answering nonsense', 'address_check', (database) => {
  let app: NestExpressApplication;
  let db: TestDatabase;
  let carrier: StubService;
  /** What the stub answers next: its body and Content-Type. */
  let answer: { body: string; type: string } = { body: '{"deliverable":true}', type: 'application/json' };

  beforeAll(async () => {
    db = await database();
    carrier = await startStubService((_req, res) => {
      res.writeHead(200, { 'Content-Type': answer.type, 'Content-Length': String(Buffer.byteLength(answer.body)) });
      res.end(answer.body);
    });
    const env = { ADDRESS_CHECK_URL: `${carrier.base}/check`, ...(db.url ? { DATABASE_URL: db.url } : {}) };
    app = await createTestApp({ env });
    await seedCatalogue(app.get(ShopDb));
  });

  afterAll(async () => {
    await app?.close();
    await carrier?.close();
    await db?.teardown?.();
  });

  it.each([
    ['null', 'application/json', 'it answered null'],
    ['[]', 'application/json', 'it answered an array'],
    ['"yes"', 'application/json', 'it answered a string'],
    ['{}', 'application/json', 'it answered an object without "deliverable": true or false'],
    ['{"deliverable":"maybe"}', 'application/json', 'it answered an object without "deliverable": true or false'],
    ['{"deliverable":1}', 'application/json', 'it answered an object without "deliverable": true or false'],
    ['<html><body>Moved</body></html>', 'text/html', 'it answered something that is not JSON'],
    ['{"deliverable": tru', 'application/json', 'it answered something that is not JSON'],
    ['', 'application/json', 'it answered something that is not JSON'],
  ])('%s (%s): the order is placed, the address unchecked', async (body, type, reason) => {
    answer = { body, type };
    const { agent, csrf } = await shopper(app);
    const res = await agent
      .post('/api/checkout')
      .set('Host', HOST)
      .set('X-CSRF-Token', csrf)
      .set('Accept', 'application/json')
      .send({ ...ADDRESS, postcode: '75002' })
      .expect(201);
    const profile = await storedProfile(app, res.headers['x-debug-token']);
    const logs = (profileData(profile).logs as { entries: Array<{ level: number; message: string; context: object }> })
      .entries;
    expect(logs.filter((e) => e.level === 300)).toEqual([
      expect.objectContaining({
        message: 'Address check unavailable ({reason}): the address was taken unchecked.',
        context: { reason },
      }),
    ]);
    const orders = await app
      .get(ShopDb)
      .selectFrom('orders')
      .select('shipping_postcode')
      .where('reference', '=', res.body.order.reference)
      .execute();
    expect(orders).toEqual([{ shipping_postcode: '75002' }]);
  });
});
