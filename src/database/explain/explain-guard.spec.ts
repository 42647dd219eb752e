import { explainRefusal } from './explain-guard.js';

describe('explainRefusal', () => {
  it.each([
    'select "id", "name" from "products" where "category_id" = ?',
    'select count(*) as "n" from "products" where "name" like $1 order by "id" limit $2',
    `select 'drop table x; --' as "text", "update" from "t"`,
    'select 1;',
    'SELECT * FROM "categories"',
  ])('accepts a single SELECT: %s', (sql) => {
    expect(explainRefusal(sql)).toBeNull();
  });

  it.each([
    ['update "products" set "stock" = 0', 'Only a SELECT can be explained: this statement contains UPDATE.'],
    ['delete from "sessions"', 'Only a SELECT can be explained: this statement contains DELETE.'],
    ['insert into "t" select 1', 'Only a SELECT can be explained: this statement contains INSERT.'],
    [
      'select 1; delete from "users"',
      'Only a single statement can be explained: this one has more after its semicolon.',
    ],
    ['select 1; select 2', 'Only a single statement can be explained: this one has more after its semicolon.'],
    ['pragma table_info("users")', 'Only a SELECT can be explained: this statement contains PRAGMA.'],
    ['PRAGMA writable_schema = 1', 'Only a SELECT can be explained: this statement contains PRAGMA.'],
    ['select 1 -- ; delete from "users"', 'A statement with a comment cannot be explained.'],
    ['select /* */ 1', 'A statement with a comment cannot be explained.'],
    ['/* select */ delete from "users"', 'A statement with a comment cannot be explained.'],
    ['select $$; delete from users; $$', 'A statement with a dollar-quoted string cannot be explained.'],
    ['select * into "copy" from "users"', 'Only a SELECT can be explained: this statement contains INTO.'],
    ['select * from "products" for update', 'Only a SELECT can be explained: this statement contains UPDATE.'],
    [
      'with "x" as (delete from "t" returning *) select * from "x"',
      'Only a SELECT can be explained: this statement contains DELETE.',
    ],
    ['with "x" as (select 1) select * from "x"', 'Only a SELECT can be explained.'],
    ['values (1)', 'Only a SELECT can be explained.'],
    ['explain select 1', 'Only a SELECT can be explained.'],
    ['(select 1)', 'Only a SELECT can be explained.'],
    ['', 'Only a SELECT can be explained.'],
  ])('refuses %p', (sql, reason) => {
    expect(explainRefusal(sql)).toBe(reason);
  });
});
