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
    const insert = db.prepare('INSERT INTO profile (id, token) VALUES (?, ?)');
    for (let i = 1; i <= 10; i++) insert.run(i, `t${i}`);
    db.close();
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const statements = {
    setup: 'CREATE TEMP TABLE IF NOT EXISTS profile_gone (id INTEGER PRIMARY KEY, token TEXT)',
    take: 'INSERT INTO temp.profile_gone SELECT id, token FROM profile WHERE id <= ? ORDER BY id LIMIT ?',
    chunk: ['DELETE FROM profile WHERE id IN (SELECT id FROM temp.profile_gone)'],
  };

  it('deletes chunks in its thread, then stops once idle and starts again for the next chunk', async () => {
    const worker = new PruneWorker(file, statements, -2000, 100);
    expect(worker.running).toBe(false);
    expect((await worker.chunk(10n, 3)).tokens).toEqual(['t1', 't2', 't3']);
    expect((await worker.chunk(10n, 3)).tokens).toEqual(['t4', 't5', 't6']);
    expect(worker.running).toBe(true);
    await sleep(400);
    // Its thread and page cache are given back between retention runs.
    expect(worker.running).toBe(false);
    expect((await worker.chunk(5n, 10)).tokens).toEqual([]);
    expect((await worker.chunk(10n, 10)).tokens).toEqual(['t7', 't8', 't9', 't10']);
    await worker.stop();
    expect(worker.running).toBe(false);
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM profile').pluck().get()).toBe(0);
    db.close();
  });
});
