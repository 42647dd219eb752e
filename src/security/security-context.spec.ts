import type { Response } from 'express';
import { KernelContext } from '../lifecycle/kernel-context.js';
import { AuthenticationRequiredException } from './firewall/authentication-required.exception.js';
import { currentUser, requireUser, SECURITY_STATE, securityOf } from './security-context.js';

describe('the security context', () => {
  const ann = { id: 7, email: 'ann@example.com', roles: ['ROLE_USER'] };
  const fresh = () => new KernelContext({} as Response, 'en');

  it("creates the request's state once, anonymous", () => {
    const context = fresh();
    expect(context.get(SECURITY_STATE)).toBeUndefined();
    const state = securityOf(context);
    expect(securityOf(context)).toBe(state);
    expect({ ...state }).toEqual({ user: null, rememberMeCookie: undefined });
  });

  it('gives the user, or null without creating any state', () => {
    const context = fresh();
    expect(currentUser(context)).toBeNull();
    expect(context.get(SECURITY_STATE)).toBeUndefined();
    securityOf(context).user = ann;
    expect(currentUser(context)).toBe(ann);
    expect(requireUser(context)).toBe(ann);
  });

  it('asks for a login where a user is required and there is none', () => {
    expect(() => requireUser(fresh())).toThrow(AuthenticationRequiredException);
    expect(() => requireUser(fresh())).toThrow('Full authentication is required to access this resource.');
  });
});
