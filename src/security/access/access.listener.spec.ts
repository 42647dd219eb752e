import type { Request, Response } from 'express';
import { AccessDeniedHttpException } from '../../lifecycle/exceptions/access-denied-http.exception.js';
import { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { KernelContext, kernelContextStorage } from '../../lifecycle/kernel-context.js';
import { ControllerArgumentsEvent } from '../../lifecycle/kernel.events.js';
import { AuthenticationRequiredException } from '../firewall/authentication-required.exception.js';
import { securityOf, type AuthenticatedUser } from '../security-context.js';
import { SECURITY_PROFILE } from '../security-profile.js';
import { securityBus } from '../testing/security-bus.js';
import { AccessListener } from './access.listener.js';
import { grantedRoles, IsGranted } from './is-granted.decorator.js';

@IsGranted('ROLE_USER')
class BackOfficeController {
  @IsGranted('ROLE_ADMIN', 'ROLE_USER')
  products(): void {}

  dashboard(): void {}
}

class ShopController {
  @IsGranted('ROLE_USER')
  account(): void {}

  home(): void {}
}

const handler = (target: object, method: string) => ({
  target,
  method: (target as { prototype: Record<string, (...args: unknown[]) => unknown> }).prototype[method],
});

describe('grantedRoles', () => {
  it("merges the class's roles and the method's, once each", () => {
    expect(grantedRoles(handler(BackOfficeController, 'products'))).toEqual(['ROLE_USER', 'ROLE_ADMIN']);
    expect(grantedRoles(handler(BackOfficeController, 'dashboard'))).toEqual(['ROLE_USER']);
    expect(grantedRoles(handler(ShopController, 'account'))).toEqual(['ROLE_USER']);
    expect(grantedRoles(handler(ShopController, 'home'))).toEqual([]);
  });
});

describe('AccessListener', () => {
  const listener = new AccessListener(securityBus());
  const decisions = (context: KernelContext) => context.get(SECURITY_PROFILE)?.decisions ?? [];

  function check(
    target: object,
    method: string,
    user: AuthenticatedUser | null,
  ): { context: KernelContext; thrown: unknown } {
    const context = new KernelContext({} as Response, 'en');
    context.request = new KernelRequest(
      { method: 'GET', url: '/', headers: {}, socket: {} } as unknown as Request,
      context,
      'en',
      false,
    );
    securityOf(context).user = user;
    const name = `${(target as { name: string }).name}::${method}`;
    const event = new ControllerArgumentsEvent(
      context.request,
      { name, className: (target as { name: string }).name, methodName: method },
      {},
      handler(target, method),
    );
    try {
      kernelContextStorage.run(context, () => listener.onControllerArguments(event));
      return { context, thrown: undefined };
    } catch (error) {
      return { context, thrown: error };
    }
  }

  const admin: AuthenticatedUser = { id: 1, email: 'root@example.com', roles: ['ROLE_USER', 'ROLE_ADMIN'] };
  const customer: AuthenticatedUser = { id: 2, email: 'ann@example.com', roles: ['ROLE_USER'] };

  it('lets a user with every role through, recording each decision', () => {
    const { context, thrown } = check(BackOfficeController, 'products', admin);
    expect(thrown).toBeUndefined();
    expect(decisions(context)).toEqual([
      { attribute: 'ROLE_USER', subject: 'BackOfficeController::products', granted: true },
      { attribute: 'ROLE_ADMIN', subject: 'BackOfficeController::products', granted: true },
    ]);
  });

  it('refuses a user missing one role with a 403', () => {
    const { context, thrown } = check(BackOfficeController, 'products', customer);
    expect(thrown).toBeInstanceOf(AccessDeniedHttpException);
    expect(thrown).toMatchObject({ statusCode: 403, message: 'Access Denied.' });
    expect(decisions(context).map((d) => [d.attribute, d.granted])).toEqual([
      ['ROLE_USER', true],
      ['ROLE_ADMIN', false],
    ]);
  });

  it('asks an anonymous visitor to log in (never a 403), recording the refusal', () => {
    const { context, thrown } = check(ShopController, 'account', null);
    expect(thrown).toBeInstanceOf(AuthenticationRequiredException);
    expect(decisions(context)).toEqual([
      { attribute: 'ROLE_USER', subject: 'ShopController::account', granted: false },
    ]);
  });

  it('leaves handlers that need no role alone, recording nothing', () => {
    const { context, thrown } = check(ShopController, 'home', null);
    expect(thrown).toBeUndefined();
    expect(decisions(context)).toEqual([]);
  });
});
