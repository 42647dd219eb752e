import { Injectable } from '@nestjs/common';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../../config/app-config.js';
import { ShopDb } from '../../database/shop-db.js';

export type RememberMeOutcome =
  /** `cookie` is the rotated value to send; undefined when the browser's cookie stays as it is. */
  | { kind: 'valid'; userId: number; cookie: string | undefined }
  | { kind: 'invalid' }
  /** The series is known but its token is neither the current one nor one just replaced: the cookie was copied. */
  | { kind: 'theft'; userId: number };

const COOKIE = /^([A-Za-z0-9_-]{22}):([A-Za-z0-9_-]{43})$/;
const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/** Constant-time comparison of two stored hashes (null: no hash, never equal). */
function sameHash(a: string, b: string | null): boolean {
  if (b === null) return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Persistent remember-me tokens (Symfony's PersistentRememberMeHandler, Barry Jaspan's scheme): the cookie holds
 * a series and a token; the database holds the series and the token's hash. A use replaces the token; a series
 * presented with a token it no longer knows means the cookie was stolen, and every series of that user is revoked.
 *
 * Requests sent together with one cookie (a browser restoring its tabs) race: the first rotates, the others
 * arrive with the token it replaced. As Symfony's CacheTokenVerifier, the replaced token stays valid for a grace
 * period (kept in the row, so every instance agrees) and a series is rotated at most once per period.
 */
@Injectable()
export class RememberMeService {
  readonly lifetimeSeconds: number;
  private readonly graceMs: number;

  constructor(
    private readonly db: ShopDb,
    config: AppConfig,
  ) {
    this.lifetimeSeconds = config.security.rememberMeLifetimeSeconds;
    this.graceMs = config.security.rememberMeGraceSeconds * 1000;
  }

  /** A new series for this user and device; returns the cookie value. */
  async create(userId: number): Promise<string> {
    const series = randomBytes(16).toString('base64url');
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    await this.db
      .insertInto('remember_me_tokens')
      .values({
        series,
        token_hash: sha256(token),
        user_id: userId,
        last_used_at: now.toISOString(),
        expires_at: this.expiry(now),
      })
      .execute();
    return `${series}:${token}`;
  }

  /** Checks a cookie; a valid one is rotated (its new value returned) unless its series was rotated just now. */
  async consume(cookie: string): Promise<RememberMeOutcome> {
    const match = COOKIE.exec(cookie);
    if (!match) return { kind: 'invalid' };
    const [, series, token] = match;
    const presented = sha256(token);
    const now = new Date();
    const row = await this.find(series);
    if (!row) return { kind: 'invalid' };
    if (row.expires_at <= now.toISOString()) {
      await this.revoke(cookie);
      return { kind: 'invalid' };
    }
    const recentlyRotated = this.withinGrace(row.rotated_at, now);
    if (sameHash(presented, row.token_hash)) {
      if (recentlyRotated) return { kind: 'valid', userId: row.user_id, cookie: undefined };
      const next = randomBytes(32).toString('base64url');
      // Only the request that still finds the token it read rotates it: of two that read the row at once, the
      // other's update matches nothing (PostgreSQL re-checks the condition after the first commits).
      const updated = await this.db
        .updateTable('remember_me_tokens')
        .set({
          token_hash: sha256(next),
          previous_token_hash: row.token_hash,
          rotated_at: now.toISOString(),
          last_used_at: now.toISOString(),
          expires_at: this.expiry(now),
        })
        .where('series', '=', series)
        .where('token_hash', '=', row.token_hash)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 1)
        return { kind: 'valid', userId: row.user_id, cookie: `${series}:${next}` };
      // Another request rotated it meanwhile: the token it replaced is this one, within its grace period.
      const rotated = await this.find(series);
      if (rotated && sameHash(presented, rotated.previous_token_hash) && this.withinGrace(rotated.rotated_at, now)) {
        return { kind: 'valid', userId: rotated.user_id, cookie: undefined };
      }
      return { kind: 'invalid' };
    }
    if (recentlyRotated && sameHash(presented, row.previous_token_hash))
      return { kind: 'valid', userId: row.user_id, cookie: undefined };
    await this.db.deleteFrom('remember_me_tokens').where('user_id', '=', row.user_id).execute();
    return { kind: 'theft', userId: row.user_id };
  }

  /** Forgets the series a cookie names (logout). */
  async revoke(cookie: string): Promise<void> {
    const match = COOKIE.exec(cookie);
    if (match) await this.db.deleteFrom('remember_me_tokens').where('series', '=', match[1]).execute();
  }

  private find(series: string) {
    return this.db
      .selectFrom('remember_me_tokens')
      .select(['token_hash', 'previous_token_hash', 'rotated_at', 'user_id', 'expires_at'])
      .where('series', '=', series)
      .executeTakeFirst();
  }

  private withinGrace(rotatedAt: string | null, now: Date): boolean {
    if (rotatedAt === null) return false;
    // A rotation another instance dates a little ahead (clocks differ) counts as just now.
    return now.getTime() - Date.parse(rotatedAt) < this.graceMs;
  }

  private expiry(now: Date): string {
    return new Date(now.getTime() + this.lifetimeSeconds * 1000).toISOString();
  }
}
