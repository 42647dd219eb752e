import type { Request, Response } from 'express';
import { AppConfig } from '../../config/app-config.js';
import type { ShopDb } from '../../database/shop-db.js';
import { AccessDeniedHttpException } from '../../lifecycle/exceptions/access-denied-http.exception.js';
import { UnauthorizedHttpException } from '../../lifecycle/exceptions/unauthorized-http.exception.js';
import { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { KernelContext, kernelContextStorage } from '../../lifecycle/kernel-context.js';
import { RequestEvent } from '../../lifecycle/kernel.events.js';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import { SESSION } from '../../session/session-context.js';
import { Session } from '../../session/session.js';
import { RememberMeService } from '../remember-me/remember-me.service.js';
import { securityOf } from '../security-context.js';
import { securityBus, securityProfileOf } from '../testing/security-bus.js';
import { UserProvider } from '../user-provider.js';
import { UserRepository } from '../../users/user.repository.js';
import { TARGET_PATH } from './entry-point.js';
import { FirewallListener } from './firewall.listener.js';
import { LoginEntryPoint } from './login-entry-point.js';
import { memoryShopDb } from '../../database/testing/memory-shop-db.js';

const SESSION_ID = 's'.repeat(43);
const PROTECTED = '^\\/(api\\/)?(account|checkout|orders|admin)(\\/|$)';

interface Call {
  context: KernelContext;
  event: RequestEvent;
  session: Session;
  /** Whether the listener had to wait for something (a database read). */
  waited: boolean;
}

describe('FirewallListener on SQLite', () => {
  let db: ShopDb;
  let config: AppConfig;
  let rememberMe: RememberMeService;
  let ann: { id: number; email: string; roles: string[] };

  beforeEach(async () => {
    db = await memoryShopDb();
    config = AppConfig.fromEnv({ APP_ENV: 'test' });
    rememberMe = new RememberMeService(db, config);
    const { id } = await db
      .insertInto('users')
      .values({ email: 'ann@example.com', password_hash: 'x' })
      .returning('id')
      .executeTakeFirstOrThrow();
    ann = { id, email: 'ann@example.com', roles: ['ROLE_USER'] };
  });

  afterEach(() => db.destroy());

  async function request(
    url: string,
    options: { method?: string; headers?: Record<string, string>; sessionUser?: number; config?: AppConfig } = {},
  ): Promise<Call> {
    const effective = options.config ?? config;
    const listener = new FirewallListener(
      effective,
      new UserProvider(new UserRepository(db)),
      rememberMe,
      new KernelLogger(effective),
      new LoginEntryPoint(effective),
      securityBus(),
    );
    const context = new KernelContext({ locals: {} } as Response, 'en');
    const raw = {
      method: options.method ?? 'GET',
      url,
      headers: options.headers ?? {},
      socket: {},
    } as unknown as Request;
    context.request = new KernelRequest(raw, context, 'en', false);
    const session = new Session(options.sessionUser === undefined ? null : SESSION_ID, {}, options.sessionUser ?? null);
    context.set(SESSION, session);
    const event = new RequestEvent(context.request);
    event.dispatchState = { tasks: undefined };
    const tasks = await kernelContextStorage.run(context, async () => {
      listener.onKernelRequest(event);
      const waitedFor = event.dispatchState!.tasks ?? [];
      await Promise.all(waitedFor);
      return waitedFor;
    });
    return { context, event, session, waited: tasks.length > 0 };
  }

  it('lets an anonymous visitor through a public path without reading the database', async () => {
    const { context, event, waited } = await request('/products?page=2');
    expect(waited).toBe(false);
    expect(event.hasResponse()).toBe(false);
    expect(securityProfileOf(context).firewall).toEqual({ rule: null, authenticatedBy: null, outcome: 'public' });
  });

  it('sends an anonymous visitor to the login page, keeping the page asked for', async () => {
    const { context, event, session } = await request('/account/orders?page=2');
    expect(event.response).toMatchObject({ status: 302, headers: { Location: '/login' } });
    expect(event.isPropagationStopped()).toBe(true);
    expect(session.peek()).toEqual({ [TARGET_PATH]: '/account/orders?page=2' });
    expect(securityProfileOf(context).firewall).toEqual({
      rule: PROTECTED,
      authenticatedBy: null,
      outcome: 'redirected-to-login',
    });
  });

  it('keeps no target for a form sent anonymously (it cannot be replayed by a redirect)', async () => {
    const { event, session } = await request('/checkout', { method: 'POST' });
    expect(event.response).toMatchObject({ status: 302, headers: { Location: '/login' } });
    expect(session.peek()).toEqual({});
  });

  it.each([
    ['an API path', '/api/orders', {}],
    ['a script', '/account', { 'x-requested-with': 'XMLHttpRequest' }],
  ])('answers %s with a 401 and its challenge', async (_, url, headers) => {
    const call = request(url, { headers });
    await expect(call).rejects.toBeInstanceOf(UnauthorizedHttpException);
    await expect(call).rejects.toMatchObject({
      statusCode: 401,
      message: 'Full authentication is required to access this resource.',
      headers: { 'WWW-Authenticate': 'Cookie realm="Shopkernel", form-action="/login", cookie-name="SHOPSESSID"' },
    });
  });

  it("authenticates the session's user, loaded fresh, and grants the protected path", async () => {
    await db.updateTable('users').set({ roles: '["ROLE_ADMIN"]' }).execute();
    const { context, event } = await request('/account', { sessionUser: ann.id });
    const user = { ...ann, roles: ['ROLE_USER', 'ROLE_ADMIN'] };
    const state = securityOf(context);
    expect(event.hasResponse()).toBe(false);
    expect(state.user).toEqual(user);
    expect(securityProfileOf(context).firewall).toEqual({
      rule: PROTECTED,
      authenticatedBy: 'session',
      outcome: 'granted',
    });
    expect(securityProfileOf(context).decisions).toEqual([
      { attribute: 'ROLE_USER', subject: 'path /account', granted: true },
    ]);
    expect(context.res.locals.currentUser).toEqual(user);
  });

  it('denies a user without the roles of the rule with a 403, recording the decisions', async () => {
    const adminOnly = config.with({
      security: { ...config.security, accessControl: [{ path: /^\/admin/, roles: ['ROLE_USER', 'ROLE_ADMIN'] }] },
    });
    const listener = new FirewallListener(
      adminOnly,
      new UserProvider(new UserRepository(db)),
      rememberMe,
      new KernelLogger(adminOnly),
      new LoginEntryPoint(adminOnly),
      securityBus(),
    );
    const context = new KernelContext({ locals: {} } as Response, 'en');
    context.request = new KernelRequest(
      { method: 'GET', url: '/admin', headers: {}, socket: {} } as unknown as Request,
      context,
      'en',
      false,
    );
    context.set(SESSION, new Session(SESSION_ID, {}, ann.id));
    const event = new RequestEvent(context.request);
    event.dispatchState = { tasks: undefined };
    const decided = kernelContextStorage.run(context, () => {
      listener.onKernelRequest(event);
      return Promise.all(event.dispatchState!.tasks!);
    });
    await expect(decided).rejects.toBeInstanceOf(AccessDeniedHttpException);
    await expect(decided).rejects.toMatchObject({ statusCode: 403, message: 'Access Denied.' });
    expect(securityProfileOf(context).firewall.outcome).toBe('denied');
    expect(securityProfileOf(context).decisions).toEqual([
      { attribute: 'ROLE_USER', subject: 'path /admin', granted: true },
      { attribute: 'ROLE_ADMIN', subject: 'path /admin', granted: false },
    ]);
  });

  it('empties a session whose user no longer exists, and treats the visitor as anonymous', async () => {
    const { context, event, session } = await request('/account', { sessionUser: ann.id + 100 });
    expect(session.invalidated).toBe(true);
    expect(securityOf(context).user).toBeNull();
    expect(event.response).toMatchObject({ status: 302 });
    expect(context.logs.map((e) => [e.levelName, e.message])).toEqual([
      ['WARNING', 'The user of the session no longer exists: the session was emptied.'],
    ]);
  });

  it('authenticates by a valid remember-me cookie, rotating it and moving the session to a new id', async () => {
    const cookie = await rememberMe.create(ann.id);
    const { context, event, session } = await request('/account', { headers: { cookie: `REMEMBERME=${cookie}` } });
    const state = securityOf(context);
    expect(event.hasResponse()).toBe(false);
    expect(state.user).toEqual(ann);
    expect(securityProfileOf(context).firewall).toMatchObject({ authenticatedBy: 'remember-me', outcome: 'granted' });
    expect(state.rememberMeCookie).toMatch(new RegExp(`^${cookie.split(':')[0]}:[A-Za-z0-9_-]{43}$`));
    expect(state.rememberMeCookie).not.toBe(cookie);
    expect(session.changed).toBe(true);
    expect(session.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(context.logs.map((e) => e.message)).toEqual([
      'User "ann@example.com" was authenticated by the remember-me cookie.',
    ]);
  });

  it('prefers the session user to a remember-me cookie (the cookie is not used up)', async () => {
    const cookie = await rememberMe.create(ann.id);
    const { context } = await request('/account', { sessionUser: ann.id, headers: { cookie: `REMEMBERME=${cookie}` } });
    expect(securityProfileOf(context).firewall.authenticatedBy).toBe('session');
    expect(securityOf(context).rememberMeCookie).toBeUndefined();
    expect(await db.selectFrom('remember_me_tokens').select('rotated_at').executeTakeFirstOrThrow()).toEqual({
      rotated_at: null,
    });
  });

  it('clears an invalid remember-me cookie and treats the visitor as anonymous', async () => {
    const { context, event } = await request('/account', { headers: { cookie: 'REMEMBERME=forged' } });
    expect(securityOf(context).user).toBeNull();
    expect(securityOf(context).rememberMeCookie).toBeNull();
    expect(event.response).toMatchObject({ status: 302 });
  });

  it('clears a stolen remember-me cookie, revoking every series of the user, and says so', async () => {
    const cookie = await rememberMe.create(ann.id);
    const [series] = cookie.split(':');
    const { context } = await request('/', { headers: { cookie: `REMEMBERME=${series}:${'A'.repeat(43)}` } });
    expect(securityOf(context).user).toBeNull();
    expect(securityOf(context).rememberMeCookie).toBeNull();
    expect(await db.selectFrom('remember_me_tokens').selectAll().execute()).toEqual([]);
    expect(context.logs.map((e) => [e.levelName, e.message])).toEqual([
      [
        'WARNING',
        `A remember-me cookie was used twice (stolen?): every remember-me login of user ${ann.id} was revoked.`,
      ],
    ]);
  });
});
