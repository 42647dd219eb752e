import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHash } from 'node:crypto';
import request from 'supertest';
import { ShopDb } from '../src/database/shop-db.js';
import { PasswordHasher } from '../src/security/password-hasher.js';
import { RememberMeService } from '../src/security/remember-me/remember-me.service.js';
import { UserRepository } from '../src/users/user.repository.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';
import { describeOnEachDatabase, type TestDatabase } from './support/shop-databases.js';

const CLEARED = 'REMEMBERME=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax';
const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
const setCookies = (res: request.Response): string[] => ([] as string[]).concat(res.headers['set-cookie'] ?? []);
const rememberMeSet = (res: request.Response): string | undefined =>
  setCookies(res).find((c) => c.startsWith('REMEMBERME='));
const rotatedValue = (res: request.Response): string | undefined => {
  const set = rememberMeSet(res);
  return set && set !== CLEARED ? decodeURIComponent(set.split(';')[0].slice('REMEMBERME='.length)) : undefined;
};

describeOnEachDatabase('Remember-me with requests sent together', 'remember', (database) => {
  let app: NestExpressApplication;
  let db: TestDatabase;
  let shop: ShopDb;
  let tokens: RememberMeService;

  beforeAll(async () => {
    db = await database();
    app = await createTestApp(db.url ? { env: { DATABASE_URL: db.url } } : {});
    shop = app.get(ShopDb);
    tokens = app.get(RememberMeService);
  });

  afterAll(async () => {
    await app?.close();
    await db?.teardown?.();
  });

  let n = 0;
  const server = () => app.getHttpServer();
  const series = (cookie: string) => cookie.split(':')[0];
  const rows = (userId: number) =>
    shop.selectFrom('remember_me_tokens').selectAll().where('user_id', '=', userId).orderBy('series').execute();
  const account = (cookie: string) =>
    request(server())
      .get('/account')
      .set('Cookie', `REMEMBERME=${encodeURIComponent(cookie)}`);
  /** A user remembered on two devices: the cookie under test and another one that theft would revoke too. */
  async function rememberedUser(): Promise<{ userId: number; address: string; cookie: string; otherDevice: string }> {
    const address = `remembered${++n}@example.com`;
    const user = await app
      .get(UserRepository)
      .create(address, await app.get(PasswordHasher).hash('correct horse battery'));
    return {
      userId: user!.id,
      address,
      cookie: await tokens.create(user!.id),
      otherDevice: await tokens.create(user!.id),
    };
  }
  /** Moves the series' last rotation this many seconds into the past. */
  const rotatedAgo = (cookie: string, seconds: number) =>
    shop
      .updateTable('remember_me_tokens')
      .set({ rotated_at: new Date(Date.now() - seconds * 1000).toISOString() })
      .where('series', '=', series(cookie))
      .execute();

  for (const parallel of [2, 3, 4, 5]) {
    it(`logs in all ${parallel} requests sent at once with the same cookie, five times over, and rotates the series once`, async () => {
      for (let round = 0; round < 5; round++) {
        const { userId, address, cookie, otherDevice } = await rememberedUser();
        const responses = await Promise.all(Array.from({ length: parallel }, () => account(cookie)));
        expect(responses.map((r) => r.status)).toEqual(Array(parallel).fill(200));
        for (const res of responses) expect(res.text).toContain(address);
        // One response carries the new token; the others leave the browser's cookie alone (never clear it).
        const rotated = responses.map(rotatedValue).filter((v): v is string => v !== undefined);
        expect(rotated).toHaveLength(1);
        expect(responses.filter((r) => rememberMeSet(r) === CLEARED)).toHaveLength(0);
        expect(series(rotated[0])).toBe(series(cookie));
        const stored = await rows(userId);
        expect(stored.map((r) => r.series).sort()).toEqual([series(cookie), series(otherDevice)].sort());
        const row = stored.find((r) => r.series === series(cookie))!;
        expect(row.token_hash).toBe(sha256(rotated[0].split(':')[1]));
        expect(row.previous_token_hash).toBe(sha256(cookie.split(':')[1]));
        expect(Date.now() - Date.parse(row.rotated_at!)).toBeLessThan(30_000);
        // Both values keep working within the grace period, without another rotation.
        for (const value of [rotated[0], cookie]) {
          const again = await account(value).expect(200);
          expect(rememberMeSet(again)).toBeUndefined();
        }
        expect((await rows(userId)).find((r) => r.series === series(cookie))!.token_hash).toBe(row.token_hash);
      }
    });
  }

  it('rotates exactly once when the service itself is asked concurrently (the conditional update), on every try', async () => {
    for (let round = 0; round < 10; round++) {
      const { userId, cookie } = await rememberedUser();
      const outcomes = await Promise.all(Array.from({ length: 5 }, () => tokens.consume(cookie)));
      expect(outcomes.map((o) => o.kind)).toEqual(Array(5).fill('valid'));
      const cookies = outcomes.map((o) => (o.kind === 'valid' ? o.cookie : undefined)).filter((c) => c !== undefined);
      expect(cookies).toHaveLength(1);
      const row = (await rows(userId)).find((r) => r.series === series(cookie))!;
      expect(row.token_hash).toBe(sha256(cookies[0]!.split(':')[1]));
      expect(row.previous_token_hash).toBe(sha256(cookie.split(':')[1]));
    }
  });

  it('takes the replaced token for a stolen cookie once the grace period is over: every series of the user revoked', async () => {
    const { userId, cookie, otherDevice } = await rememberedUser();
    const next = rotatedValue(await account(cookie).expect(200))!;
    await rotatedAgo(cookie, 61);
    const stolen = await account(cookie).expect(302);
    expect(stolen.headers.location).toBe('/login');
    expect(rememberMeSet(stolen)).toBe(CLEARED);
    expect(await rows(userId)).toEqual([]);
    for (const value of [next, otherDevice]) await account(value).expect(302);
    const profile = await storedProfile(app, stolen.headers['x-debug-token']);
    const entries = (
      profile.data.logs as { entries: { channel: string; message: string; context: { userId?: number } }[] }
    ).entries;
    expect(entries.filter((e) => e.channel === 'security').map((e) => [e.message, e.context.userId])).toContainEqual([
      'A remember-me cookie was used twice (stolen?): every remember-me login of user {userId} was revoked.',
      userId,
    ]);
  });

  it('rotates the current token again once the grace period is over, and then the token before it is stolen', async () => {
    const { userId, cookie } = await rememberedUser();
    const second = rotatedValue(await account(cookie).expect(200))!;
    await rotatedAgo(cookie, 61);
    const third = rotatedValue(await account(second).expect(200))!;
    expect(third).not.toBe(second);
    const row = (await rows(userId)).find((r) => r.series === series(cookie))!;
    expect(row.previous_token_hash).toBe(sha256(second.split(':')[1]));
    // Within the new grace period: the token just replaced logs in, the one before it is a copied cookie.
    await account(second).expect(200);
    await account(cookie).expect(302);
    expect(await rows(userId)).toEqual([]);
  });

  it('never takes a token the series has not had for a theft within the grace period either: only the previous one', async () => {
    const { userId, cookie } = await rememberedUser();
    await account(cookie).expect(200);
    const forged = `${series(cookie)}:${'A'.repeat(43)}`;
    const res = await account(forged).expect(302);
    expect(rememberMeSet(res)).toBe(CLEARED);
    expect(await rows(userId)).toEqual([]);
  });

  it('keeps an expired series out, grace period or not', async () => {
    const { userId, cookie } = await rememberedUser();
    await account(cookie).expect(200);
    await shop
      .updateTable('remember_me_tokens')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('series', '=', series(cookie))
      .execute();
    const res = await account(cookie).expect(302);
    expect(rememberMeSet(res)).toBe(CLEARED);
    expect((await rows(userId)).map((r) => r.series)).not.toContain(series(cookie));
  });
});
