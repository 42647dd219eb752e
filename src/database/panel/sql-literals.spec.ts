import { runnableQuery, sqlLiteral } from './sql-literals.js';

describe('sqlLiteral', () => {
  it.each([
    [null, 'sqlite', 'NULL'],
    [undefined, 'postgres', 'NULL'],
    [42, 'sqlite', '42'],
    [-1.5, 'postgres', '-1.5'],
    [Number.NaN, 'postgres', "'NaN'"],
    [true, 'postgres', 'TRUE'],
    [false, 'postgres', 'FALSE'],
    [true, 'sqlite', '1'],
    [false, 'sqlite', '0'],
    [12345678901234567890n, 'postgres', '12345678901234567890'],
    ['plain', 'sqlite', "'plain'"],
    ['', 'postgres', "''"],
    ['2026-01-02T03:04:05.000Z', 'postgres', "'2026-01-02T03:04:05.000Z'"],
    [{ a: [1, 'b'] }, 'sqlite', `'{"a":[1,"b"]}'`],
  ] as const)('%p on %s is %s', (value, dialect, literal) => {
    expect(sqlLiteral(value, dialect)).toBe(literal);
  });

  it.each([
    ["O'Brien", "'O''Brien'"],
    ["x'; drop table users; --", "'x''; drop table users; --'"],
    ["' or '1'='1", "''' or ''1''=''1'"],
    ['back\\slash\\', "'back\\slash\\'"],
    ["nul\u0000byte'", "'nulbyte'''"],
    ['"double" and ?placeholder $1', `'"double" and ?placeholder $1'`],
  ])('keeps an injection attempt inside its literal: %p', (value, literal) => {
    expect(sqlLiteral(value, 'sqlite')).toBe(literal);
    expect(sqlLiteral(value, 'postgres')).toBe(literal);
  });
});

describe('runnableQuery', () => {
  it('fills SQLite placeholders in order', () => {
    expect(
      runnableQuery('select * from "products" where "slug" = ? and "stock" > ? limit ?', ['mug', 0, 10], 'sqlite'),
    ).toEqual({
      sql: `select * from "products" where "slug" = 'mug' and "stock" > 0 limit 10`,
      masked: false,
    });
  });

  it('fills PostgreSQL placeholders by number, past $9', () => {
    const params = Array.from({ length: 11 }, (_, i) => i + 1);
    const sql = `select ${params.map((n) => `$${n}`).join(', ')}, $1`;
    expect(runnableQuery(sql, params, 'postgres').sql).toBe('select 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1');
  });

  it('leaves placeholders inside strings, identifiers and comments alone', () => {
    const sql = `select '?', "a?b", ? -- what?\n/* $1 ? */ from "t"`;
    expect(runnableQuery(sql, ["it's"], 'sqlite').sql).toBe(`select '?', "a?b", 'it''s' -- what?\n/* $1 ? */ from "t"`);
    expect(runnableQuery(`select '$1', $1`, [null], 'postgres').sql).toBe(`select '$1', NULL`);
  });

  it('does not let a parameter inject a placeholder of its own', () => {
    expect(runnableQuery('select ?, ?', ['?', 'x'], 'sqlite').sql).toBe("select '?', 'x'");
  });

  it('keeps a placeholder without a parameter', () => {
    expect(runnableQuery('select ?, ?', [1], 'sqlite').sql).toBe('select 1, ?');
  });

  it('keeps masked values masked and says so', () => {
    const query = runnableQuery(
      'insert into "users" ("email", "password_hash") values ($1, $2)',
      ['ada@example.com', '******'],
      'postgres',
    );
    expect(query.masked).toBe(true);
    expect(query.sql).toBe(
      `-- ****** marks a masked secret: put the real value in before running.\ninsert into "users" ("email", "password_hash") values ('ada@example.com', '******')`,
    );
  });
});
