import type { Request, Response } from 'express';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { AppConfig } from '../../config/app-config.js';
import { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { ResponseHandle } from '../../lifecycle/http/response-handle.js';
import { KernelContext } from '../../lifecycle/kernel-context.js';
import { ResponseEvent } from '../../lifecycle/kernel.events.js';
import { securityOf } from '../security-context.js';
import { RememberMeListener } from './remember-me.listener.js';

describe('RememberMeListener', () => {
  const listener = new RememberMeListener(AppConfig.fromEnv({ APP_ENV: 'test', REMEMBER_ME_LIFETIME: '2d' }));

  function respond(cookie: string | null | undefined, options: { secure?: boolean; state?: boolean } = {}): unknown {
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    const context = new KernelContext(res as unknown as Response, 'en');
    const raw = {
      method: 'GET',
      url: '/',
      headers: {},
      socket: { encrypted: options.secure ?? false },
    } as unknown as Request;
    context.request = new KernelRequest(raw, context, 'en', false);
    if (options.state ?? true) securityOf(context).rememberMeCookie = cookie;
    listener.onKernelResponse(
      new ResponseEvent(context.request, new ResponseHandle(res as unknown as Response, undefined, false)),
    );
    return res.getHeader('set-cookie');
  }

  it('sends a new or rotated cookie for the configured lifetime, HttpOnly and SameSite=Lax', () => {
    expect(respond('series:token')).toBe('REMEMBERME=series%3Atoken; Max-Age=172800; Path=/; HttpOnly; SameSite=Lax');
    expect(respond('series:token', { secure: true })).toBe(
      'REMEMBERME=series%3Atoken; Max-Age=172800; Path=/; HttpOnly; Secure; SameSite=Lax',
    );
  });

  it('expires the cookie at a logout or for a cookie that was refused', () => {
    expect(respond(null)).toBe('REMEMBERME=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
  });

  it('sends nothing when the request decided nothing about it', () => {
    expect(respond(undefined)).toBeUndefined();
    expect(respond(undefined, { state: false })).toBeUndefined();
  });
});
