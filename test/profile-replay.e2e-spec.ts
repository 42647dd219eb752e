import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../src/database/shop-db.js';
import { ReplayForms } from '../src/profiler/replay/replay-forms.js';
import { startTestServer, type TestServer } from './support/browser.js';
import { createTestApp } from './support/create-test-app.js';
import { profileData } from './support/profile-data.js';
import { storedProfile } from './support/profiler.js';
import { rawRequest } from './support/raw-http.js';

const HOST = 'shop.test';
const SECRET = 'SECRET-REPLAY-4417';
const text = (element: HTMLElement | null) => (element?.text ?? '').trim();

describe('Copy as cURL and Replay (e2e)', () => {
  let app: NestExpressApplication;
  let recorded: string;
  let posted: string;
  const server = () => app.getHttpServer();
  const page = async (token: string) =>
    parse((await request(server()).get(`/_profiler/${token}`).set('Host', HOST).expect(200)).text);
  const replay = (token: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    request(server()).post(`/_profiler/${token}/replay`).set('Host', HOST).set(headers).type('form').send(fields);

  beforeAll(async () => {
    app = await createTestApp();
    await seedCatalogue(app.get(ShopDb));
    recorded = (
      await request(server())
        .get('/products?q=tea')
        .set('Host', HOST)
        .set('Accept', 'text/html')
        .set('Authorization', `Bearer ${SECRET}`)
        .expect(200)
    ).headers['x-debug-token'];
    posted = (
      await request(server())
        .post('/api/login')
        .set('Host', HOST)
        .send({ email: 'nobody@example.com', password: SECRET })
        .expect(401)
    ).headers['x-debug-token'];
    await storedProfile(app, recorded);
    await storedProfile(app, posted);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('offers the request as a cURL command, its secret header masked and named as such', async () => {
    const curl = text((await page(recorded)).querySelector('details.curl pre#curl-command'));
    expect(curl.split('\n')).toEqual([
      '# Masked by the profiler (put the real values back): authorization',
      "curl 'http://shop.test/products?q=tea' \\",
      "  -H 'accept: text/html' \\",
      "  -H 'authorization: ******' \\",
      '  --compressed',
    ]);
    expect((await page(recorded)).querySelector('button[data-copy="#curl-command"]')).not.toBeNull();
  });

  it('replays a GET to the application and opens the comparison of the two profiles', async () => {
    const form = (await page(recorded)).querySelector('form.replay-form')!;
    expect([form.getAttribute('method'), form.getAttribute('action')]).toEqual([
      'post',
      `/_profiler/${recorded}/replay`,
    ]);
    const token = form.querySelector('input[name="_token"]')!.getAttribute('value')!;
    const res = await replay(recorded, { _token: token }).expect(303);
    const [, replayed] = /^\/_profiler\/[0-9a-f]{6}\/compare\/([0-9a-f]{6})$/.exec(res.headers.location)!;
    expect(res.headers.location).toBe(`/_profiler/${recorded}/compare/${replayed}`);
    const again = await storedProfile(app, replayed);
    expect([again.method, again.url, again.statusCode]).toEqual(['GET', 'http://shop.test/products?q=tea', 200]);
    const headers = profileData(again).request.headers;
    expect(headers['x-replayed-from']).toBe(recorded);
    expect(headers.authorization).toBeUndefined();
    const comparison = parse((await request(server()).get(res.headers.location).set('Host', HOST).expect(200)).text);
    expect(comparison.querySelectorAll('.compare-side .side-label').map(text)).toEqual([
      `A · ${recorded}`,
      `B · ${replayed}`,
    ]);
  });

  it('offers only the cURL command for a request that may change something', async () => {
    const profile = await page(posted);
    expect(profile.querySelector('form.replay-form')).toBeNull();
    expect(text(profile.querySelector('.replay .not-replayed'))).toBe(
      'A POST is not replayed, as it may change something: copy it as cURL.',
    );
    const curl = text(profile.querySelector('pre#curl-command'));
    expect(curl).toContain(`--data-raw '{"email":"nobody@example.com","password":"******"}'`);
    expect(curl).not.toContain(SECRET);
    const res = await replay(posted, { _token: app.get(ReplayForms).token(posted) }).expect(422);
    expect(text(parse(res.text).querySelector('p.empty'))).toBe(
      'Only GET and HEAD requests are replayed: a POST may change something. Copy it as cURL instead.',
    );
  });

  it('refuses a replay without its token, hides it from another site, and refuses an unknown profile', async () => {
    const forms: Array<Record<string, string>> = [
      {},
      { _token: 'forged' },
      { _token: app.get(ReplayForms).token(posted) },
    ];
    for (const fields of forms) {
      const res = await replay(recorded, fields).set('Accept', 'application/json').expect(403);
      expect(res.body.detail).toBe('Invalid CSRF token: open the profile again and use its Replay button.');
    }
    const foreign = await replay(
      recorded,
      { _token: app.get(ReplayForms).token(recorded) },
      { Origin: 'https://evil.example' },
    )
      .set('Accept', 'application/json')
      .expect(404);
    // For a page of another origin the profiler does not exist: the plain 404 of an unknown path.
    expect(foreign.body).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'Not Found' });
    const unknown = await replay('abcdef', { _token: app.get(ReplayForms).token('abcdef') }).expect(404);
    expect(text(parse(unknown.text).querySelector('p.empty'))).toBe('No profile "abcdef" in the store.');
  });
});

describe('Replay of a request whose Host is not one (e2e)', () => {
  let server: TestServer;
  let port: number;
  const replay = (token: string) =>
    request(server.app.getHttpServer())
      .post(`/_profiler/${token}/replay`)
      .set('Host', HOST)
      .type('form')
      .send({ _token: server.app.get(ReplayForms).token(token) });

  /** A GET sent with `host` as its Host field, as bytes (no client to refuse it): the token of its profile. */
  async function plant(host: string, path = '/products'): Promise<string> {
    const response = await rawRequest(
      port,
      Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: text/html\r\n\r\n`, 'latin1'),
    );
    const token = response.headers['x-debug-token'];
    expect(token).toMatch(/^[0-9a-f]{6}$/);
    await storedProfile(server.app, token);
    return token;
  }

  beforeAll(async () => {
    // Every Host sees its token, so that the planted profiles can be named.
    server = await startTestServer({ env: { PROFILER_ALLOWED_HOSTS: '*' } });
    port = (server.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    await server?.app.close();
  });

  it.each([
    ['a b', '"a b"'],
    ['[::1', '"[::1"'],
    ['a:99999', '"a:99999"'],
    ['@evil', '"@evil"'],
    ['shop.test@evil.example', '"shop.test@evil.example"'],
    ['shop.test:abc', '"shop.test:abc"'],
    ['a/b', '"a/b"'],
    ['a\tb', '"a\\tb"'],
    ['ex\xffample', '"exÿample"'],
    ['<b>bold</b>', '"<b>bold</b>"'],
  ])('answers 422 with the reason for a profile whose Host is %j', async (host, shown) => {
    const token = await plant(host);
    const res = await replay(token);
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(text(parse(res.text).querySelector('h1'))).toBe('Not replayed');
    expect(text(parse(res.text).querySelector('p.empty'))).toBe(
      `The recorded Host ${shown} is not a valid host name and port, so the request cannot be sent again.`,
    );
    // Escaped: the page shows the Host as text.
    expect(res.text).not.toContain('<b>bold</b>');
    // The profile page says so instead of offering the Replay button.
    const profile = await request(server.app.getHttpServer()).get(`/_profiler/${token}`).set('Host', HOST).expect(200);
    const page = parse(profile.text);
    expect(page.querySelector('form.replay-form')).toBeNull();
    expect(text(page.querySelector('.replay .not-replayed'))).toBe(
      `The recorded Host ${shown} is not a valid host name and port, so the request cannot be sent again.`,
    );
  });

  it('replays a request that had an empty Host to the address it was asked on', async () => {
    const token = await plant('');
    const res = await replay(token);
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(new RegExp(`^/_profiler/${token}/compare/[0-9a-f]{6}$`));
  });

  it('replays a valid Host with a port and an IP literal', async () => {
    for (const host of ['shop.test:8080', '[::1]:3000', '127.0.0.1']) {
      const res = await replay(await plant(host, '/products?q=caf%C3%A9%20tea'));
      expect({ host, status: res.status }).toEqual({ host, status: 303 });
    }
  });
});
