import type { Request, Response } from 'express';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { AppConfig } from '../config/app-config.js';
import type { ShopDb } from '../database/shop-db.js';
import { KernelRequest } from '../lifecycle/http/kernel-request.js';
import { ResponseHandle } from '../lifecycle/http/response-handle.js';
import { KernelContext } from '../lifecycle/kernel-context.js';
import { FinishRequestEvent, RequestEvent, ResponseEvent, type KernelEvent } from '../lifecycle/kernel.events.js';
import { KernelLogger } from '../lifecycle/logging/kernel-logger.js';
import { SESSION, SESSION_REPORT } from './session-context.js';
import { isSessionId, Session } from './session.js';
import { SessionListener } from './session.listener.js';
import { SessionStore } from './session.store.js';
import { memoryShopDb } from '../database/testing/memory-shop-db.js';

const A = 'a'.repeat(43);
const LIFETIME = 3600;

/** A request as the kernel would build it (no proxy: the socket says whether it is HTTPS). */
function makeContext(cookie?: string, options: { secure?: boolean } = {}): KernelContext {
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  const context = new KernelContext(res as unknown as Response, 'en');
  const raw = {
    method: 'GET',
    url: '/',
    headers: cookie === undefined ? {} : { cookie },
    socket: { encrypted: options.secure ?? false },
  } as unknown as Request;
  context.request = new KernelRequest(raw, context, 'en', false);
  return context;
}

/** What the dispatcher does with `waitFor`: the tasks a listener handed over, awaited. */
async function dispatch<E extends KernelEvent>(event: E, listen: (event: E) => void): Promise<E> {
  event.dispatchState = { tasks: undefined };
  listen(event);
  await Promise.all(event.dispatchState.tasks ?? []);
  return event;
}

describe('SessionListener on SQLite', () => {
  let db: ShopDb;
  let store: SessionStore;
  let listener: SessionListener;
  let userId: number;

  beforeEach(async () => {
    db = await memoryShopDb();
    const config = AppConfig.fromEnv({ APP_ENV: 'test', SESSION_LIFETIME: `${LIFETIME}s` });
    store = new SessionStore(db, config);
    listener = new SessionListener(store, config, new KernelLogger(config));
    ({ id: userId } = await db
      .insertInto('users')
      .values({ email: 'ann@example.com', password_hash: 'x' })
      .returning('id')
      .executeTakeFirstOrThrow());
  });

  afterEach(() => db.destroy());

  const start = async (context: KernelContext): Promise<Session> => {
    await dispatch(new RequestEvent(context.request), (e) => listener.onKernelRequest(e));
    return context.get(SESSION)!;
  };
  const respond = async (context: KernelContext, cacheControl?: string) => {
    const raw = context.res as unknown as ServerResponse;
    if (cacheControl) raw.setHeader('Cache-Control', cacheControl);
    const response = new ResponseHandle(context.res, 'body', false);
    await dispatch(new ResponseEvent(context.request, response), (e) => listener.onKernelResponse(e));
    const header = raw.getHeader('set-cookie') as string | string[] | undefined;
    return {
      setCookie: header === undefined ? [] : [header].flat(),
      cacheControl: raw.getHeader('cache-control'),
      report: context.get(SESSION_REPORT)!,
    };
  };
  const rows = () => db.selectFrom('sessions').select(['id', 'data', 'user_id']).orderBy('id').execute();

  describe('kernel.request', () => {
    it('starts an empty session for a visitor without a cookie', async () => {
      const session = await start(makeContext());
      expect(session.id).toBeNull();
      expect(session.isNew).toBe(true);
    });

    it('loads the session the cookie names', async () => {
      const expiresAt = await store.save(A, { locale: 'fr' }, userId);
      const session = await start(makeContext(`other=1; SHOPSESSID=${A}`));
      expect(session.id).toBe(A);
      expect(session.loadedId).toBe(A);
      expect(session.peek()).toEqual({ locale: 'fr' });
      expect(session.peekUserId()).toBe(userId);
      expect(session.expiresAt).toBe(expiresAt);
    });

    it.each([
      ['an unknown id', `SHOPSESSID=${'z'.repeat(43)}`],
      ['a forged id that is not one', `SHOPSESSID=${A.slice(1)}'`],
      ['an empty id', 'SHOPSESSID='],
    ])('starts an empty session for %s', async (_, cookie) => {
      await store.save(A, { locale: 'fr' }, null);
      const session = await start(makeContext(cookie));
      expect(session.id).toBeNull();
      expect(session.peek()).toEqual({});
    });

    it('ignores an expired session', async () => {
      await store.save(A, { locale: 'fr' }, null, new Date(Date.now() - (LIFETIME + 1) * 1000));
      expect((await start(makeContext(`SHOPSESSID=${A}`))).id).toBeNull();
    });
  });

  describe('kernel.response', () => {
    it('stores nothing, sets no cookie and keeps the page public for a visitor who stored nothing', async () => {
      const context = makeContext();
      (await start(context)).get('anything');
      const { setCookie, cacheControl, report } = await respond(context);
      expect(setCookie).toEqual([]);
      expect(cacheControl).toBeUndefined();
      expect(report).toMatchObject({
        outcome: 'none',
        cookieReceived: false,
        unknownCookie: false,
        cookieSet: false,
        madePrivate: false,
        idPrefix: null,
      });
      expect(await rows()).toEqual([]);
    });

    it("saves a new visitor's first attribute under a new id, with its cookie, and makes the page private", async () => {
      const context = makeContext();
      (await start(context)).set('locale', 'de');
      const { setCookie, cacheControl, report } = await respond(context);
      const [stored] = await rows();
      expect(isSessionId(stored.id)).toBe(true);
      expect(stored).toMatchObject({ data: '{"locale":"de"}', user_id: null });
      expect(setCookie).toEqual([`SHOPSESSID=${stored.id}; Max-Age=${LIFETIME}; Path=/; HttpOnly; SameSite=Lax`]);
      expect(cacheControl).toBe('max-age=0, must-revalidate, private');
      expect(report).toMatchObject({
        outcome: 'saved',
        idPrefix: stored.id.slice(0, 6),
        cookieSet: true,
        madePrivate: true,
        migrated: false,
        attributes: { locale: 'de' },
      });
      expect(Date.parse(report.expiresAt!)).toBeGreaterThan(Date.now() + (LIFETIME - 60) * 1000);
    });

    it('marks the cookie Secure over HTTPS', async () => {
      const context = makeContext(undefined, { secure: true });
      (await start(context)).set('locale', 'de');
      const { setCookie } = await respond(context);
      expect(setCookie).toEqual([
        expect.stringMatching(/^SHOPSESSID=[\w-]{43}; Max-Age=3600; Path=\/; HttpOnly; Secure; SameSite=Lax$/),
      ]);
    });

    it('moves a migrated session to its new id and removes the old row (fixation)', async () => {
      await store.save(A, { cart: 1 }, null);
      const context = makeContext(`SHOPSESSID=${A}`);
      const session = await start(context);
      session.migrate();
      session.setUser(userId);
      const { setCookie, report } = await respond(context);
      expect(await rows()).toEqual([{ id: session.id, data: '{"cart":1}', user_id: userId }]);
      expect(session.id).not.toBe(A);
      expect(setCookie).toEqual([`SHOPSESSID=${session.id}; Max-Age=${LIFETIME}; Path=/; HttpOnly; SameSite=Lax`]);
      expect(report).toMatchObject({ outcome: 'saved', migrated: true, userId });
    });

    it('removes an invalidated session and expires its cookie (logout)', async () => {
      await store.save(A, { cart: 1 }, userId);
      const context = makeContext(`SHOPSESSID=${A}`);
      (await start(context)).invalidate();
      const { setCookie, report } = await respond(context);
      expect(await rows()).toEqual([]);
      expect(setCookie).toEqual(['SHOPSESSID=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax']);
      expect(report).toMatchObject({ outcome: 'destroyed', cookieSet: true, userId: null });
    });

    it('expires the cookie of an unknown session and stores nothing', async () => {
      const context = makeContext(`SHOPSESSID=${'z'.repeat(43)}`);
      await start(context);
      const { setCookie, report } = await respond(context);
      expect(setCookie).toEqual(['SHOPSESSID=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax']);
      expect(report).toMatchObject({ outcome: 'none', cookieReceived: true, unknownCookie: true });
      expect(await rows()).toEqual([]);
    });

    it('does not write an unchanged session renewed less than a minute ago, but the page read it: private', async () => {
      await store.save(A, { locale: 'fr' }, null, new Date(Date.now() - 10_000));
      const context = makeContext(`SHOPSESSID=${A}`);
      expect((await start(context)).get('locale')).toBe('fr');
      const before = await db.selectFrom('sessions').select('expires_at').executeTakeFirstOrThrow();
      const { setCookie, cacheControl, report } = await respond(context);
      expect(setCookie).toEqual([]);
      expect(cacheControl).toBe('max-age=0, must-revalidate, private');
      expect(report).toMatchObject({ outcome: 'untouched', idPrefix: 'aaaaaa', cookieSet: false });
      expect(await db.selectFrom('sessions').select('expires_at').executeTakeFirstOrThrow()).toEqual(before);
    });

    it('renews the expiry and the cookie of an unchanged session last renewed over a minute ago', async () => {
      const old = await store.save(A, { locale: 'fr' }, null, new Date(Date.now() - 120_000));
      const context = makeContext(`SHOPSESSID=${A}`);
      await start(context);
      const { setCookie, report } = await respond(context);
      const { expires_at } = await db.selectFrom('sessions').select('expires_at').executeTakeFirstOrThrow();
      expect(Date.parse(expires_at) - Date.parse(old)).toBeGreaterThanOrEqual(119_000);
      expect(report).toMatchObject({ outcome: 'touched', expiresAt: expires_at });
      expect(setCookie).toEqual([`SHOPSESSID=${A}; Max-Age=${LIFETIME}; Path=/; HttpOnly; SameSite=Lax`]);
      // Not read by the page: a renewal alone does not make it private.
      expect(report.madePrivate).toBe(false);
    });

    it('keeps a no-store Cache-Control as it is', async () => {
      const context = makeContext();
      (await start(context)).set('a', 1);
      const { cacheControl, report } = await respond(context, 'no-store');
      expect(cacheControl).toBe('no-store');
      expect(report.madePrivate).toBe(false);
    });

    it('fails the response, and logs why, when the session cannot be saved', async () => {
      const context = makeContext();
      // No such user: the foreign key refuses the row.
      (await start(context)).setUser(999);
      // Not toThrow: better-sqlite3's SqliteError is an Error only for the realm that loaded the driver first.
      await expect(respond(context)).rejects.toMatchObject({
        code: 'SQLITE_CONSTRAINT_FOREIGNKEY',
        message: 'FOREIGN KEY constraint failed',
      });
      const errors = context.logs.filter((entry) => entry.levelName === 'ERROR');
      expect(errors.map((entry) => [entry.channel, entry.message])).toEqual([
        ['request', 'The session could not be saved: FOREIGN KEY constraint failed'],
      ]);
    });
  });

  describe('kernel.finish_request', () => {
    it('closes the session: nothing can change it after its response', async () => {
      const context = makeContext();
      const session = await start(context);
      listener.onFinishRequest(new FinishRequestEvent(context.request));
      expect(session.isClosed).toBe(true);
      expect(() => session.set('late', true)).toThrow('cannot change after kernel.response');
    });
  });
});
