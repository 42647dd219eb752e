import { EventEmitter2 } from '@nestjs/event-emitter';
import { Test, type TestingModule } from '@nestjs/testing';
import type { Request, Response } from 'express';
import { randomBytes, scryptSync } from 'node:crypto';
import { AppConfig } from '../config/app-config.js';
import { ShopDb } from '../database/shop-db.js';
import { KernelRequest } from '../lifecycle/http/kernel-request.js';
import { KernelContext, kernelContextStorage } from '../lifecycle/kernel-context.js';
import { KernelLogger } from '../lifecycle/logging/kernel-logger.js';
import { SESSION } from '../session/session-context.js';
import { Session } from '../session/session.js';
import { Authenticator } from './authenticator.js';
import { PasswordHasher } from './password-hasher.js';
import { RememberMeService } from './remember-me/remember-me.service.js';
import { securityOf, type AuthenticatedUser } from './security-context.js';
import { securityBus, securityProfileOf } from './testing/security-bus.js';
import { LoginThrottler } from './throttling/login-throttler.js';
import { TooManyLoginAttemptsException } from './throttling/too-many-login-attempts.exception.js';
import { UserRepository } from '../users/user.repository.js';
import { memoryShopDb } from '../database/testing/memory-shop-db.js';

const SESSION_ID = 's'.repeat(43);

/** Counts the hashes checked: a refused attempt must cost none, an unknown email one. */
class CountingHasher extends PasswordHasher {
  verifications = 0;
  override verify(password: string, stored: string): Promise<boolean> {
    this.verifications++;
    return super.verify(password, stored);
  }
}

function makeContext(options: { cookie?: string; ip?: string; session?: Session } = {}): KernelContext {
  const context = new KernelContext({ locals: {} } as Response, 'en');
  const raw = {
    method: 'POST',
    url: '/login',
    headers: options.cookie ? { cookie: options.cookie } : {},
    socket: { remoteAddress: options.ip ?? '203.0.113.9' },
  } as unknown as Request;
  context.request = new KernelRequest(raw, context, 'en', false);
  context.set(
    SESSION,
    options.session ?? new Session(SESSION_ID, {}, null, new Date(Date.now() + 3_600_000).toISOString()),
  );
  return context;
}

describe('Authenticator on SQLite', () => {
  let module: TestingModule;
  let db: ShopDb;
  let hasher: CountingHasher;
  let authenticator: Authenticator;
  let ann: AuthenticatedUser;
  let annHash: string;

  beforeAll(async () => {
    // One scrypt hash for the whole file: hashing is deliberately slow.
    hasher = new CountingHasher();
    annHash = await hasher.hash('correct horse');
  });

  beforeEach(async () => {
    db = await memoryShopDb();
    const config = AppConfig.fromEnv({ APP_ENV: 'test', LOGIN_THROTTLING_MAX_ATTEMPTS: '2' });
    module = await Test.createTestingModule({
      providers: [
        { provide: ShopDb, useValue: db },
        { provide: AppConfig, useValue: config },
        { provide: PasswordHasher, useValue: hasher },
        KernelLogger,
        RememberMeService,
        LoginThrottler,
        UserRepository,
        { provide: EventEmitter2, useValue: securityBus() },
        Authenticator,
      ],
    }).compile();
    await module.init();
    authenticator = module.get(Authenticator);
    hasher.verifications = 0;
    const { id } = await db
      .insertInto('users')
      .values({ email: 'ann@example.com', password_hash: annHash, roles: '["ROLE_USER","ROLE_ADMIN"]' })
      .returning('id')
      .executeTakeFirstOrThrow();
    ann = { id, email: 'ann@example.com', roles: ['ROLE_USER', 'ROLE_ADMIN'] };
  });

  afterEach(async () => {
    await module.close();
    await db.destroy();
  });

  describe('checkCredentials', () => {
    it('gives the user for the right password, the email as typed in any case and with spaces', async () => {
      await expect(authenticator.checkCredentials(makeContext(), 'ann@example.com', 'correct horse')).resolves.toEqual(
        ann,
      );
      await expect(
        authenticator.checkCredentials(makeContext(), '  Ann@Example.COM ', 'correct horse'),
      ).resolves.toEqual(ann);
    });

    it('gives null for a wrong password', async () => {
      await expect(
        authenticator.checkCredentials(makeContext(), 'ann@example.com', 'Correct horse'),
      ).resolves.toBeNull();
      await expect(authenticator.checkCredentials(makeContext(), 'ann@example.com', '')).resolves.toBeNull();
    });

    it('gives null for an unknown email after checking a hash all the same (timing)', async () => {
      await expect(
        authenticator.checkCredentials(makeContext(), 'nobody@example.com', 'correct horse'),
      ).resolves.toBeNull();
      expect(hasher.verifications).toBe(1);
    });

    it('refuses with a 429 once the attempts ran out, without checking the password, even the right one', async () => {
      const context = makeContext();
      await authenticator.checkCredentials(context, 'ann@example.com', 'wrong 1');
      await authenticator.checkCredentials(context, 'ann@example.com', 'wrong 2');
      expect(hasher.verifications).toBe(2);
      const refused = kernelContextStorage.run(context, () =>
        authenticator.checkCredentials(context, 'ann@example.com', 'correct horse'),
      );
      await expect(refused).rejects.toBeInstanceOf(TooManyLoginAttemptsException);
      await expect(refused).rejects.toMatchObject({
        statusCode: 429,
        message: 'Too many failed login attempts, please try again in 1 minute.',
      });
      expect(hasher.verifications).toBe(2);
      expect(securityProfileOf(context).throttled).toEqual({
        action: 'login',
        scope: 'account',
        retryAfter: expect.any(Number),
      });
      expect(context.logs.map((e) => [e.levelName, e.channel, e.message])).toEqual([
        [
          'WARNING',
          'security',
          `Login throttling: too many attempts for "ann@example.com" from 203.0.113.9, the login was refused for ${securityProfileOf(context).throttled!.retryAfter} s.`,
        ],
      ]);
      // Another client is not throttled for this account.
      await expect(
        authenticator.checkCredentials(makeContext({ ip: '203.0.113.10' }), 'ann@example.com', 'correct horse'),
      ).resolves.toEqual(ann);
    });

    it('starts the count again after a successful login', async () => {
      const context = makeContext();
      await authenticator.checkCredentials(context, 'ann@example.com', 'wrong');
      await authenticator.checkCredentials(context, 'ann@example.com', 'correct horse');
      await authenticator.checkCredentials(context, 'ann@example.com', 'wrong');
      await expect(authenticator.checkCredentials(context, 'ann@example.com', 'correct horse')).resolves.toEqual(ann);
    });

    it('rehashes a password stored with weaker parameters at a successful login', async () => {
      const salt = randomBytes(16);
      const weak = [
        'scrypt',
        16384,
        8,
        1,
        salt.toString('base64url'),
        scryptSync('old secret', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64url'),
      ].join('$');
      const { id } = await db
        .insertInto('users')
        .values({ email: 'bob@example.com', password_hash: weak })
        .returning('id')
        .executeTakeFirstOrThrow();
      await expect(authenticator.checkCredentials(makeContext(), 'bob@example.com', 'old secret')).resolves.toEqual({
        id,
        email: 'bob@example.com',
        roles: ['ROLE_USER'],
      });
      const { password_hash } = await db
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
      await expect(hasher.verify('old secret', password_hash)).resolves.toBe(true);
    });

    it('does not rehash after a wrong password', async () => {
      const salt = randomBytes(16);
      const weak = [
        'scrypt',
        16384,
        8,
        1,
        salt.toString('base64url'),
        scryptSync('old secret', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64url'),
      ].join('$');
      await db.insertInto('users').values({ email: 'bob@example.com', password_hash: weak }).execute();
      await expect(authenticator.checkCredentials(makeContext(), 'bob@example.com', 'guess')).resolves.toBeNull();
      expect(
        await db
          .selectFrom('users')
          .select('password_hash')
          .where('email', '=', 'bob@example.com')
          .executeTakeFirstOrThrow(),
      ).toEqual({ password_hash: weak });
    });
  });

  describe('checkRegistrationAllowed', () => {
    it('counts each registration against the client and refuses with a 429 once they ran out', async () => {
      const context = makeContext();
      await authenticator.checkRegistrationAllowed(context, 'new@example.com');
      await authenticator.checkRegistrationAllowed(context, 'new@example.com');
      await expect(
        kernelContextStorage.run(context, () => authenticator.checkRegistrationAllowed(context, 'new@example.com')),
      ).rejects.toMatchObject({ statusCode: 429, message: 'Too many attempts, please try again in 1 minute.' });
      expect(securityProfileOf(context).throttled).toMatchObject({ action: 'registration', scope: 'account' });
    });
  });

  describe('login', () => {
    it("moves the session to a new id, drops the anonymous visitor's CSRF tokens and keeps the rest", async () => {
      const session = new Session(SESSION_ID, { '_csrf_token/login': 't1', '_csrf_token/cart': 't2', cart: 4 });
      const context = makeContext({ session });
      await kernelContextStorage.run(context, () =>
        authenticator.login(context, ann, { rememberMe: false, via: 'login-form' }),
      );
      expect(session.id).not.toBe(SESSION_ID);
      expect(session.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(session.peek()).toEqual({ cart: 4 });
      const state = securityOf(context);
      expect(state.user).toEqual(ann);
      expect(securityProfileOf(context).firewall.authenticatedBy).toBe('login-form');
      expect(state.rememberMeCookie).toBeUndefined();
      expect(await db.selectFrom('remember_me_tokens').select('series').execute()).toEqual([]);
      expect(context.logs.map((e) => e.message)).toEqual(['User "ann@example.com" logged in (login-form).']);
    });

    it('creates a remember-me series for the user when asked', async () => {
      const context = makeContext();
      await authenticator.login(context, ann, { rememberMe: true, via: 'json' });
      const cookie = securityOf(context).rememberMeCookie!;
      expect(cookie).toMatch(/^[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]{43}$/);
      expect(await db.selectFrom('remember_me_tokens').select(['series', 'user_id']).execute()).toEqual([
        { series: cookie.split(':')[0], user_id: ann.id },
      ]);
      expect(context.logs.map((e) => e.message)).toEqual(['User "ann@example.com" logged in (json).']);
    });

    it('runs the login hooks in order; a failing one is logged and the login stands', async () => {
      const calls: string[] = [];
      authenticator.onLogin(async (_, user) => {
        calls.push(`first ${user.id}`);
      });
      authenticator.onLogin(async () => {
        throw new Error('cart merge failed');
      });
      authenticator.onLogin(async (context) => {
        calls.push(`third ${securityOf(context).user?.email}`);
      });
      const context = makeContext();
      await authenticator.login(context, ann, { rememberMe: false, via: 'login-form' });
      expect(calls).toEqual([`first ${ann.id}`, 'third ann@example.com']);
      expect(securityOf(context).user).toEqual(ann);
      expect(context.logs.filter((e) => e.levelName === 'ERROR').map((e) => e.message)).toEqual([
        'A login hook failed: cart merge failed',
      ]);
    });
  });

  describe('logout', () => {
    it('ends the session, forgets the user and revokes the remember-me series of this device only', async () => {
      const mine = await module.get(RememberMeService).create(ann.id);
      const otherDevice = await module.get(RememberMeService).create(ann.id);
      const session = new Session(SESSION_ID, { cart: 4 }, ann.id);
      const context = makeContext({ cookie: `REMEMBERME=${mine}; SHOPSESSID=${SESSION_ID}`, session });
      securityOf(context).user = ann;
      await kernelContextStorage.run(context, () => authenticator.logout(context));
      const state = securityOf(context);
      expect(state.user).toBeNull();
      expect(securityProfileOf(context).loggedOut).toBe(true);
      expect(state.rememberMeCookie).toBeNull();
      expect(session.invalidated).toBe(true);
      expect(session.peek()).toEqual({});
      expect(session.peekUserId()).toBeNull();
      expect(await db.selectFrom('remember_me_tokens').select('series').execute()).toEqual([
        { series: otherDevice.split(':')[0] },
      ]);
      expect(context.logs.map((e) => e.message)).toEqual(['User "ann@example.com" logged out.']);
    });

    it('leaves the remember-me cookie alone when the request has none', async () => {
      const context = makeContext();
      await kernelContextStorage.run(context, () => authenticator.logout(context));
      expect(securityOf(context).rememberMeCookie).toBeUndefined();
      expect(securityProfileOf(context).loggedOut).toBe(true);
      expect(context.logs).toEqual([]);
    });
  });
});
