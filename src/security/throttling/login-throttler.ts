import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import {
  RateLimiterPostgres,
  RateLimiterRes,
  RateLimiterSQLite,
  type RateLimiterStoreAbstract,
} from 'rate-limiter-flexible';
import { AppConfig } from '../../config/app-config.js';
import { shopDbDriver } from '../../database/database.factory.js';
import { ShopDb } from '../../database/shop-db.js';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import { throttledClient } from './client-address.js';

/** Whose attempts ran out: the account from this client, or the client whatever the account. */
export type ThrottleScope = 'account' | 'client';

export interface Throttled {
  scope: ThrottleScope;
  /** Seconds until the window that refused the attempt ends (Retry-After). */
  retryAfter: number;
}

const TABLE = 'rate_limits';
const PRUNE_EVERY_MS = 5 * 60_000;

/**
 * Login throttling (Symfony's login_throttling with its DefaultLoginRateLimiter), counted by rate-limiter-flexible
 * in the shop's own database, so that every instance shares the counts: `maxAttempts` failed logins per window for
 * one account from one client, five times as many for one client whatever the account. An attempt takes its point
 * before the password is checked, atomically, so attempts sent together cannot all slip under the limit; a login
 * that succeeds gives its points back (only failures count), and so does an attempt that was refused.
 */
@Injectable()
export class LoginThrottler implements OnModuleInit, OnModuleDestroy {
  private perAccount!: RateLimiterStoreAbstract;
  private perClient!: RateLimiterStoreAbstract;
  private exclusive: <T>(task: () => Promise<T>) => Promise<T> = (task) => task();
  private pruning: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: ShopDb,
    private readonly config: AppConfig,
    private readonly logger: KernelLogger,
  ) {}

  async onModuleInit(): Promise<void> {
    const { maxAttempts, intervalSeconds } = this.config.security.loginThrottling;
    const driver = await shopDbDriver(this.db);
    // The table comes from a migration; the library's own timer would leave a failed deletion unhandled.
    const store = { tableName: TABLE, tableCreated: true, clearExpiredByTimeout: false, duration: intervalSeconds };
    const limiter = (keyPrefix: string, points: number): RateLimiterStoreAbstract =>
      driver.dialect === 'sqlite'
        ? new RateLimiterSQLite({
            ...store,
            keyPrefix,
            points,
            storeClient: driver.database,
            storeType: 'better-sqlite3',
          })
        : new RateLimiterPostgres({ ...store, keyPrefix, points, storeClient: driver.pool, storeType: 'pool' });
    this.perAccount = limiter('login_account', maxAttempts);
    this.perClient = limiter('login_client', maxAttempts * 5);
    // SQLite has one connection: the library's statements wait for it like Kysely's, never landing inside a
    // transaction another request has open on it.
    if (driver.dialect === 'sqlite') this.exclusive = (task) => this.db.connection().execute(task);
    this.pruning = setInterval(() => void this.prune(), PRUNE_EVERY_MS).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.pruning);
  }

  /** Takes a login attempt for this email from this client; what refused it when attempts ran out. */
  async attempt(email: string, ip: string): Promise<Throttled | null> {
    const keys = { account: accountKey(email, ip), client: throttledClient(ip) };
    const [account, client] = await Promise.allSettled([
      this.consume(this.perAccount, keys.account),
      this.consume(this.perClient, keys.client),
    ]);
    const refused = [refusal('account', account), refusal('client', client)].filter((r): r is Throttled => r !== null);
    if (refused.length === 0) return null;
    if (account.status === 'fulfilled') await this.exclusive(() => this.perAccount.reward(keys.account, 1));
    if (client.status === 'fulfilled') await this.exclusive(() => this.perClient.reward(keys.client, 1));
    return refused.reduce((longest, r) => (r.retryAfter > longest.retryAfter ? r : longest));
  }

  /** The attempt succeeded: the account's count from this client starts again, the client's point is given back. */
  async succeeded(email: string, ip: string): Promise<void> {
    await this.exclusive(() => this.perAccount.delete(accountKey(email, ip)));
    await this.exclusive(() => this.perClient.reward(throttledClient(ip), 1));
  }

  /**
   * Takes a registration attempt for this address from this client from the same counts as a login (kept when it
   * succeeds: a registration says whether the address had an account): a client that may not try passwords may
   * not ask about addresses either.
   */
  async registration(email: string, ip: string): Promise<Throttled | null> {
    return this.attempt(email, ip);
  }

  /** Deletes the counters whose window has ended (the library resets them on use; these are never used again). */
  async prune(): Promise<void> {
    try {
      await this.db.deleteFrom(TABLE).where('expire', '<', Date.now()).execute();
    } catch (error) {
      this.logger.channel('security').warning('Expired login throttling counters could not be deleted: {message}', {
        message: (error as Error).message,
      });
    }
  }

  private consume(limiter: RateLimiterStoreAbstract, key: string): Promise<RateLimiterRes> {
    return this.exclusive(() => limiter.consume(key, 1));
  }
}

/** One account from one client; the address is hashed so that the table holds no email address. */
function accountKey(email: string, ip: string): string {
  return `${createHash('sha256').update(email.trim().toLowerCase()).digest('base64url')}:${throttledClient(ip)}`;
}

/** A refused consumption as a verdict; a store failure is thrown on (the login cannot be judged without it). */
function refusal(scope: ThrottleScope, result: PromiseSettledResult<RateLimiterRes>): Throttled | null {
  if (result.status === 'fulfilled') return null;
  if (!(result.reason instanceof RateLimiterRes)) throw result.reason;
  return { scope, retryAfter: Math.max(1, Math.ceil(result.reason.msBeforeNext / 1000)) };
}
