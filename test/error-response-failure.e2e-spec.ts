import { Injectable } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { KernelResponse } from '../src/lifecycle/http/kernel-response.js';
import { KernelListener } from '../src/lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ExceptionEvent } from '../src/lifecycle/kernel.events.js';
import { KernelProbe } from './fixtures/kernel-probe.listener.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';

/** A kernel.exception listener whose response Node refuses to send (a header value with a line break). */
@Injectable()
class BrokenErrorResponseListener {
  @KernelListener(KernelEvents.EXCEPTION, { priority: 200 })
  onKernelException(event: ExceptionEvent): void {
    if (event.request.header('x-break-error-response') === undefined) return;
    event.setResponse(new KernelResponse('never sent', 500, { 'X-Broken': 'line\nbreak' }));
  }
}

describe('an error response that cannot be sent (e2e)', () => {
  let app: NestExpressApplication;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    app = await createTestApp({ providers: [BrokenErrorResponseListener, KernelProbe] });
  });
  afterAll(async () => {
    await app.close();
    process.off('unhandledRejection', onUnhandled);
  });

  it('answers a bare 500, logs why, keeps the profile, and leaves no rejection to stop the process', async () => {
    const res = await request(app.getHttpServer())
      .get('/no-such-page')
      .set('Host', 'shop.test')
      .set('X-Break-Error-Response', '1')
      .expect(500);
    expect(res.text).toBe('500 Internal Server Error\n');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['x-broken']).toBeUndefined();
    const profile = await storedProfile(app, res.headers['x-debug-token']);
    expect(profile.statusCode).toBe(500);
    const critical = app
      .get(KernelProbe)
      .last.logs.filter((e) => e.levelName === 'CRITICAL')
      .map((e) => e.message);
    expect(critical).toEqual([
      expect.stringMatching(
        /^The error response could not be sent: .*Invalid character in header content \["X-Broken"\]$/,
      ),
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
    // The application goes on serving.
    await request(app.getHttpServer()).get('/no-such-page').set('Host', 'shop.test').expect(404);
  });
});
