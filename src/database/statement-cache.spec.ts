import SqliteDatabase from 'better-sqlite3';
import { StatementCache } from './statement-cache.js';

describe('StatementCache', () => {
  let db: SqliteDatabase.Database;
  let cache: StatementCache;

  beforeEach(() => {
    db = new SqliteDatabase(':memory:');
    db.exec('CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2), (3)');
    cache = new StatementCache(db);
  });

  afterEach(() => {
    if (db.open) cache.close();
  });

  it('prepares each SQL text once and runs it again with other parameters', () => {
    const first = cache.prepare('SELECT n FROM t WHERE n >= ? ORDER BY n');
    const again = cache.prepare('SELECT n FROM t WHERE n >= ? ORDER BY n');
    expect(again).toBe(first);
    expect(first.all([2])).toEqual([{ n: 2 }, { n: 3 }]);
    expect(again.all([3])).toEqual([{ n: 3 }]);
    expect(cache.prepare('SELECT count(*) AS c FROM t')).not.toBe(first);
  });

  it('gives a statement of its own to a query whose cached statement is still being iterated', () => {
    const sql = 'SELECT n FROM t ORDER BY n';
    const cached = cache.prepare(sql);
    const iterating = cached.iterate([]);
    expect(iterating.next().value).toEqual({ n: 1 });
    const other = cache.prepare(sql);
    expect(other).not.toBe(cached);
    expect(other.all([])).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect([...iterating]).toEqual([{ n: 2 }, { n: 3 }]);
    // Once the iteration is over, the cached statement serves again.
    expect(cache.prepare(sql)).toBe(cached);
  });

  it('keeps a bounded number of statements, and closes the database', () => {
    for (let i = 0; i < 600; i++) cache.prepare(`SELECT ${i} AS v`).all([]);
    expect((cache as unknown as { statements: Map<string, unknown> }).statements.size).toBe(500);
    cache.close();
    expect(db.open).toBe(false);
  });
});
