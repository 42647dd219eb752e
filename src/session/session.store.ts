import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { ShopDb } from '../database/shop-db.js';

export interface StoredSession {
  attributes: Record<string, unknown>;
  userId: number | null;
  expiresAt: string;
}

/**
 * Sessions in the shop's database (table `sessions`): one row per session, its attributes as JSON, the user it
 * belongs to, and when it expires (the idle lifetime, renewed as the visitor comes back). Expired rows are never
 * read and are removed now and then by `collectGarbage`.
 */
@Injectable()
export class SessionStore {
  readonly lifetimeSeconds: number;

  constructor(
    private readonly db: ShopDb,
    config: AppConfig,
  ) {
    this.lifetimeSeconds = config.session.lifetimeSeconds;
  }

  async load(id: string, now = new Date()): Promise<StoredSession | null> {
    const row = await this.db
      .selectFrom('sessions')
      .select(['data', 'user_id', 'expires_at'])
      .where('id', '=', id)
      .where('expires_at', '>', now.toISOString())
      .executeTakeFirst();
    if (!row) return null;
    return { attributes: parseAttributes(row.data), userId: row.user_id, expiresAt: row.expires_at };
  }

  /** Writes the session under its id (insert or replace); returns its new expiry. */
  async save(
    id: string,
    attributes: Record<string, unknown>,
    userId: number | null,
    now = new Date(),
  ): Promise<string> {
    const expiresAt = this.expiry(now);
    const data = JSON.stringify(attributes);
    const stamp = now.toISOString();
    await this.db
      .insertInto('sessions')
      .values({ id, data, user_id: userId, expires_at: expiresAt, created_at: stamp, updated_at: stamp })
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({ data, user_id: userId, expires_at: expiresAt, updated_at: stamp }),
      )
      .execute();
    return expiresAt;
  }

  /** Renews an unchanged session's expiry. */
  async touch(id: string, now = new Date()): Promise<string> {
    const expiresAt = this.expiry(now);
    await this.db
      .updateTable('sessions')
      .set({ expires_at: expiresAt, updated_at: now.toISOString() })
      .where('id', '=', id)
      .execute();
    return expiresAt;
  }

  async destroy(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', id).execute();
  }

  /** Ends every session of a user (password change, "log out everywhere"), except one to keep. */
  async destroyForUser(userId: number, except?: string): Promise<number> {
    let query = this.db.deleteFrom('sessions').where('user_id', '=', userId);
    if (except) query = query.where('id', '!=', except);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Removes expired sessions; returns how many. */
  async collectGarbage(now = new Date()): Promise<number> {
    const result = await this.db.deleteFrom('sessions').where('expires_at', '<=', now.toISOString()).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  expiry(now: Date): string {
    return new Date(now.getTime() + this.lifetimeSeconds * 1000).toISOString();
  }
}

function parseAttributes(data: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    // A row that is not ours to read is an empty session, not a failed request.
    return {};
  }
}
