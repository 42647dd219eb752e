import type { Request, Response } from 'express';
import { AppConfig } from '../../config/app-config.js';
import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';
import { UnauthorizedHttpException } from '../../lifecycle/exceptions/unauthorized-http.exception.js';
import { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { KernelContext, kernelContextStorage } from '../../lifecycle/kernel-context.js';
import { ExceptionEvent } from '../../lifecycle/kernel.events.js';
import { SESSION } from '../../session/session-context.js';
import { Session } from '../../session/session.js';
import { SECURITY_PROFILE } from '../security-profile.js';
import { securityBus } from '../testing/security-bus.js';
import { AuthenticationRequiredException } from './authentication-required.exception.js';
import { TARGET_PATH } from './entry-point.js';
import { LoginEntryPoint } from './login-entry-point.js';
import { SecurityExceptionListener } from './security-exception.listener.js';

describe('SecurityExceptionListener', () => {
  const listener = new SecurityExceptionListener(
    new LoginEntryPoint(AppConfig.fromEnv({ APP_ENV: 'test', SESSION_COOKIE_NAME: 'SID' })),
    securityBus(),
  );
  const outcome = (context: KernelContext) => context.get(SECURITY_PROFILE)?.firewall.outcome;

  function exception(
    throwable: unknown,
    url: string,
    headers: Record<string, string> = {},
  ): { event: ExceptionEvent; context: KernelContext; session: Session } {
    const context = new KernelContext({} as Response, 'en');
    context.request = new KernelRequest(
      { method: 'GET', url, headers, socket: {} } as unknown as Request,
      context,
      'en',
      false,
    );
    const session = new Session(null);
    context.set(SESSION, session);
    const event = new ExceptionEvent(context.request, throwable);
    kernelContextStorage.run(context, () => listener.onKernelException(event));
    return { event, context, session };
  }

  it('sends a person who needed a user to the login page, and back afterwards', () => {
    const { event, context, session } = exception(new AuthenticationRequiredException(), '/account/orders/SK-ABCD1234');
    expect(event.response).toMatchObject({ status: 302, headers: { Location: '/login' } });
    expect(event.allowCustomResponseCode).toBe(true);
    expect(session.peek()).toEqual({ [TARGET_PATH]: '/account/orders/SK-ABCD1234' });
    expect(outcome(context)).toBe('redirected-to-login');
  });

  it('turns it into a 401 for a script, the original as its cause', () => {
    const required = new AuthenticationRequiredException();
    const { event, context, session } = exception(required, '/api/orders');
    expect(event.hasResponse()).toBe(false);
    expect(event.throwable).toBeInstanceOf(UnauthorizedHttpException);
    expect(event.throwable).toMatchObject({
      statusCode: 401,
      cause: required,
      headers: { 'WWW-Authenticate': 'Cookie realm="Shopkernel", form-action="/login", cookie-name="SID"' },
    });
    expect(session.peek()).toEqual({});
    expect(outcome(context)).toBe('unauthorized');
  });

  it('leaves every other exception to the error handling', () => {
    const notFound = new NotFoundHttpException('No route');
    const { event, context } = exception(notFound, '/account');
    expect(event.throwable).toBe(notFound);
    expect(event.hasResponse()).toBe(false);
    expect(context.get(SESSION)!.changed).toBe(false);
    expect(outcome(context)).toBeUndefined();
  });
});
