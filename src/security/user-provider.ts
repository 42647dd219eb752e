import { Injectable } from '@nestjs/common';
import type { User } from '../database/schema.js';
import { UserRepository } from '../users/user.repository.js';
import type { AuthenticatedUser } from './security-context.js';

/**
 * Loads the user a session or a remember-me cookie names (Symfony's user provider), fresh on every request, so a
 * deleted user or changed roles take effect at once.
 */
@Injectable()
export class UserProvider {
  constructor(private readonly users: UserRepository) {}

  async loadById(id: number): Promise<AuthenticatedUser | null> {
    const user = await this.users.findById(id);
    return user ? toAuthenticatedUser(user) : null;
  }
}

/** The user as the security layer keeps it: no hash; ROLE_USER always included. */
export function toAuthenticatedUser(user: Pick<User, 'id' | 'email' | 'roles'>): AuthenticatedUser {
  let roles: unknown;
  try {
    roles = JSON.parse(user.roles);
  } catch {
    roles = [];
  }
  const list = Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : [];
  return { id: user.id, email: user.email, roles: list.includes('ROLE_USER') ? list : ['ROLE_USER', ...list] };
}
