import { transactionSpans } from './transactions.js';

describe('transactionSpans', () => {
  it('groups begin … commit and names the code inside as the caller', () => {
    const sqls = ['select 1', 'begin', 'update "t" set a = 1', 'insert into "u" values (1)', 'commit', 'select 2'];
    const callers = ['a.ts:1', null, 'checkout.service.ts:60', 'checkout.service.ts:70', null, 'a.ts:2'];
    expect(transactionSpans(sqls, callers)).toEqual([
      { first: 1, last: 4, outcome: 'committed', caller: 'checkout.service.ts:60' },
    ]);
  });

  it('tells a rollback, a rollback to a savepoint inside, and a transaction never ended', () => {
    const sqls = ['BEGIN', 'savepoint "s"', 'select 1', 'rollback to savepoint "s"', 'ROLLBACK', 'begin', 'select 2'];
    const callers = [null, null, 'x.ts:3', null, null, null, 'y.ts:9'];
    expect(transactionSpans(sqls, callers)).toEqual([
      { first: 0, last: 4, outcome: 'rolled back', caller: 'x.ts:3' },
      { first: 5, last: 6, outcome: 'not ended', caller: 'y.ts:9' },
    ]);
  });

  it('gives an empty transaction no caller', () => {
    expect(transactionSpans(['begin', 'commit'], [null, null])).toEqual([
      { first: 0, last: 1, outcome: 'committed', caller: null },
    ]);
  });
});
