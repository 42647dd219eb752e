import { jest } from '@jest/globals';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'node-html-parser';
import request from 'supertest';
import { ShopDb } from '../src/database/shop-db.js';
import { PasswordHasher } from '../src/security/password-hasher.js';
import { UserRepository } from '../src/users/user.repository.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';
import { describeOnEachDatabase, type TestDatabase } from './support/shop-databases.js';

const PASSWORD = 'correct horse battery';
const LOGIN_429 = 'Too many failed login attempts, please try again in 1 minute.';
const text = (html: string, selector: string): string =>
  (parse(html).querySelector(selector)?.text ?? '').replace(/\s+/g, ' ').trim();
const csrf = (html: string): string => parse(html).querySelector('input[name="_csrf_token"]')!.getAttribute('value')!;
const accountKey = (email: string, client: string) =>
  `login_account:${createHash('sha256').update(email).digest('base64url')}:${client}`;

describeOnEachDatabase('Login throttling', 'throttling', (database) => {
  let app: NestExpressApplication;
  let db: TestDatabase;
  let shop: ShopDb;
  let hasher: PasswordHasher;
  /**
   * The app's environment: the suite's database, X-Forwarded-For believed so that each test is its own client, and
   * those clients allowed debug details (the problem's detail, X-Debug-Token); others get the status's title only.
   */
  const env = (extra: Record<string, string> = {}) => ({
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    TRUSTED_PROXIES: 'loopback',
    PROFILER_ALLOWED_IPS: 'loopback,198.51.100.0/24,2001:db8::/32',
    ...extra,
  });

  beforeAll(async () => {
    db = await database();
    app = await createTestApp({ env: env() });
    shop = app.get(ShopDb);
    hasher = app.get(PasswordHasher);
  });

  afterAll(async () => {
    await app?.close();
    await db?.teardown?.();
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  let n = 0;
  const server = () => app.getHttpServer();
  /** A client address of its own per call (documentation ranges). */
  const client = () => `198.51.100.${++n % 250}`;
  async function user(): Promise<string> {
    const address = `throttled${++n}@example.com`;
    await app.get(UserRepository).create(address, await hasher.hash(PASSWORD));
    return address;
  }
  const apiLogin = (from: string, email: string, password: string, target = server()) =>
    request(target).post('/api/login').set('X-Forwarded-For', from).send({ email, password });
  const counter = (key: string) => shop.selectFrom('rate_limits').selectAll().where('key', '=', key).executeTakeFirst();
  const expect429 = (res: request.Response, detail = LOGIN_429) => {
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 429, title: 'Too Many Requests', detail });
  };

  describe('per account and client (5 failed attempts a minute)', () => {
    it('answers the sixth attempt with a 429 and Retry-After, even with the right password, without hashing anything', async () => {
      const email = await user();
      const from = client();
      for (let i = 0; i < 5; i++) await apiLogin(from, email, `wrong ${i}`).expect(401);
      const verify = jest.spyOn(hasher, 'verify');
      const burn = jest.spyOn(hasher, 'burn');
      for (const password of ['wrong again', PASSWORD]) expect429(await apiLogin(from, email, password));
      expect(verify).not.toHaveBeenCalled();
      expect(burn).not.toHaveBeenCalled();
      const row = await counter(accountKey(email, from));
      expect(row!.points).toBeGreaterThanOrEqual(5);
      expect(Number(row!.expire)).toBeGreaterThan(Date.now());
      expect(Number(row!.expire)).toBeLessThanOrEqual(Date.now() + 60_000);
    });

    it('throttles an unknown email the same way (nothing tells whether it has an account)', async () => {
      const from = client();
      for (let i = 0; i < 5; i++) await apiLogin(from, 'nobody-here@example.com', 'guess').expect(401);
      expect429(await apiLogin(from, 'nobody-here@example.com', 'guess'));
    });

    it('counts the account per client: another client logs in, the same client may still try another account', async () => {
      const email = await user();
      const other = await user();
      const from = client();
      for (let i = 0; i < 5; i++) await apiLogin(from, email, 'wrong').expect(401);
      expect429(await apiLogin(from, email, PASSWORD));
      await apiLogin(client(), email, PASSWORD).expect(200);
      await apiLogin(from, other, 'wrong').expect(401);
      await apiLogin(from, other, PASSWORD).expect(200);
    });

    it('counts the address as the login compares it (case and spaces aside)', async () => {
      const email = await user();
      const from = client();
      for (const variant of [
        email,
        email.toUpperCase(),
        ` ${email}`,
        `${email} `,
        email.replace('throttled', 'THROTTLED'),
      ]) {
        await apiLogin(from, variant, 'wrong').expect(401);
      }
      expect429(await apiLogin(from, email, PASSWORD));
    });

    it('answers 30 wrong passwords sent at once with exactly 5 401s and 25 429s, then refuses the right one too', async () => {
      for (let round = 0; round < 3; round++) {
        const email = await user();
        const from = client();
        const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => apiLogin(from, email, `wrong ${i}`)));
        const statuses = answers.map((r) => r.status).sort();
        expect(statuses.filter((s) => s === 401)).toHaveLength(5);
        expect(statuses.filter((s) => s === 429)).toHaveLength(25);
        for (const res of answers.filter((r) => r.status === 429)) expect429(res);
        expect429(await apiLogin(from, email, PASSWORD));
      }
    });

    it('counts failures only: a successful login starts the count again', async () => {
      const email = await user();
      const from = client();
      for (let i = 0; i < 4; i++) await apiLogin(from, email, 'wrong').expect(401);
      await apiLogin(from, email, PASSWORD).expect(200);
      expect(await counter(accountKey(email, from))).toBeUndefined();
      for (let i = 0; i < 5; i++) await apiLogin(from, email, 'wrong').expect(401);
      expect429(await apiLogin(from, email, 'wrong'));
    });

    it('lets the client try again when the window ends, with Retry-After counting down to it', async () => {
      const email = await user();
      const from = client();
      for (let i = 0; i < 5; i++) await apiLogin(from, email, 'wrong').expect(401);
      await shop
        .updateTable('rate_limits')
        .set({ expire: Date.now() + 9_000 })
        .where('key', '=', accountKey(email, from))
        .execute();
      const soon = await apiLogin(from, email, PASSWORD).expect(429);
      expect(Number(soon.headers['retry-after'])).toBeGreaterThanOrEqual(5); // a loaded machine may take a while
      expect(Number(soon.headers['retry-after'])).toBeLessThanOrEqual(9);
      await shop
        .updateTable('rate_limits')
        .set({ expire: Date.now() - 1 })
        .where('key', '=', accountKey(email, from))
        .execute();
      await apiLogin(from, email, PASSWORD).expect(200);
    });
  });

  describe('per client (25 failed attempts a minute, whatever the account)', () => {
    it('refuses a client that tried 25 accounts, for every account, and leaves other clients alone', async () => {
      const from = client();
      for (let i = 0; i < 25; i++) await apiLogin(from, `spray${i}-${n}@example.com`, 'Winter2026!').expect(401);
      const email = await user();
      expect429(await apiLogin(from, email, PASSWORD));
      await apiLogin(client(), email, PASSWORD).expect(200);
      const row = await counter(`login_client:${from}`);
      expect(row!.points).toBeGreaterThanOrEqual(25);
    });

    it('counts an IPv6 client by its /64: new addresses in the same network do not reset the count', async () => {
      const email = await user();
      const network = `2001:db8:${(++n).toString(16)}:1`;
      for (let i = 0; i < 5; i++) await apiLogin(`${network}::${(i + 1).toString(16)}`, email, 'wrong').expect(401);
      expect429(await apiLogin(`${network}:ffff:ffff:ffff:fff0`, email, PASSWORD));
      await apiLogin(`2001:db8:${n.toString(16)}:2::1`, email, PASSWORD).expect(200);
    });
  });

  describe('the login form', () => {
    async function formLogin(agent: ReturnType<typeof request.agent>, from: string, email: string, password: string) {
      const page = await agent.get('/login').set('X-Forwarded-For', from).expect(200);
      return agent
        .post('/login')
        .set('X-Forwarded-For', from)
        .type('form')
        .send({ _csrf_token: csrf(page.text), email, password });
    }

    it('shows the form again with 429, Retry-After and the reason, sharing the count with the JSON login', async () => {
      const email = await user();
      const from = client();
      const agent = request.agent(server());
      for (let i = 0; i < 3; i++) await formLogin(agent, from, email, 'wrong').then((r) => expect(r.status).toBe(303));
      for (let i = 0; i < 2; i++) await apiLogin(from, email, 'wrong').expect(401);
      const res = await formLogin(agent, from, email, PASSWORD);
      expect(res.status).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(text(res.text, 'h1')).toBe('Log in');
      expect(text(res.text, '.flash.error[role="alert"]')).toBe(LOGIN_429);
      expect(parse(res.text).querySelector('input[name="email"]')?.getAttribute('value')).toBe(email);
      expect(csrf(res.text)).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await agent.get('/account').set('X-Forwarded-For', from).expect(302);
      expect429(await apiLogin(from, email, PASSWORD));
    });
  });

  describe('registration', () => {
    async function register(from: string, email: string) {
      const agent = request.agent(server());
      const page = await agent.get('/register').set('X-Forwarded-For', from).expect(200);
      return agent
        .post('/register')
        .set('X-Forwarded-For', from)
        .type('form')
        .send({ _csrf_token: csrf(page.text), email, password: PASSWORD, password_confirmation: PASSWORD });
    }
    /** What a throttled client sees, without what it sent itself (its address, its token) or the debug toolbar. */
    const answer = (res: request.Response, email: string) => ({
      status: res.status,
      retryAfter: res.headers['retry-after'] !== undefined,
      page: (parse(res.text).querySelector('main')?.innerHTML ?? '')
        .replace(/name="_csrf_token" value="[^"]*"/, '')
        .replaceAll(email, 'EMAIL'),
    });

    it("tells a throttled client nothing about an address: the same 429 for an account's address and a free one", async () => {
      const existing = await user();
      const free = `free${++n}@example.com`;
      const from = client();
      for (let i = 0; i < 25; i++) await apiLogin(from, `spray${i}-${n}@example.com`, 'guess').expect(401);
      const [taken, untaken] = [await register(from, existing), await register(from, free)];
      expect(answer(taken, existing)).toEqual(answer(untaken, free));
      expect(taken.status).toBe(429);
      expect(text(taken.text, '.flash.error[role="alert"]')).toBe('Too many attempts, please try again in 1 minute.');
      expect(await shop.selectFrom('users').select('id').where('email', '=', free).executeTakeFirst()).toBeUndefined();
      // Another client registers as before (and learns what registration always told).
      expect((await register(client(), free)).status).toBe(303);
      const again = await register(client(), existing);
      expect(again.status).toBe(400);
      expect(text(again.text, 'ul.violations')).toBe('An account with this email address already exists.');
    });

    it('refuses the registration of an address whose logins this client has run out of, whether it has an account or not', async () => {
      const existing = await user();
      const free = `free${++n}@example.com`;
      const from = client();
      for (const email of [existing, free])
        for (let i = 0; i < 5; i++) await apiLogin(from, email, 'wrong').expect(401);
      const [taken, untaken] = [await register(from, existing), await register(from, free)];
      expect(answer(taken, existing)).toEqual(answer(untaken, free));
      expect(taken.status).toBe(429);
    });

    it('counts registrations as attempts of their client: probing addresses runs out too', async () => {
      const from = client();
      const answers: number[] = [];
      for (let i = 0; i < 26; i++) answers.push((await register(from, `probe${i}-${n}@example.com`)).status);
      expect(answers.slice(0, 25)).toEqual(Array(25).fill(303));
      expect(answers[25]).toBe(429);
    });
  });

  describe('in the logs and the profiler', () => {
    it('logs a WARNING on the security channel and shows the refusal in the Security panel', async () => {
      const email = await user();
      const from = client();
      for (let i = 0; i < 5; i++) await apiLogin(from, email, 'wrong').expect(401);
      const res = await apiLogin(from, email, PASSWORD).expect(429);
      const profile = await storedProfile(app, res.headers['x-debug-token']);
      const entries = (
        profile.data.logs as {
          entries: { channel: string; level: number; message: string; context: Record<string, unknown> }[];
        }
      ).entries;
      const warning = entries.find((e) => e.channel === 'security' && e.message.startsWith('Login throttling'));
      expect(warning).toMatchObject({
        message:
          'Login throttling: too many attempts for "{email}" from {client}, the login was refused for {retryAfter} s.',
        context: { email, client: from },
      });
      expect(profile.data.security).toMatchObject({ throttled: { action: 'login', scope: 'account' } });
      const panel = await request(server())
        .get(`/_profiler/${res.headers['x-debug-token']}?panel=security`)
        .expect(200);
      expect(panel.text).toContain(
        'login refused (429): no attempt left for this account from this client, Retry-After',
      );
    });
  });

  describe('shared between instances', () => {
    it('counts the attempts every instance sees in the one database', async () => {
      let dir: string | undefined;
      let url = db.url;
      if (!url) {
        // In-memory SQLite is one process's: two instances share a file instead.
        dir = mkdtempSync(join(tmpdir(), 'shopkernel-throttling-'));
        url = `sqlite:${join(dir, 'shop.sqlite')}`;
      }
      const first = await createTestApp({ env: { ...env(), DATABASE_URL: url } });
      const second = await createTestApp({ env: { ...env(), DATABASE_URL: url } });
      try {
        const email = `shared${++n}@example.com`;
        await first.get(UserRepository).create(email, await hasher.hash(PASSWORD));
        const from = client();
        for (let i = 0; i < 5; i++)
          await apiLogin(from, email, 'wrong', (i % 2 ? first : second).getHttpServer()).expect(401);
        for (const instance of [first, second])
          expect429(await apiLogin(from, email, PASSWORD, instance.getHttpServer()));
      } finally {
        await first.close();
        await second.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});

describe('Login throttling configuration (e2e)', () => {
  let app: NestExpressApplication | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('takes LOGIN_THROTTLING_MAX_ATTEMPTS and LOGIN_THROTTLING_INTERVAL', async () => {
    app = await createTestApp({ env: { LOGIN_THROTTLING_MAX_ATTEMPTS: '2', LOGIN_THROTTLING_INTERVAL: '10m' } });
    const login = () =>
      request(app!.getHttpServer()).post('/api/login').send({ email: 'a@example.com', password: 'wrong' });
    await login().expect(401);
    await login().expect(401);
    const res = await login().expect(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(540);
    expect(res.body.detail).toBe('Too many failed login attempts, please try again in 10 minutes.');
  });

  it.each([
    ['LOGIN_THROTTLING_MAX_ATTEMPTS', '0'],
    ['LOGIN_THROTTLING_MAX_ATTEMPTS', 'five'],
    ['LOGIN_THROTTLING_INTERVAL', '0'],
    ['LOGIN_THROTTLING_INTERVAL', '1d'],
  ])('refuses to start with %s=%s, naming the variable', async (name, value) => {
    await expect(createTestApp({ env: { [name]: value } })).rejects.toThrow(new RegExp(`^${name}: must be `));
  });
});
