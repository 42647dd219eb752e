import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ProfilerStorageOpenError } from '../profiler-storage-open.error.js';
import type { Statement } from './sqlite-keys.js';
import { PRUNE_SETUP_SQL } from './sqlite-prune-sql.js';
import { checkLayout, migrate, OLDEST_MIGRATED, olderStore } from './sqlite-schema.js';
import { createDirectory, whyCannotOpen } from '../../../database/sqlite-file.js';
import { WalCheckpointer } from './wal-checkpointer.js';

export const BUSY_TIMEOUT_MS = 250;

/** The store's one connection, in WAL mode, with its prepared statements; every part of the store works through it. */
export class SqliteConnection {
  private handle?: Database.Database;
  private checkpointer?: WalCheckpointer;
  private readonly statements = new Map<string, Statement>();

  constructor(readonly file: string) {}

  notice: string | null = null;

  get memory(): boolean {
    return this.file === ':memory:';
  }

  get db(): Database.Database {
    if (!this.handle) throw new Error('The SQLite profile store is not open (call open() first).');
    return this.handle;
  }

  get isOpen(): boolean {
    return this.handle !== undefined;
  }

  /** For a call whose statements are cached, or a page of a long read: `db` is not touched otherwise. */
  assertOpen(): void {
    void this.db;
  }

  async open(): Promise<void> {
    if (this.handle) return;
    try {
      await this.openFile();
    } catch (error) {
      throw new ProfilerStorageOpenError('SQLite', this.file, error, whyCannotOpen(this.file, error));
    }
  }

  /** A read-only file opens all the same; a lock another process holds is passing (the buffer retries). */
  checkWritable(): void {
    if (this.memory) return;
    try {
      this.statement('UPDATE profile_write SET last = last WHERE false').run();
    } catch (error) {
      if (String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) return;
      throw new ProfilerStorageOpenError('SQLite', this.file, error);
    }
  }

  /** Cached by their text: all values are bound, so the texts are few. */
  statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  withBusyTimeout<T>(ms: number, work: () => T): T {
    const db = this.db;
    db.pragma(`busy_timeout = ${ms}`);
    try {
      return work();
    } finally {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  size(): number {
    const db = this.db;
    if (this.memory)
      return (
        (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number)
      );
    // Synchronous: two local metadata reads are cheaper than a thread-pool round trip each.
    let bytes = 0;
    for (const file of [this.file, `${this.file}-wal`]) bytes += statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    return bytes;
  }

  /** A store too old to migrate is kept beside it (`<file>.v<version>`) for whoever wants it; a new one starts. */
  private setAside(version: number): string {
    let aside = `${this.file}.v${version}`;
    for (let n = 1; existsSync(aside); n++) aside = `${this.file}.v${version}.${n}`;
    renameSync(this.file, aside);
    // Closed cleanly, the WAL is gone; a shared-memory index may remain.
    rmSync(`${this.file}-shm`, { force: true });
    this.notice =
      `The profile store ${this.file} was written by an older version of the application (schema ${version}; ` +
      `this one migrates ${OLDEST_MIGRATED} and later): it was kept as ${aside}, and a new store started.`;
    return this.file;
  }

  /** Closed at once for every caller (a prune stops at its next chunk); the checkpointer stops first. */
  async close(): Promise<void> {
    const db = this.handle;
    if (!db) return;
    this.handle = undefined;
    this.statements.clear();
    await this.checkpointer?.stop();
    this.checkpointer = undefined;
    try {
      // Bounded: a full ANALYZE of a big store would hold up the shutdown.
      db.pragma('analysis_limit = 1000');
      db.pragma('optimize');
    } finally {
      db.close();
    }
  }

  private async openFile(): Promise<void> {
    if (!this.memory) await createDirectory(dirname(this.file));
    let db = new Database(this.file);
    const older = this.memory ? null : olderStore(db);
    if (older !== null) {
      db.close();
      db = new Database(this.setAside(older));
    }
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.pragma('temp_store = MEMORY');
      // Small: searches touch few pages (the OS caches the file), and a larger cache stays in the RSS.
      db.pragma('cache_size = -8192');
      db.pragma('journal_size_limit = 67108864');
      migrate(db, this.file);
      db.exec(PRUNE_SETUP_SQL);
      checkLayout(db, this.file);
    } catch (error) {
      db.close();
      throw error;
    }
    this.handle = db;
    if (!this.memory) {
      // Checkpoints in a worker, not inside a commit on the event loop; if it fails, automatic ones resume.
      db.pragma('wal_autocheckpoint = 0');
      this.checkpointer = new WalCheckpointer(this.file, 1000, () => {
        if (this.handle === db) db.pragma('wal_autocheckpoint = 1000');
      });
      this.checkpointer.start();
    }
  }
}
