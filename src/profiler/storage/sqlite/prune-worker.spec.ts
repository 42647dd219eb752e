import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PruneWorker } from './prune-worker.js';

describe('PruneWorker', () => {
  let dir: string;
  let file: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'prune-worker-'));
    file = join(dir, 'store.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE profile (id INTEGER PRIMARY KEY, token TEXT NOT NULL)');
    db.exec('CREATE TABLE swept (token TEXT PRIMARY KEY) WITHOUT ROWID; CREATE TABLE sweeps (n INTEGER)');
    const insert = db.prepare('INSERT INTO profile (id, token) VALUES (?, ?)');
    for (let i = 1; i <= 10; i++) insert.run(i, `t${i}`);
    for (const token of ['a1', 'a2', 'b1', 'c1']) db.prepare('INSERT INTO swept (token) VALUES (?)').run(token);
    db.close();
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const statements = {
    setup: 'CREATE TEMP TABLE IF NOT EXISTS profile_gone (id INTEGER PRIMARY KEY, token TEXT)',
    take: `INSERT INTO temp.profile_gone SELECT id, token FROM profile
      WHERE id <= @maxId AND id <= coalesce((SELECT id FROM profile ORDER BY id DESC LIMIT 1 OFFSET @keep), -1)
      ORDER BY id LIMIT @atMost`,
    chunk: ['DELETE FROM profile WHERE id IN (SELECT id FROM temp.profile_gone)'],
    sweep: {
      range: 'DELETE FROM swept WHERE token >= ? AND token < ?',
      from: 'DELETE FROM swept WHERE token >= ?',
      done: 'INSERT INTO sweeps (n) VALUES (1)',
    },
  };

  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('deletes chunks in a process of its own, then stops once idle and starts again for the next chunk', async () => {
    const worker = new PruneWorker(file, statements, -2000, 100);
    expect(worker.running).toBe(false);
    expect((await worker.chunk(10n, 0, 3)).tokens).toBe('t1\nt2\nt3');
    expect((await worker.chunk(10n, 0, 3)).tokens).toBe('t4\nt5\nt6');
    expect(worker.running).toBe(true);
    const pid = worker.pid!;
    expect(pid).not.toBe(process.pid);
    expect(alive(pid)).toBe(true);
    await sleep(600);
    // Its process, and with it its page cache, is gone between retention runs.
    expect(worker.running).toBe(false);
    expect(alive(pid)).toBe(false);
    expect((await worker.chunk(5n, 0, 10)).tokens).toBe('');
    expect((await worker.chunk(10n, 2, 10)).tokens).toBe('t7\nt8');
    expect((await worker.chunk(10n, 0, 10)).tokens).toBe('t9\nt10');
    await worker.stop();
    expect(worker.running).toBe(false);
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM profile').pluck().get()).toBe(0);
    db.close();
  });

  it('sweeps a range per message, the last one unbounded and ending the sweep', async () => {
    const worker = new PruneWorker(file, statements, -2000, 100);
    const rows = () => {
      const db = new Database(file, { readonly: true });
      const result = [
        db.prepare('SELECT token FROM swept ORDER BY token').pluck().all(),
        db.prepare('SELECT count(*) FROM sweeps').pluck().get(),
      ];
      db.close();
      return result;
    };
    expect((await worker.sweep('a', 'b')).count).toBe(2);
    expect(rows()).toEqual([['b1', 'c1'], 0]);
    const last = await worker.sweep('c', null);
    expect(last.count).toBe(1);
    expect(last.tokens).toBe('');
    expect(rows()).toEqual([['b1'], 1]);
    await worker.stop();
  });

  it('rejects a chunk with what SQLite said, and a chunk after it works again', async () => {
    const worker = new PruneWorker(
      file,
      { ...statements, chunk: ['INSERT INTO profile (id, token) VALUES (100, NULL)'] },
      -2000,
      100,
    );
    await expect(worker.chunk(10n, 0, 3)).rejects.toThrow(
      'Pruning the profile store failed: NOT NULL constraint failed: profile.token',
    );
    await worker.stop();
    const working = new PruneWorker(file, statements, -2000, 100);
    expect((await working.chunk(10n, 0, 2)).tokens).toBe('t1\nt2');
    await working.stop();
  });

  it('rejects the chunks under way when its process fails, saying why', async () => {
    const worker = new PruneWorker(join(dir, 'missing.sqlite'), statements, -2000, 100);
    await expect(worker.chunk(10n, 0, 3)).rejects.toThrow(
      /^The profile store's prune worker stopped \(exit code 1\): SqliteError: unable to open database file$/,
    );
    expect(worker.running).toBe(false);
    expect(worker.lastFailure?.message).toMatch(/unable to open database file/);
  });
});
