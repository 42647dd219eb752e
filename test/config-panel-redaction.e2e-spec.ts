import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { MASK } from '../src/lifecycle/redaction/redactor.js';
import { CREDENTIALS } from './fixtures/credential-variables.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';

/**
 * The Configuration panel shows the process's environment: a deployment's credentials (the collector's
 * OTEL_EXPORTER_OTLP_HEADERS, DSNs, URLs with a password, tokens under innocent names) are masked there, by name
 * or by value, and never reach the stored profile.
 */
describe('The Configuration panel of a process holding credentials (e2e)', () => {
  let app: NestExpressApplication;
  let token: string;

  beforeAll(async () => {
    Object.assign(process.env, CREDENTIALS);
    app = await createTestApp();
    token = (await request(app.getHttpServer()).get('/').set('Host', 'shop.test').expect(200)).headers['x-debug-token'];
  });

  afterAll(async () => {
    await app?.close();
    for (const name of Object.keys(CREDENTIALS)) delete process.env[name];
  });

  it('lists every planted variable with none of their values', async () => {
    const page = await request(app.getHttpServer())
      .get(`/_profiler/${token}?panel=config`)
      .set('Host', 'shop.test')
      .expect(200);
    for (const name of Object.keys(CREDENTIALS)) expect(page.text).toContain(name);
    expect(page.text.match(/Zc\d\d\w*/g) ?? []).toEqual([]);
    expect(page.text).toContain(`postgres://shop:${MASK}@db:5432/shop`);
  });

  it('stores none of them in the profile', async () => {
    const profile = await storedProfile(app, token);
    expect(JSON.stringify(profile).match(/Zc\d\d\w*/g) ?? []).toEqual([]);
  });
});
