import type { Request, Response } from 'express';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { ResponseHandle } from '../lifecycle/http/response-handle.js';
import { KernelRequest } from '../lifecycle/http/kernel-request.js';
import { KernelContext } from '../lifecycle/kernel-context.js';
import { ResponseEvent } from '../lifecycle/kernel.events.js';
import { SESSION } from '../session/session-context.js';
import { Session } from '../session/session.js';
import { ContextListener } from './context.listener.js';
import { securityOf } from './security-context.js';

const ANN = { id: 7, email: 'ann@example.com', roles: ['ROLE_USER'] };

describe('ContextListener', () => {
  const listener = new ContextListener();

  function respond(session: Session | undefined, user: typeof ANN | null | undefined): void {
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    const context = new KernelContext(res as unknown as Response, 'en');
    context.request = new KernelRequest(
      { method: 'GET', url: '/', headers: {}, socket: {} } as unknown as Request,
      context,
      'en',
      false,
    );
    if (session) context.set(SESSION, session);
    if (user !== undefined) securityOf(context).user = user;
    listener.onKernelResponse(
      new ResponseEvent(context.request, new ResponseHandle(res as unknown as Response, undefined, false)),
    );
  }

  it('binds the session to the user who logged in', () => {
    const session = new Session('s'.repeat(43));
    respond(session, ANN);
    expect(session.peekUserId()).toBe(7);
    expect(session.changed).toBe(true);
  });

  it('does not write a session that already carries the user', () => {
    const session = new Session('s'.repeat(43), {}, 7);
    respond(session, ANN);
    expect(session.changed).toBe(false);
  });

  it('unbinds a user who is gone (logout, deleted account)', () => {
    const session = new Session('s'.repeat(43), { cart: 1 }, 7);
    respond(session, null);
    expect(session.peekUserId()).toBeNull();
    expect(session.peek()).toEqual({ cart: 1 });
  });

  it('leaves alone a session of an anonymous visitor, a closed session and sub-requests', () => {
    const anonymous = new Session(null);
    respond(anonymous, null);
    expect(anonymous.changed).toBe(false);
    const closed = new Session('s'.repeat(43));
    closed.close();
    expect(() => respond(closed, ANN)).not.toThrow();
    expect(closed.peekUserId()).toBeNull();
    // No security state at all (the firewall never ran): nothing to save.
    const untouched = new Session('s'.repeat(43), {}, 7);
    respond(untouched, undefined);
    expect(untouched.peekUserId()).toBe(7);
  });
});
