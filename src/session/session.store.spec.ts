import { AppConfig } from '../config/app-config.js';
import type { ShopDb } from '../database/shop-db.js';
import { SessionStore } from './session.store.js';
import { memoryShopDb } from '../database/testing/memory-shop-db.js';

const A = 'a'.repeat(43);
const B = 'b'.repeat(43);
const C = 'c'.repeat(43);
const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe('SessionStore on SQLite', () => {
  let db: ShopDb;
  let store: SessionStore;
  let userId: number;

  beforeEach(async () => {
    db = await memoryShopDb();
    store = new SessionStore(db, AppConfig.fromEnv({ APP_ENV: 'test', SESSION_LIFETIME: '1h' }));
    ({ id: userId } = await db
      .insertInto('users')
      .values({ email: 'ann@example.com', password_hash: 'x' })
      .returning('id')
      .executeTakeFirstOrThrow());
  });

  afterEach(() => db.destroy());

  const row = (id: string) => db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();

  it('saves a session and loads it back until it expires', async () => {
    expect(store.lifetimeSeconds).toBe(3600);
    await expect(store.save(A, { locale: 'fr', cart: { n: 2 } }, userId, T0)).resolves.toBe('2030-01-01T01:00:00.000Z');
    expect(await row(A)).toMatchObject({
      data: '{"locale":"fr","cart":{"n":2}}',
      user_id: userId,
      expires_at: '2030-01-01T01:00:00.000Z',
      created_at: T0.toISOString(),
      updated_at: T0.toISOString(),
    });
    await expect(store.load(A, at(3599))).resolves.toEqual({
      attributes: { locale: 'fr', cart: { n: 2 } },
      userId,
      expiresAt: '2030-01-01T01:00:00.000Z',
    });
    // Expired at its expiry, not a millisecond later.
    await expect(store.load(A, at(3600))).resolves.toBeNull();
    await expect(store.load(B, T0)).resolves.toBeNull();
  });

  it('replaces a session saved again, keeping when it was created', async () => {
    await store.save(A, { locale: 'fr' }, null, T0);
    await expect(store.save(A, { locale: 'de' }, userId, at(600))).resolves.toBe('2030-01-01T01:10:00.000Z');
    expect(await row(A)).toMatchObject({
      data: '{"locale":"de"}',
      user_id: userId,
      created_at: T0.toISOString(),
      updated_at: at(600).toISOString(),
    });
    expect(await db.selectFrom('sessions').select('id').execute()).toHaveLength(1);
  });

  it('renews the expiry of a session without touching its data', async () => {
    await store.save(A, { locale: 'fr' }, null, T0);
    await expect(store.touch(A, at(1800))).resolves.toBe('2030-01-01T01:30:00.000Z');
    expect(await row(A)).toMatchObject({
      data: '{"locale":"fr"}',
      expires_at: '2030-01-01T01:30:00.000Z',
      updated_at: at(1800).toISOString(),
    });
    await expect(store.load(A, at(3600))).resolves.toMatchObject({ attributes: { locale: 'fr' } });
  });

  it('destroys one session, and every session of a user but the one kept', async () => {
    await store.save(A, {}, userId, T0);
    await store.save(B, {}, userId, T0);
    await store.save(C, { other: true }, null, T0);
    await store.destroy(C);
    expect(await row(C)).toBeUndefined();
    await expect(store.destroyForUser(userId, B)).resolves.toBe(1);
    expect((await db.selectFrom('sessions').select('id').execute()).map((r) => r.id)).toEqual([B]);
    await expect(store.destroyForUser(userId)).resolves.toBe(1);
    await expect(store.destroyForUser(userId)).resolves.toBe(0);
  });

  it('removes the expired sessions only', async () => {
    await store.save(A, {}, null, T0);
    await store.save(B, {}, null, at(60));
    await expect(store.collectGarbage(at(3600))).resolves.toBe(1);
    expect((await db.selectFrom('sessions').select('id').execute()).map((r) => r.id)).toEqual([B]);
  });

  it.each([['not json'], ['[1,2]'], ['null'], ['"text"']])(
    'reads a row whose data is %s as an empty session',
    async (data) => {
      await store.save(A, {}, null, T0);
      await db.updateTable('sessions').set({ data }).where('id', '=', A).execute();
      await expect(store.load(A, T0)).resolves.toEqual({
        attributes: {},
        userId: null,
        expiresAt: '2030-01-01T01:00:00.000Z',
      });
    },
  );

  it("goes with its user's account", async () => {
    await store.save(A, { locale: 'fr' }, userId, T0);
    await db.deleteFrom('users').where('id', '=', userId).execute();
    await expect(store.load(A, T0)).resolves.toBeNull();
  });
});
