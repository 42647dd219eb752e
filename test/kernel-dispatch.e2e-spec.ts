import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import {
  DispatchFixturesController,
  DispatchFixturesModule,
  MiddlewareFixturesModule,
} from './fixtures/dispatch-fixtures.module.js';
import type { KernelHttpAdapter } from '../src/lifecycle/kernel-http.adapter.js';
import { createTestApp } from './support/create-test-app.js';

describe('Handing a matched route to its Nest handler (e2e)', () => {
  describe('with nothing but routes after the kernel in the Express stack', () => {
    let app: NestExpressApplication;
    beforeAll(async () => {
      app = await createTestApp({ imports: [DispatchFixturesModule] });
    });
    afterAll(() => app.close());

    it('calls the handler directly, with the decoded route parameters Express would have set', async () => {
      const res = await request(app.getHttpServer()).get('/dispatch/items/caf%C3%A9%20au%20lait').expect(200);
      expect(res.body).toEqual({ id: 'café au lait', params: { id: 'café au lait' }, routedByExpress: false });
    });

    it('lets Express route the request when the handler passes it on (a second handler on the same path answers)', async () => {
      const before = DispatchFixturesController.passedOn;
      const res = await request(app.getHttpServer()).get('/dispatch/shared').expect(200);
      expect(res.body).toEqual({ answeredBy: 'second' });
      // Called directly first, then once more by Express on its way to the second handler.
      expect(DispatchFixturesController.passedOn - before).toBe(2);
    });

    it('answers a HEAD on the GET route through the same handler', async () => {
      const res = await request(app.getHttpServer()).head('/dispatch/items/7').expect(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.text).toBeUndefined();
    });
  });

  describe('with a Nest middleware in front of the routes', () => {
    let app: NestExpressApplication;
    beforeAll(async () => {
      app = await createTestApp({ imports: [MiddlewareFixturesModule] });
    });
    afterAll(() => app.close());

    it('lets Express route every request, so the middleware runs', async () => {
      const res = await request(app.getHttpServer()).get('/dispatch/items/42').expect(200);
      expect(res.headers['x-stamped']).toBe('yes');
      expect(res.body).toEqual({ id: '42', params: { id: '42' }, routedByExpress: true });
    });
  });

  describe("with a Nest request hook on the adapter (it runs in Express's first layer)", () => {
    let app: NestExpressApplication;
    const hooked: string[] = [];
    beforeAll(async () => {
      app = await createTestApp({ imports: [DispatchFixturesModule] });
      (app.getHttpAdapter() as KernelHttpAdapter).setOnRequestHook(
        (req: { url: string }, res: { setHeader(name: string, value: string): void }, done: () => void) => {
          hooked.push(req.url);
          res.setHeader('X-Hooked', 'yes');
          done();
        },
      );
    });
    afterAll(() => app.close());

    it('starts every request in Express, so the hook runs, then in the kernel, which still calls the handler directly', async () => {
      const res = await request(app.getHttpServer()).get('/dispatch/items/9').expect(200);
      expect(res.headers['x-hooked']).toBe('yes');
      expect(res.headers['x-debug-token']).toMatch(/^[0-9a-f]{6}$/);
      expect(res.body).toEqual({ id: '9', params: { id: '9' }, routedByExpress: false });
      expect(hooked).toEqual(['/dispatch/items/9']);
    });

    it('runs the hook for a path no route matches, which the kernel answers with its 404 (a new response: no header of the hook)', async () => {
      const res = await request(app.getHttpServer())
        .get('/dispatch/nowhere')
        .set('Host', 'shop.test')
        .set('Accept', 'application/json')
        .expect(404);
      expect(hooked).toContain('/dispatch/nowhere');
      expect(res.headers['x-hooked']).toBeUndefined();
      expect(res.body.detail).toBe('No route found for "GET http://shop.test/dispatch/nowhere"');
    });
  });
});
