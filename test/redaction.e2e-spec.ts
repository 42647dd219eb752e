import Database from 'better-sqlite3';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'node-html-parser';
import request from 'supertest';
import { ProfileCodec } from '../src/profiler/storage/profile-codec.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';

const SECRETS = {
  password: 'hunter2-very-secret',
  bearer: 'tok_live_bearer_9f8e',
  apiKey: 'key_live_4d3c2b',
  cookie: 'cookie_value_7a6b',
  queryToken: 'qtok_1a2b3c',
  loyalty: 'LN-424242',
  urlPassword: 'pw_in_url_55',
  envSecret: 'sk_live_env_0099',
};

describe('Secrets never reach the profile store raw (e2e)', () => {
  let app: NestExpressApplication;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shopkernel-redaction-'));
    process.env.SHOP_PAYMENT_SECRET = SECRETS.envSecret;
    app = await createTestApp({ env: { PROFILER_DSN: `sqlite:${join(dir, 'profiles.sqlite')}`, PROFILER_REDACT_FIELDS: '^loyalty' } });
  });

  afterAll(async () => {
    delete process.env.SHOP_PAYMENT_SECRET;
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every row of every table of the store, blobs decoded, as one string. */
  async function wholeStore(): Promise<string> {
    const db = new Database(join(dir, 'profiles.sqlite'), { readonly: true });
    try {
      const codec = new ProfileCodec();
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>;
      const out: string[] = [];
      for (const { name } of tables) {
        for (const row of db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>) {
          for (const value of Object.values(row)) {
            out.push(Buffer.isBuffer(value) && name === 'profile_data' ? JSON.stringify(await codec.decode(value)) : String(value));
          }
        }
      }
      return out.join('\n');
    } finally {
      db.close();
    }
  }

  it('masks credentials, cookies, secret body and query fields, extra patterns and URL passwords in the stored rows', async () => {
    const res = await request(app.getHttpServer())
      .post(`/api/login?token=${SECRETS.queryToken}&loyalty_number=${SECRETS.loyalty}&page=1`)
      .set('Authorization', `Bearer ${SECRETS.bearer}`)
      .set('X-Api-Key', SECRETS.apiKey)
      .set('Cookie', `SHOPSESSID=${SECRETS.cookie}; theme=dark`)
      .set('Referer', `https://user:${SECRETS.urlPassword}@partner.example/back`)
      .send({ email: 'nobody@example.com', password: SECRETS.password })
      .expect(401);
    const token = res.headers['x-debug-token'];
    const profile = await storedProfile(app, token);
    expect(profile.url).toBe('http://127.0.0.1/api/login?token=******&loyalty_number=******&page=1'.replace('127.0.0.1', new URL(profile.url).host));
    await request(app.getHttpServer()).get(`/nowhere?password=${SECRETS.password}`).expect(404);
    await new Promise((r) => setTimeout(r, 300));

    const stored = await wholeStore();
    for (const [name, secret] of Object.entries(SECRETS)) {
      const at = stored.indexOf(secret);
      expect({ name, found: at === -1 ? null : stored.slice(Math.max(0, at - 200), at + 50) }).toEqual({ name, found: null });
    }
    expect(stored).toContain('******');
    expect(stored).toContain('page=1');
    expect(stored).toContain('theme');

    const panel = await request(app.getHttpServer()).get(`/_profiler/${token}?panel=request`).expect(200);
    for (const secret of Object.values(SECRETS)) expect(panel.text).not.toContain(secret);
    const config = await request(app.getHttpServer()).get(`/_profiler/${token}?panel=config`).expect(200);
    const env = parse(config.text).querySelectorAll('table.env tr').map((tr) => [tr.querySelector('th')?.text, tr.querySelector('td')?.text]);
    expect(env).toContainEqual(['SHOP_PAYMENT_SECRET', '******']);
    expect(config.text).not.toContain(SECRETS.envSecret);
  });

  it('masks secret query values in the logs of the debug error page', async () => {
    const res = await request(app.getHttpServer()).get(`/missing?access_token=${SECRETS.queryToken}&q=tea`).expect(404);
    const logs = parse(res.text).querySelector('#logs')?.toString() ?? '';
    expect(logs).toContain('access_token&#x3D;******&amp;q&#x3D;tea');
    expect(logs).not.toContain(SECRETS.queryToken);
  });
});
