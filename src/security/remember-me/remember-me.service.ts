import { Injectable } from '@nestjs/common';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../../config/app-config.js';
import { ShopDb } from '../../database/shop-db.js';

export type RememberMeOutcome =
  | { kind: 'valid'; userId: number; cookie: string }
  | { kind: 'invalid' }
  /** The series is known but its token is not the current one: the cookie was copied and used elsewhere. */
  | { kind: 'theft'; userId: number };

const COOKIE = /^([A-Za-z0-9_-]{22}):([A-Za-z0-9_-]{43})$/;
const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/**
 * Persistent remember-me tokens (Symfony's PersistentRememberMeHandler, Barry Jaspan's scheme): the cookie holds
 * a series and a token; the database holds the series and the token's hash. Each use replaces the token; a
 * series presented with an old token means the cookie was stolen, and every series of that user is revoked.
 */
@Injectable()
export class RememberMeService {
  readonly lifetimeSeconds: number;

  constructor(
    private readonly db: ShopDb,
    config: AppConfig,
  ) {
    this.lifetimeSeconds = config.security.rememberMeLifetimeSeconds;
  }

  /** A new series for this user and device; returns the cookie value. */
  async create(userId: number): Promise<string> {
    const series = randomBytes(16).toString('base64url');
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    await this.db
      .insertInto('remember_me_tokens')
      .values({ series, token_hash: sha256(token), user_id: userId, last_used_at: now.toISOString(), expires_at: this.expiry(now) })
      .execute();
    return `${series}:${token}`;
  }

  /** Checks a cookie; a valid one is rotated (its new value returned). */
  async consume(cookie: string): Promise<RememberMeOutcome> {
    const match = COOKIE.exec(cookie);
    if (!match) return { kind: 'invalid' };
    const [, series, token] = match;
    const now = new Date();
    const row = await this.db
      .selectFrom('remember_me_tokens')
      .select(['token_hash', 'user_id', 'expires_at'])
      .where('series', '=', series)
      .executeTakeFirst();
    if (!row) return { kind: 'invalid' };
    if (row.expires_at <= now.toISOString()) {
      await this.revoke(cookie);
      return { kind: 'invalid' };
    }
    const presented = Buffer.from(sha256(token));
    const expected = Buffer.from(row.token_hash);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      await this.db.deleteFrom('remember_me_tokens').where('user_id', '=', row.user_id).execute();
      return { kind: 'theft', userId: row.user_id };
    }
    const next = randomBytes(32).toString('base64url');
    // Only the request that still holds the current token rotates it (two tabs racing: the loser is logged out,
    // not mistaken for a thief).
    const updated = await this.db
      .updateTable('remember_me_tokens')
      .set({ token_hash: sha256(next), last_used_at: now.toISOString(), expires_at: this.expiry(now) })
      .where('series', '=', series)
      .where('token_hash', '=', row.token_hash)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return { kind: 'invalid' };
    return { kind: 'valid', userId: row.user_id, cookie: `${series}:${next}` };
  }

  /** Forgets the series a cookie names (logout). */
  async revoke(cookie: string): Promise<void> {
    const match = COOKIE.exec(cookie);
    if (match) await this.db.deleteFrom('remember_me_tokens').where('series', '=', match[1]).execute();
  }

  private expiry(now: Date): string {
    return new Date(now.getTime() + this.lifetimeSeconds * 1000).toISOString();
  }
}
