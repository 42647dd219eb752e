import type { ShopDb } from '../database/shop-db.js';
import { UserRepository } from '../users/user.repository.js';
import { toAuthenticatedUser, UserProvider } from './user-provider.js';
import { memoryShopDb } from '../database/testing/memory-shop-db.js';

describe('toAuthenticatedUser', () => {
  const user = (roles: string) => toAuthenticatedUser({ id: 3, email: 'ann@example.com', roles });

  it.each([
    ['["ROLE_USER"]', ['ROLE_USER']],
    ['["ROLE_ADMIN"]', ['ROLE_USER', 'ROLE_ADMIN']],
    ['["ROLE_ADMIN","ROLE_USER"]', ['ROLE_ADMIN', 'ROLE_USER']],
    ['[]', ['ROLE_USER']],
    ['["ROLE_ADMIN", 42, null, {"x":1}]', ['ROLE_USER', 'ROLE_ADMIN']],
    ['"ROLE_ADMIN"', ['ROLE_USER']],
    ['{"0":"ROLE_ADMIN"}', ['ROLE_USER']],
    ['not json', ['ROLE_USER']],
  ])('reads the roles %s as %j, ROLE_USER always included', (roles, expected) => {
    expect(user(roles)).toEqual({ id: 3, email: 'ann@example.com', roles: expected });
  });

  it('never carries the password hash', () => {
    expect(
      Object.keys(
        toAuthenticatedUser({ id: 3, email: 'a@example.com', roles: '[]', password_hash: 'scrypt$…' } as never),
      ),
    ).toEqual(['id', 'email', 'roles']);
  });
});

describe('UserProvider on SQLite', () => {
  let db: ShopDb;

  beforeEach(async () => {
    db = await memoryShopDb();
  });

  afterEach(() => db.destroy());

  it('loads a user fresh by id, and null for one that does not exist', async () => {
    const provider = new UserProvider(new UserRepository(db));
    const { id } = await db
      .insertInto('users')
      .values({ email: 'ann@example.com', password_hash: 'x' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await expect(provider.loadById(id)).resolves.toEqual({ id, email: 'ann@example.com', roles: ['ROLE_USER'] });
    await db.updateTable('users').set({ roles: '["ROLE_ADMIN"]' }).execute();
    await expect(provider.loadById(id)).resolves.toEqual({
      id,
      email: 'ann@example.com',
      roles: ['ROLE_USER', 'ROLE_ADMIN'],
    });
    await expect(provider.loadById(id + 1)).resolves.toBeNull();
  });
});
