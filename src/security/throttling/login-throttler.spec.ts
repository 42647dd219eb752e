import { AppConfig } from '../../config/app-config.js';
import type { ShopDb } from '../../database/shop-db.js';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import { LoginThrottler } from './login-throttler.js';
import { memoryShopDb } from '../../database/testing/memory-shop-db.js';

describe('LoginThrottler on SQLite', () => {
  let db: ShopDb;
  let throttler: LoginThrottler;
  const points = async () =>
    Object.fromEntries(
      (await db.selectFrom('rate_limits').select(['key', 'points']).orderBy('key').execute()).map((r) => [
        r.key.replace(/:[A-Za-z0-9_-]{43}:/, ':<email>:'),
        r.points,
      ]),
    );

  beforeEach(async () => {
    const config = AppConfig.fromEnv({ APP_ENV: 'test', LOGIN_THROTTLING_MAX_ATTEMPTS: '2' });
    db = await memoryShopDb();
    throttler = new LoginThrottler(db, config, new KernelLogger(config));
    await throttler.onModuleInit();
  });

  afterEach(async () => {
    throttler.onModuleDestroy();
    await db.destroy();
  });

  it('takes a point per attempt, refuses beyond the limit and gives back what a refused attempt took', async () => {
    expect(await throttler.attempt('a@example.com', '203.0.113.1')).toBeNull();
    expect(await throttler.attempt('a@example.com', '203.0.113.1')).toBeNull();
    const refused = await throttler.attempt('A@example.com ', '203.0.113.1');
    expect(refused).toEqual({ scope: 'account', retryAfter: expect.any(Number) });
    expect(refused!.retryAfter).toBeGreaterThanOrEqual(59);
    expect(await points()).toEqual({ 'login_account:<email>:203.0.113.1': 3, 'login_client:203.0.113.1': 2 });
  });

  it('clears the account and gives the client its point back at a success', async () => {
    await throttler.attempt('a@example.com', '203.0.113.2');
    await throttler.attempt('a@example.com', '203.0.113.2');
    await throttler.succeeded('a@example.com', '203.0.113.2');
    expect(await points()).toEqual({ 'login_client:203.0.113.2': 1 });
  });

  it('refuses a client for every account once it has used five times the limit', async () => {
    for (let i = 0; i < 10; i++) expect(await throttler.attempt(`user${i}@example.com`, '203.0.113.3')).toBeNull();
    expect(await throttler.attempt('fresh@example.com', '203.0.113.3')).toMatchObject({ scope: 'client' });
    expect(await throttler.registration('fresh@example.com', '203.0.113.3')).toMatchObject({ scope: 'client' });
    expect(await throttler.attempt('fresh@example.com', '203.0.113.4')).toBeNull();
  });

  it('keeps its counts out of a transaction another request has open on the one connection', async () => {
    let begun!: () => void;
    const inside = new Promise<void>((resolve) => (begun = resolve));
    const rolledBack = db.transaction().execute(async (trx) => {
      await trx.selectFrom('users').select('id').execute();
      begun();
      await new Promise((resolve) => setTimeout(resolve, 50));
      throw new Error('rolled back');
    });
    await inside;
    const attempt = throttler.attempt('a@example.com', '203.0.113.5');
    await expect(rolledBack).rejects.toThrow('rolled back');
    await attempt;
    expect(await points()).toEqual({ 'login_account:<email>:203.0.113.5': 1, 'login_client:203.0.113.5': 1 });
  });

  it('prunes the counters whose window has ended', async () => {
    await throttler.attempt('a@example.com', '203.0.113.6');
    await db
      .updateTable('rate_limits')
      .set({ expire: Date.now() - 1 })
      .where('key', 'like', 'login_account:%')
      .execute();
    await throttler.prune();
    expect(await points()).toEqual({ 'login_client:203.0.113.6': 1 });
  });
});
