import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { AsyncExceptionListenerModule, AsyncListenersModule, journal } from './fixtures/async-listeners.module.js';
import { KernelProbe } from './fixtures/kernel-probe.listener.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';
import { profileData } from './support/profile-data.js';

const HOST = 'shop.test';

describe('async kernel listeners (e2e)', () => {
  let app: NestExpressApplication;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    app = await createTestApp({ imports: [AsyncListenersModule], providers: [KernelProbe] });
  });
  afterAll(async () => {
    await app.close();
    process.off('unhandledRejection', onUnhandled);
  });
  beforeEach(() => {
    journal.length = 0;
    unhandled.length = 0;
  });

  const get = (path: string) =>
    request(app.getHttpServer()).get(path).set('Host', HOST).set('Accept', 'application/json');

  it('waits for a listener that returns a promise before the later listeners, the handler and the response', async () => {
    const res = await get('/async/page').expect(200);
    expect(res.body).toEqual({ handled: true });
    expect(res.headers['x-async-response']).toBe('waited');
    expect(journal).toEqual([
      'request listener done',
      'controller listener started',
      'controller listener done',
      'handler',
    ]);
    // The Events panel counts the await in the listener's time.
    const called = profileData(await storedProfile(app, res.headers['x-debug-token'])).events.called;
    const controller = called.find((c) => c.listener === 'AsyncListeners::onKernelController')!;
    expect(controller.duration).toBeGreaterThanOrEqual(15);
    expect(called.map((c) => c.listener)).toContain('AsyncListeners::onKernelRequest');
    expect(journal).toContain('terminate listener done');
  });

  it.each([
    ['request', 'The async request listener failed after its await'],
    ['controller', 'The async controller listener failed after its await'],
  ])(
    'answers a rejection in kernel.%s as a throw: kernel.exception makes the 500, the handler never runs, nothing is unhandled',
    async (where, message) => {
      const res = await get('/async/page').set('X-Fail-In', where).expect(500);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.exceptions.map((e: { class: string; message: string }) => [e.class, e.message])).toEqual([
        ['Error', message],
      ]);
      expect(journal).not.toContain('handler');
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    },
  );

  it('logs a rejection in kernel.terminate as CRITICAL, after the response, and leaves nothing unhandled', async () => {
    await get('/async/page').set('X-Fail-In', 'terminate').expect(200);
    const context = app.get(KernelProbe).last;
    const critical = () => context.logs.filter((e) => e.levelName === 'CRITICAL').map((e) => e.message);
    for (let i = 0; i < 100 && critical().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(critical()).toEqual([
      'Exception in kernel.terminate: Error: The async terminate listener failed after its await',
    ]);
    expect(unhandled).toEqual([]);
  });
});

describe('an async listener on an event that cannot wait (e2e)', () => {
  it('is refused when the application starts, with a message naming it', async () => {
    await expect(createTestApp({ imports: [AsyncExceptionListenerModule] })).rejects.toThrow(
      'The kernel listener AsyncExceptionListener::onKernelException is async, but kernel.exception cannot wait for a task: make it synchronous, or listen to an event that can wait (kernel.request, kernel.controller, kernel.controller_arguments, kernel.response, kernel.terminate).',
    );
  });
});
