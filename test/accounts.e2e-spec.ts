import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse } from 'node-html-parser';
import request from 'supertest';
import { ShopDb } from '../src/database/shop-db.js';
import { PasswordHasher } from '../src/security/password-hasher.js';
import { UserRepository } from '../src/users/user.repository.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';
import { describeOnEachDatabase, type TestDatabase } from './support/shop-databases.js';

const PASSWORD = 'correct horse battery';
const text = (html: string, selector: string): string =>
  (parse(html).querySelector(selector)?.text ?? '').replace(/\s+/g, ' ').trim();
/** The CSRF token of the page's form posting to `action` (the first form's when not said). */
const csrf = (html: string, action?: string): string => {
  const value = parse(html)
    .querySelector(action ? `form[action="${action}"] input[name="_csrf_token"]` : 'input[name="_csrf_token"]')
    ?.getAttribute('value');
  if (!value) throw new Error('No CSRF field in the page');
  return value;
};
const cookies = (res: request.Response): string[] => ([] as string[]).concat(res.headers['set-cookie'] ?? []);
const cookie = (res: request.Response, name: string): string | undefined =>
  cookies(res).find((c) => c.startsWith(`${name}=`));
const cookieValue = (res: request.Response, name: string): string | undefined =>
  cookie(res, name)
    ?.split(';')[0]
    .slice(name.length + 1);

describeOnEachDatabase('Accounts and security', 'accounts', (database) => {
  let app: NestExpressApplication;
  let db: TestDatabase;
  let shop: ShopDb;

  beforeAll(async () => {
    db = await database();
    app = await createTestApp(db.url ? { env: { DATABASE_URL: db.url } } : {});
    shop = app.get(ShopDb);
  });

  afterAll(async () => {
    await app?.close();
    await db?.teardown?.();
  });

  let n = 0;
  const email = () => `customer${++n}@example.com`;
  const server = () => app.getHttpServer();

  async function createUser(address: string, roles = ['ROLE_USER']): Promise<number> {
    const user = await app.get(UserRepository).create(address, await app.get(PasswordHasher).hash(PASSWORD), roles);
    return user!.id;
  }

  /** A browser: an agent that keeps its cookies. */
  async function loggedIn(
    address: string,
    extra: Record<string, string> = {},
  ): Promise<{ agent: ReturnType<typeof request.agent>; res: request.Response }> {
    const agent = request.agent(server());
    const form = await agent.get('/login').expect(200);
    const res = await agent
      .post('/login')
      .type('form')
      .send({ _csrf_token: csrf(form.text), email: address, password: PASSWORD, ...extra })
      .expect(303);
    return { agent, res };
  }

  describe('registration', () => {
    it('creates the account with a scrypt hash, logs the customer in and shows the account page', async () => {
      const agent = request.agent(server());
      const form = await agent.get('/register').expect(200);
      expect(text(form.text, 'h1')).toBe('Create an account');
      const address = email();
      const res = await agent
        .post('/register')
        .type('form')
        .send({
          _csrf_token: csrf(form.text),
          email: ` ${address.toUpperCase()} `.trim(),
          password: PASSWORD,
          password_confirmation: PASSWORD,
        })
        .expect(303);
      expect(res.headers.location).toBe('/account');
      const row = await shop.selectFrom('users').selectAll().where('email', '=', address).executeTakeFirstOrThrow();
      expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
      expect(row.password_hash).not.toContain(PASSWORD);
      const account = await agent.get('/account').expect(200);
      expect(text(account.text, '#account-email')).toBe(address);
      expect(text(account.text, '.flash.success')).toBe('Welcome! Your account has been created.');
      expect(text(account.text, 'header .account a')).toBe(address);
      const session = await shop
        .selectFrom('sessions')
        .select('user_id')
        .where('user_id', '=', row.id)
        .executeTakeFirst();
      expect(session?.user_id).toBe(row.id);
    });

    it('answers an invalid form with the form again: 400 and every violation listed, nothing stored', async () => {
      const agent = request.agent(server());
      const form = await agent.get('/register').expect(200);
      const res = await agent
        .post('/register')
        .type('form')
        .send({
          _csrf_token: csrf(form.text),
          email: 'not-an-email<script>',
          password: 'short',
          password_confirmation: 'other',
        })
        .expect(400);
      const violations = parse(res.text)
        .querySelectorAll('ul.violations li')
        .map((li) => [li.getAttribute('data-field'), li.text]);
      expect(violations).toEqual([
        ['email', 'Enter a valid email address.'],
        ['password', 'The password must be at least 8 characters long.'],
        ['password_confirmation', 'The two passwords do not match.'],
      ]);
      expect(res.text).toContain('value="not-an-email&lt;script&gt;"');
      expect(res.text).not.toContain('<script>');
      const unknown = await agent
        .post('/register')
        .type('form')
        .send({
          _csrf_token: csrf(form.text),
          email: email(),
          password: PASSWORD,
          password_confirmation: PASSWORD,
          admin: '1',
        })
        .expect(400);
      expect(
        parse(unknown.text)
          .querySelectorAll('ul.violations li')
          .map((li) => li.text),
      ).toEqual(['property admin should not exist']);
      expect(await shop.selectFrom('users').select('id').where('email', 'like', 'not-an-email%').execute()).toEqual([]);
    });

    it('refuses an email that already has an account (400), and a form without its CSRF token (403)', async () => {
      const address = email();
      await createUser(address);
      const agent = request.agent(server());
      const form = await agent.get('/register').expect(200);
      const res = await agent
        .post('/register')
        .type('form')
        .send({ _csrf_token: csrf(form.text), email: address, password: PASSWORD, password_confirmation: PASSWORD })
        .expect(400);
      expect(text(res.text, 'ul.violations')).toBe('An account with this email address already exists.');
      await agent
        .post('/register')
        .type('form')
        .send({ email: email(), password: PASSWORD, password_confirmation: PASSWORD })
        .expect(403);
    });
  });

  describe('login and logout', () => {
    it('logs in with the right password, on a new session id (no fixation)', async () => {
      const address = email();
      await createUser(address);
      const agent = request.agent(server());
      const form = await agent.get('/login').expect(200);
      const before = cookieValue(form, 'SHOPSESSID');
      expect(before).toBeDefined();
      const res = await agent
        .post('/login')
        .type('form')
        .send({ _csrf_token: csrf(form.text), email: address, password: PASSWORD })
        .expect(303);
      expect(res.headers.location).toBe('/account');
      const after = cookieValue(res, 'SHOPSESSID');
      expect(after).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(after).not.toBe(before);
      expect(
        await shop.selectFrom('sessions').select('id').where('id', '=', before!).executeTakeFirst(),
      ).toBeUndefined();
      expect(cookie(res, 'REMEMBERME')).toBeUndefined();
      await agent.get('/account').expect(200);
    });

    it('refuses a wrong password or an unknown email with the same answer', async () => {
      const address = email();
      await createUser(address);
      for (const attempt of [
        { email: address, password: 'wrong password' },
        { email: 'nobody@example.com', password: PASSWORD },
      ]) {
        const agent = request.agent(server());
        const form = await agent.get('/login').expect(200);
        const res = await agent
          .post('/login')
          .type('form')
          .send({ _csrf_token: csrf(form.text), ...attempt })
          .expect(303);
        expect(res.headers.location).toBe('/login');
        const again = await agent.get('/login').expect(200);
        expect(text(again.text, '.flash.error')).toBe('Invalid credentials.');
        expect(parse(again.text).querySelector('input[name="email"]')?.getAttribute('value')).toBe(attempt.email);
        await agent.get('/account').expect(302);
      }
    });

    it('logs out: the session is removed, the account page asks to log in again', async () => {
      const address = email();
      const userId = await createUser(address);
      const { agent } = await loggedIn(address);
      const account = await agent.get('/account').expect(200);
      const res = await agent
        .post('/logout')
        .type('form')
        .send({ _csrf_token: csrf(account.text, '/logout') })
        .expect(303);
      expect(res.headers.location).toBe('/');
      expect(await shop.selectFrom('sessions').select('id').where('user_id', '=', userId).execute()).toEqual([]);
      const home = await agent.get('/').expect(200);
      expect(text(home.text, '.flash.success')).toBe('You have been logged out.');
      await agent.get('/account').expect(302).expect('Location', '/login');
    });
  });

  describe('the firewall', () => {
    it('sends an anonymous visitor of /account to the login page, then back to the page asked for', async () => {
      const address = email();
      await createUser(address);
      const agent = request.agent(server());
      await agent.get('/account?tab=details').expect(302).expect('Location', '/login');
      const form = await agent.get('/login').expect(200);
      const res = await agent
        .post('/login')
        .type('form')
        .send({ _csrf_token: csrf(form.text), email: address, password: PASSWORD })
        .expect(303);
      expect(res.headers.location).toBe('/account?tab=details');
    });

    it('answers 401 with a challenge to JSON clients and scripts, the problem naming the reason', async () => {
      for (const req of [
        request(server()).get('/api/account').set('Accept', 'application/json'),
        request(server()).get('/account').set('Accept', 'application/json'),
        request(server()).get('/account').set('X-Requested-With', 'XMLHttpRequest').set('Accept', 'application/json'),
      ]) {
        const res = await req.expect(401);
        expect(res.headers['www-authenticate']).toBe(
          'Cookie realm="Shopkernel", form-action="/login", cookie-name="SHOPSESSID"',
        );
        expect(res.body).toMatchObject({
          status: 401,
          detail: 'Full authentication is required to access this resource.',
        });
      }
    });

    it('refuses the back office to a customer (403 in kernel.controller_arguments) and opens it to an administrator', async () => {
      const customer = email();
      await createUser(customer);
      const { agent } = await loggedIn(customer);
      const denied = await agent.get('/admin').set('Accept', 'application/json').expect(403);
      expect(denied.body).toMatchObject({ status: 403, detail: 'Access Denied.' });
      await agent.get('/admin').expect(403);

      const admin = email();
      await createUser(admin, ['ROLE_USER', 'ROLE_ADMIN']);
      const { agent: adminAgent } = await loggedIn(admin);
      const page = await adminAgent.get('/admin').expect(200);
      expect(text(page.text, 'h1')).toBe('Back office');
      expect(Number(text(page.text, '#figure-users'))).toBeGreaterThanOrEqual(2);
      await request(server()).get('/admin').expect(302).expect('Location', '/login');
    });

    it('forgets a session whose user was deleted', async () => {
      const address = email();
      const userId = await createUser(address);
      const { agent } = await loggedIn(address);
      await shop.deleteFrom('users').where('id', '=', userId).execute();
      await agent.get('/account').expect(302).expect('Location', '/login');
    });
  });

  describe('remember-me', () => {
    it('sets a persistent cookie at login, logs a new browser in with it, and rotates it at each use', async () => {
      const address = email();
      const userId = await createUser(address);
      const { res } = await loggedIn(address, { _remember_me: 'on' });
      expect(cookie(res, 'REMEMBERME')).toMatch(
        /^REMEMBERME=[A-Za-z0-9_-]{22}%3A[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/,
      );
      const first = decodeURIComponent(cookieValue(res, 'REMEMBERME')!);
      const stored = await shop.selectFrom('remember_me_tokens').selectAll().where('user_id', '=', userId).execute();
      expect(stored).toHaveLength(1);
      expect(stored[0].token_hash).not.toBe(first.split(':')[1]);

      // The browser was closed: only the remember-me cookie is left.
      const back = await request(server())
        .get('/account')
        .set('Cookie', `REMEMBERME=${encodeURIComponent(first)}`)
        .expect(200);
      expect(text(back.text, '#account-email')).toBe(address);
      const second = decodeURIComponent(cookieValue(back, 'REMEMBERME')!);
      expect(second.split(':')[0]).toBe(first.split(':')[0]);
      expect(second).not.toBe(first);
      expect(cookieValue(back, 'SHOPSESSID')).toMatch(/^[A-Za-z0-9_-]{43}$/);

      // The old value again once its grace period is over: the cookie was copied. Every remember-me login of the
      // user is revoked (test/remember-me.e2e-spec.ts tries the grace period itself).
      await shop
        .updateTable('remember_me_tokens')
        .set({ rotated_at: new Date(Date.now() - 61_000).toISOString() })
        .where('user_id', '=', userId)
        .execute();
      const stolen = await request(server())
        .get('/account')
        .set('Cookie', `REMEMBERME=${encodeURIComponent(first)}`)
        .expect(302);
      expect(cookie(stolen, 'REMEMBERME')).toBe('REMEMBERME=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
      expect(await shop.selectFrom('remember_me_tokens').selectAll().where('user_id', '=', userId).execute()).toEqual(
        [],
      );
      await request(server())
        .get('/account')
        .set('Cookie', `REMEMBERME=${encodeURIComponent(second)}`)
        .expect(302);
    });

    it('forgets the device at logout', async () => {
      const address = email();
      const userId = await createUser(address);
      const { agent, res } = await loggedIn(address, { _remember_me: 'on' });
      const remembered = cookieValue(res, 'REMEMBERME')!;
      const account = await agent.get('/account').expect(200);
      const out = await agent
        .post('/logout')
        .type('form')
        .send({ _csrf_token: csrf(account.text, '/logout') })
        .expect(303);
      expect(cookie(out, 'REMEMBERME')).toBe('REMEMBERME=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
      expect(await shop.selectFrom('remember_me_tokens').selectAll().where('user_id', '=', userId).execute()).toEqual(
        [],
      );
      await request(server()).get('/account').set('Cookie', `REMEMBERME=${remembered}`).expect(302);
    });

    it('ignores a malformed remember-me cookie (and clears it)', async () => {
      const res = await request(server()).get('/account').set('Cookie', 'REMEMBERME=garbage%00%zz').expect(302);
      expect(cookie(res, 'REMEMBERME')).toBe('REMEMBERME=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
    });
  });

  describe('JSON API', () => {
    it('logs in with JSON and answers who is logged in; wrong credentials are a 401', async () => {
      const address = email();
      const userId = await createUser(address);
      const agent = request.agent(server());
      const bad = await agent
        .post('/api/login')
        .set('Accept', 'application/json')
        .send({ email: address, password: 'nope' })
        .expect(401);
      expect(bad.body).toMatchObject({ status: 401, detail: 'Invalid credentials.' });
      await agent.post('/api/login').send({ email: address }).expect(400);
      const ok = await agent.post('/api/login').send({ email: address, password: PASSWORD }).expect(200);
      expect(ok.body).toEqual({ user: { id: userId, email: address, roles: ['ROLE_USER'] } });
      const me = await agent.get('/api/account').expect(200);
      expect(me.body).toEqual({ user: { id: userId, email: address, roles: ['ROLE_USER'] } });
      await agent.post('/api/logout').expect(403);
      const { token } = (await agent.get('/api/csrf-token/logout').expect(200)).body;
      await agent.post('/api/logout').set('X-CSRF-Token', token).expect(204);
      await agent.get('/api/csrf-token/admin').set('Accept', 'application/json').expect(404);
      await agent.get('/api/account').expect(401);
    });
  });

  describe('in the profiler', () => {
    it('shows the user, the firewall decision and the access decisions in the Security panel, and the security listeners in order', async () => {
      const address = email();
      await createUser(address);
      const { agent } = await loggedIn(address);
      const res = await agent.get('/admin').expect(403);
      const profile = await storedProfile(app, res.headers['x-debug-token']);
      expect(profile.data.security).toMatchObject({
        user: { email: address, roles: ['ROLE_USER'] },
        firewall: { authenticatedBy: 'session', outcome: 'granted' },
        decisions: [
          { attribute: 'ROLE_USER', granted: true },
          { attribute: 'ROLE_ADMIN', subject: 'AdminController::dashboard', granted: false },
        ],
      });
      const panel = await request(server())
        .get(`/_profiler/${res.headers['x-debug-token']}?panel=security`)
        .expect(200);
      const html = parse(panel.text);
      expect(
        html.querySelectorAll('table.data tbody tr').map((tr) => tr.querySelectorAll('td').map((td) => td.text)),
      ).toEqual(
        expect.arrayContaining([
          ['GRANTED', 'ROLE_USER', 'path /admin'],
          ['DENIED', 'ROLE_ADMIN', 'AdminController::dashboard'],
        ]),
      );
      expect(panel.text).toContain(address);

      const events = (
        profile.data.events as { called: Array<{ event: string; listener: string; priority: number }> }
      ).called.map((c) => `${c.event} ${c.priority} ${c.listener}`);
      expect(events).toEqual(
        expect.arrayContaining([
          'kernel.request 8 FirewallListener::onKernelRequest',
          'kernel.controller 8 CsrfListener::onKernelController',
          'kernel.controller_arguments 0 AccessListener::onControllerArguments',
          'kernel.response 0 ContextListener::onKernelResponse',
          'kernel.response 0 RememberMeListener::onKernelResponse',
        ]),
      );
      const requestOrder = events.filter((e) => e.startsWith('kernel.request'));
      expect(requestOrder.indexOf('kernel.request 128 SessionListener::onKernelRequest')).toBeLessThan(
        requestOrder.indexOf('kernel.request 8 FirewallListener::onKernelRequest'),
      );
    });
  });
});
