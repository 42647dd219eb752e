import { Injectable } from '@nestjs/common';
import { ShopDb } from '../database/shop-db.js';
import type { User } from '../database/schema.js';

/** The `users` table: users by id and email (emails are stored lower-cased and trimmed). */
@Injectable()
export class UserRepository {
  constructor(private readonly db: ShopDb) {}

  findByEmail(email: string): Promise<User | undefined> {
    return this.db.selectFrom('users').selectAll().where('email', '=', normaliseEmail(email)).executeTakeFirst();
  }

  findById(id: number): Promise<User | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Creates a user; undefined when the email is taken (the unique index decides, also under concurrency). */
  async create(email: string, passwordHash: string, roles: string[] = ['ROLE_USER']): Promise<User | undefined> {
    try {
      return await this.db
        .insertInto('users')
        .values({ email: normaliseEmail(email), password_hash: passwordHash, roles: JSON.stringify(roles) })
        .returningAll()
        .executeTakeFirstOrThrow();
    } catch (error) {
      if (isUniqueViolation(error)) return undefined;
      throw error;
    }
  }

  async updatePasswordHash(id: number, passwordHash: string): Promise<void> {
    await this.db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** SQLite's SQLITE_CONSTRAINT_UNIQUE and PostgreSQL's 23505. */
function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string };
  return e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === '23505';
}
