import { parameterColumns, safeParameters } from './query-parameters.js';

describe('parameterColumns', () => {
  it('names comparisons, assignments and IN lists, for ? and $n placeholders', () => {
    expect(parameterColumns('select "id" from "users" where "email" = ? and "id" in (?, ?) limit ?', 4)).toEqual([
      'email',
      'id',
      'id',
      null,
    ]);
    expect(parameterColumns('update "sessions" set "data" = $1, "expires_at" = $2 where "id" = $3', 3)).toEqual([
      'data',
      'expires_at',
      'id',
    ]);
    expect(parameterColumns('select * from "products" where "products"."price_cents" > ? offset ?', 2)).toEqual([
      'price_cents',
      null,
    ]);
  });

  it("names an insert's values by their position in the column list, row after row", () => {
    expect(
      parameterColumns('insert into "users" ("email", "password_hash") values (?, ?), (?, ?) returning "id"', 4),
    ).toEqual(['email', 'password_hash', 'email', 'password_hash']);
    expect(
      parameterColumns('insert into "t" ("a", "b") values ($1, $2) on conflict ("a") do update set "b" = $3', 3),
    ).toEqual(['a', 'b', 'b']);
  });
});

describe('safeParameters', () => {
  it('masks values bound to secret-looking columns, keeps the others', () => {
    expect(
      safeParameters('insert into "users" ("email", "password_hash") values (?, ?)', ['ada@example.com', 'scrypt$abc']),
    ).toEqual(['ada@example.com', '******']);
    expect(safeParameters('select * from "users" where "remember_token" = $1', ['t0k3n'])).toEqual(['******']);
  });

  it('masks the key and payload of a table named like a secret (a session id is a credential), not its times and references', () => {
    const id = 'a'.repeat(43);
    expect(
      safeParameters('select "data", "user_id" from "sessions" where "id" = ? and "expires_at" > ?', [
        id,
        '2030-01-01',
      ]),
    ).toEqual(['******', '2030-01-01']);
    expect(safeParameters('delete from "sessions" where "id" = $1', [id])).toEqual(['******']);
    expect(
      safeParameters('insert into "sessions" ("id", "data", "user_id", "expires_at") values (?, ?, ?, ?)', [
        id,
        '{"_csrf_token/cart":"x"}',
        4,
        '2030-01-01',
      ]),
    ).toEqual(['******', '******', 4, '2030-01-01']);
    expect(safeParameters('select * from "products" where "id" = ?', [7])).toEqual([7]);
  });

  it('makes values JSON-safe and bounded', () => {
    const [big, bytes, when, huge] = safeParameters('select ?, ?, ?, ?', [
      10n,
      Buffer.from('abc'),
      new Date(Date.UTC(2025, 0, 1)),
      'x'.repeat(1500),
    ]) as string[];
    expect([big, bytes, when]).toEqual(['10n', '[Buffer 3 bytes]', '2025-01-01T00:00:00.000Z']);
    expect(huge).toBe(`${'x'.repeat(1000)}… (500 more characters, truncated)`);
  });
});
