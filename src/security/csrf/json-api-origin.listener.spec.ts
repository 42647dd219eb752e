import type { Request, Response } from 'express';
import { AppConfig } from '../../config/app-config.js';
import { AccessDeniedHttpException } from '../../lifecycle/exceptions/access-denied-http.exception.js';
import { UnsupportedMediaTypeHttpException } from '../../lifecycle/exceptions/unsupported-media-type-http.exception.js';
import { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { KernelContext } from '../../lifecycle/kernel-context.js';
import { ControllerEvent } from '../../lifecycle/kernel.events.js';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import type { Route } from '../../lifecycle/routing/route.js';
import { MATCHED_ROUTE } from '../../lifecycle/routing/route-match.js';
import { JsonApiOriginListener } from './json-api-origin.listener.js';

describe('JsonApiOriginListener', () => {
  const config = AppConfig.fromEnv({ APP_ENV: 'test', CORS_ALLOW_ORIGINS: 'https://partner.example' });
  const listener = new JsonApiOriginListener(config, new KernelLogger(config));

  /** A request to the route of that path, as sent to http://shop.example; what the listener threw, if anything. */
  function call(
    method: string,
    routePath: string | null,
    headers: Record<string, string> = {},
  ): { thrown: unknown; context: KernelContext } {
    const context = new KernelContext({} as Response, 'en');
    const raw = {
      method,
      url: '/whatever',
      headers: { host: 'shop.example', ...headers },
      socket: {},
    } as unknown as Request;
    context.request = new KernelRequest(raw, context, 'en', false);
    if (routePath !== null)
      context.set(MATCHED_ROUTE, { route: { path: routePath, name: 'api_checkout' } as Route, params: {} });
    try {
      listener.onKernelController(
        new ControllerEvent(context.request, { name: 'X::y', className: 'X', methodName: 'y' }),
      );
      return { thrown: undefined, context };
    } catch (error) {
      return { thrown: error, context };
    }
  }

  const JSON_BODY = { 'content-type': 'application/json', 'content-length': '2' };

  it('lets a same-site JSON request through', () => {
    expect(
      call('POST', '/api/checkout', { ...JSON_BODY, 'sec-fetch-site': 'same-origin', origin: 'http://shop.example' })
        .thrown,
    ).toBeUndefined();
    expect(call('DELETE', '/api/cart/lines/:id', { origin: 'https://partner.example' }).thrown).toBeUndefined();
    // Not a browser: nothing can forge it.
    expect(call('POST', '/api/checkout', JSON_BODY).thrown).toBeUndefined();
  });

  it('refuses a cross-site request with a 403, and logs it', () => {
    const { thrown, context } = call('POST', '/api/checkout', {
      ...JSON_BODY,
      'sec-fetch-site': 'cross-site',
      origin: 'https://evil.example',
    });
    expect(thrown).toBeInstanceOf(AccessDeniedHttpException);
    expect(thrown).toMatchObject({
      statusCode: 403,
      message: 'Cross-site request refused (Sec-Fetch-Site: cross-site, Origin: https://evil.example).',
    });
    expect(context.logs.map((e) => [e.levelName, e.channel, e.message])).toEqual([
      [
        'WARNING',
        'security',
        'A cross-site request to api_checkout was refused: Cross-site request refused (Sec-Fetch-Site: cross-site, Origin: https://evil.example).',
      ],
    ]);
  });

  it('refuses a body that is not JSON with a 415 (what a cross-site form would send)', () => {
    const { thrown } = call('POST', '/api/login', {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': '9',
    });
    expect(thrown).toBeInstanceOf(UnsupportedMediaTypeHttpException);
    expect(thrown).toMatchObject({
      statusCode: 415,
      message:
        'The API takes JSON bodies only (Content-Type: application/json), not "application/x-www-form-urlencoded".',
    });
  });

  it('checks neither safe methods, nor routes outside the API, nor unmatched requests', () => {
    const foreign = { 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain', 'content-length': '3' };
    for (const method of ['GET', 'HEAD', 'OPTIONS'])
      expect(call(method, '/api/orders', foreign).thrown).toBeUndefined();
    expect(call('POST', '/checkout', foreign).thrown).toBeUndefined();
    expect(call('POST', '/apiary', foreign).thrown).toBeUndefined();
    expect(call('POST', null, foreign).thrown).toBeUndefined();
    // The route decides, whatever its case.
    expect(call('POST', '/API/checkout', foreign).thrown).toBeInstanceOf(AccessDeniedHttpException);
  });
});
