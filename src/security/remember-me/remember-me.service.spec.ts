import { createHash } from 'node:crypto';
import { AppConfig } from '../../config/app-config.js';
import type { ShopDb } from '../../database/shop-db.js';
import { RememberMeService } from './remember-me.service.js';
import { memoryShopDb } from '../../database/testing/memory-shop-db.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
const split = (cookie: string) => cookie.split(':') as [string, string];

describe('RememberMeService on SQLite', () => {
  let db: ShopDb;
  let service: RememberMeService;
  let ann: number;
  let bob: number;

  beforeEach(async () => {
    db = await memoryShopDb();
    service = new RememberMeService(db, AppConfig.fromEnv({ APP_ENV: 'test', REMEMBER_ME_LIFETIME: '30d' }));
    const users = await db
      .insertInto('users')
      .values([
        { email: 'ann@example.com', password_hash: 'x' },
        { email: 'bob@example.com', password_hash: 'x' },
      ])
      .returning('id')
      .execute();
    [ann, bob] = users.map((u) => u.id);
  });

  afterEach(() => db.destroy());

  const row = (series: string) =>
    db.selectFrom('remember_me_tokens').selectAll().where('series', '=', series).executeTakeFirst();
  const allSeries = async () =>
    (await db.selectFrom('remember_me_tokens').select(['series', 'user_id']).execute()).map((r) => [
      r.series,
      r.user_id,
    ]);
  /** Moves the last rotation back in time, past the 60 s grace period. */
  const ageRotation = (series: string, seconds: number) =>
    db
      .updateTable('remember_me_tokens')
      .set({ rotated_at: new Date(Date.now() - seconds * 1000).toISOString() })
      .where('series', '=', series)
      .execute();

  it('creates a series whose token is stored hashed only', async () => {
    const before = Date.now();
    const cookie = await service.create(ann);
    expect(cookie).toMatch(/^[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]{43}$/);
    const [series, token] = split(cookie);
    const stored = await row(series);
    expect(stored).toMatchObject({
      token_hash: sha256(token),
      previous_token_hash: null,
      rotated_at: null,
      user_id: ann,
    });
    expect(JSON.stringify(stored)).not.toContain(token);
    const lifetime = Date.parse(stored!.expires_at) - before;
    expect(lifetime).toBeGreaterThanOrEqual(30 * 86_400_000);
    expect(lifetime).toBeLessThan(30 * 86_400_000 + 5_000);
    expect(service.lifetimeSeconds).toBe(30 * 86_400);
  });

  it('rotates the token at a use, keeping the one it replaced for the grace period', async () => {
    const cookie = await service.create(ann);
    const [series, token] = split(cookie);
    const outcome = await service.consume(cookie);
    expect(outcome).toEqual({
      kind: 'valid',
      userId: ann,
      cookie: expect.stringMatching(new RegExp(`^${series}:[A-Za-z0-9_-]{43}$`)),
    });
    const next = split((outcome as { cookie: string }).cookie)[1];
    expect(next).not.toBe(token);
    expect(await row(series)).toMatchObject({
      token_hash: sha256(next),
      previous_token_hash: sha256(token),
      rotated_at: expect.any(String),
    });
  });

  it('lets a request sent with the replaced cookie in, without rotating again (tabs restored together)', async () => {
    const cookie = await service.create(ann);
    const rotated = await service.consume(cookie);
    const [series] = split(cookie);
    const afterRotation = await row(series);
    await expect(service.consume(cookie)).resolves.toEqual({ kind: 'valid', userId: ann, cookie: undefined });
    await expect(service.consume((rotated as { cookie: string }).cookie)).resolves.toEqual({
      kind: 'valid',
      userId: ann,
      cookie: undefined,
    });
    expect(await row(series)).toEqual(afterRotation);
  });

  it('rotates the current token again once the grace period is over', async () => {
    const cookie = await service.create(ann);
    const rotated = (await service.consume(cookie)) as { cookie: string };
    await ageRotation(split(cookie)[0], 61);
    const again = await service.consume(rotated.cookie);
    expect(again).toMatchObject({ kind: 'valid', userId: ann, cookie: expect.any(String) });
    expect((again as { cookie: string }).cookie).not.toBe(rotated.cookie);
  });

  it('takes a replaced token after the grace period for a stolen cookie: every series of that user goes', async () => {
    const cookie = await service.create(ann);
    const otherDevice = await service.create(ann);
    const bobs = await service.create(bob);
    await service.consume(cookie);
    await ageRotation(split(cookie)[0], 61);
    await expect(service.consume(cookie)).resolves.toEqual({ kind: 'theft', userId: ann });
    expect(await allSeries()).toEqual([[split(bobs)[0], bob]]);
    await expect(service.consume(otherDevice)).resolves.toEqual({ kind: 'invalid' });
  });

  it('takes a token the series never had for a forgery of a known series', async () => {
    const cookie = await service.create(ann);
    const [series] = split(cookie);
    await expect(service.consume(`${series}:${'A'.repeat(43)}`)).resolves.toEqual({ kind: 'theft', userId: ann });
    expect(await row(series)).toBeUndefined();
  });

  it.each([
    ['malformed', 'not-a-cookie'],
    ['too short a token', `${'s'.repeat(22)}:${'t'.repeat(42)}`],
    ['an unknown series', `${'s'.repeat(22)}:${'t'.repeat(43)}`],
  ])('refuses %s cookie and changes nothing', async (_, cookie) => {
    const kept = await service.create(ann);
    await expect(service.consume(cookie)).resolves.toEqual({ kind: 'invalid' });
    expect(await allSeries()).toEqual([[split(kept)[0], ann]]);
  });

  it('refuses an expired series and forgets it', async () => {
    const cookie = await service.create(ann);
    const [series] = split(cookie);
    await db
      .updateTable('remember_me_tokens')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('series', '=', series)
      .execute();
    await expect(service.consume(cookie)).resolves.toEqual({ kind: 'invalid' });
    expect(await row(series)).toBeUndefined();
  });

  it('revokes the series a cookie names, and ignores a cookie that names none', async () => {
    const cookie = await service.create(ann);
    const other = await service.create(ann);
    await service.revoke('garbage');
    await service.revoke(cookie);
    expect(await allSeries()).toEqual([[split(other)[0], ann]]);
    await expect(service.consume(cookie)).resolves.toEqual({ kind: 'invalid' });
  });
});
