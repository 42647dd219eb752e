import type { Request, Response } from 'express';
import { AccessDeniedHttpException } from '../../lifecycle/exceptions/access-denied-http.exception.js';
import { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { KernelContext } from '../../lifecycle/kernel-context.js';
import { ControllerEvent } from '../../lifecycle/kernel.events.js';
import { SESSION } from '../../session/session-context.js';
import { Session } from '../../session/session.js';
import { CsrfProtected } from './csrf-protected.decorator.js';
import { CsrfTokenManager } from './csrf-token-manager.js';
import { CsrfListener } from './csrf.listener.js';

class CartController {
  @CsrfProtected('cart')
  add(): void {}

  open(): void {}
}

describe('CsrfListener', () => {
  const tokens = new CsrfTokenManager();
  const listener = new CsrfListener(tokens);
  let session: Session;
  let cartToken: string;

  beforeEach(() => {
    session = new Session(null);
    cartToken = tokens.token(session, 'cart');
  });

  /** Calls the listener for a request to CartController::<handler>; returns the body as the handler would see it. */
  function call(
    method: string,
    options: { body?: unknown; headers?: Record<string, string>; handler?: 'add' | 'open' } = {},
  ): unknown {
    const context = new KernelContext({} as Response, 'en');
    const raw = {
      method,
      url: '/cart',
      headers: options.headers ?? {},
      body: options.body,
      socket: {},
    } as unknown as Request;
    context.request = new KernelRequest(raw, context, 'en', false);
    context.set(SESSION, session);
    const handler = options.handler ?? 'add';
    const event = new ControllerEvent(
      context.request,
      { name: `CartController::${handler}`, className: 'CartController', methodName: handler },
      {
        target: CartController,
        method: CartController.prototype[handler] as (...args: unknown[]) => unknown,
      },
    );
    listener.onKernelController(event);
    return raw.body;
  }

  it('lets the right token through in the form field, and takes the field out of the body', () => {
    expect(call('POST', { body: { _csrf_token: cartToken, productId: '3' } })).toEqual({ productId: '3' });
  });

  it('lets the right token through in the X-CSRF-Token header', () => {
    expect(call('DELETE', { headers: { 'x-csrf-token': cartToken } })).toBeUndefined();
    expect(call('PATCH', { body: ['a JSON array'], headers: { 'x-csrf-token': cartToken } })).toEqual(['a JSON array']);
  });

  type Options = { body?: unknown; headers?: Record<string, string> };
  it.each<[string, (t: { cart: string; login: string }) => Options]>([
    ['no token', () => ({})],
    ['an empty token', () => ({ body: { _csrf_token: '' } })],
    ["another purpose's token", (t) => ({ body: { _csrf_token: t.login } })],
    ['a forged token', () => ({ headers: { 'x-csrf-token': 'x'.repeat(43) } })],
    ['a token in an array', (t) => ({ body: { _csrf_token: [t.cart] } })],
    [
      'a wrong form field, whatever the header says',
      (t) => ({ body: { _csrf_token: 'x'.repeat(43) }, headers: { 'x-csrf-token': t.cart } }),
    ],
  ])('refuses %s with a 403', (_, options) => {
    const login = tokens.token(session, 'login');
    let thrown: unknown;
    try {
      call('POST', options({ cart: cartToken, login }));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AccessDeniedHttpException);
    expect(thrown).toMatchObject({ statusCode: 403, message: 'Invalid CSRF token.' });
  });

  it('refuses a token from before a logout', () => {
    session.invalidate();
    expect(() => call('POST', { body: { _csrf_token: cartToken } })).toThrow('Invalid CSRF token.');
  });

  it.each(['GET', 'HEAD', 'OPTIONS'])('does not check %s requests, which change nothing', (method) => {
    expect(call(method, { body: { _csrf_token: 'wrong', q: 'x' } })).toEqual({ _csrf_token: 'wrong', q: 'x' });
  });

  it('does not check handlers that are not protected', () => {
    expect(call('POST', { handler: 'open', body: { _csrf_token: 'wrong' } })).toEqual({ _csrf_token: 'wrong' });
  });
});
