import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ProfilerStorageOpenError } from '../profiler-storage-open.error.js';
import type { Statement } from './sqlite-keys.js';
import { PRUNE_SETUP_SQL } from './sqlite-prune-sql.js';
import { checkLayout, migrate, OLDEST_MIGRATED, olderStore } from './sqlite-schema.js';
import { createDirectory, whyCannotOpen } from '../../../database/sqlite-file.js';
import { WalCheckpointer } from './wal-checkpointer.js';

/** How long a statement waits for a lock another connection holds (milliseconds). */
export const BUSY_TIMEOUT_MS = 250;
/** A profiler page's URL (the migration to version 6). */

/**
 * The store's one connection to its file (or to memory), in WAL mode, with its prepared statements; every part of
 * the store (writer, search, retention, tokens) works through it. WAL checkpoints run in a worker thread.
 */
export class SqliteConnection {
  private handle?: Database.Database;
  private checkpointer?: WalCheckpointer;
  private readonly statements = new Map<string, Statement>();

  constructor(readonly file: string) {}

  /** What open() did that an operator should hear of (an older store set aside); null: nothing. */
  notice: string | null = null;

  get memory(): boolean {
    return this.file === ':memory:';
  }

  /** The open database; throws when the store is not open. */
  get db(): Database.Database {
    if (!this.handle) throw new Error('The SQLite profile store is not open (call open() first).');
    return this.handle;
  }

  get isOpen(): boolean {
    return this.handle !== undefined;
  }

  /** Throws when the store is not open (a call that prepared its statements before, or a page of a long read). */
  assertOpen(): void {
    void this.db;
  }

  /** Opens the file, created with its directory; one that cannot be opened is a ProfilerStorageOpenError. */
  async open(): Promise<void> {
    if (this.handle) return;
    try {
      await this.openFile();
    } catch (error) {
      throw new ProfilerStorageOpenError('SQLite', this.file, error, whyCannotOpen(this.file, error));
    }
  }

  /**
   * A file SQLite may only read (its mode, an immutable flag, a read-only mount) opens all the same, for reading:
   * found by a statement that changes nothing. A lock another process holds is the store failing for a while (the
   * write buffer retries), not a reason not to start.
   */
  checkWritable(): void {
    if (this.memory) return;
    try {
      this.statement('UPDATE profile_write SET last = last WHERE false').run();
    } catch (error) {
      if (String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) return;
      throw new ProfilerStorageOpenError('SQLite', this.file, error);
    }
  }

  /** Prepared statements, cached by their text (all values are bound, so the texts are few). */
  statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** `work` with busy_timeout set to `ms`, then back to BUSY_TIMEOUT_MS. */
  withBusyTimeout<T>(ms: number, work: () => T): T {
    const db = this.db;
    db.pragma(`busy_timeout = ${ms}`);
    try {
      return work();
    } finally {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  /** Bytes the store takes: the file and its WAL (the pages for memory). */
  size(): number {
    const db = this.db;
    if (this.memory)
      return (
        (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number)
      );
    // Synchronous: two metadata reads of a local file take microseconds, where each of fs/promises' goes through
    // the thread pool and back. A missing WAL counts 0; any other error is the store's (stats() reports it).
    let bytes = 0;
    for (const file of [this.file, `${this.file}-wal`]) bytes += statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    return bytes;
  }

  /**
   * Moves a store too old to migrate to a file beside it (`<file>.v<version>`, numbered if taken) and says so in
   * `notice`: its profiles stay on disk for whoever wants them, and a new store takes its place, as Symfony's
   * profiler starts anew when its cache is cleared. Returns the store's path, now free.
   */
  private setAside(version: number): string {
    let aside = `${this.file}.v${version}`;
    for (let n = 1; existsSync(aside); n++) aside = `${this.file}.v${version}.${n}`;
    renameSync(this.file, aside);
    // Closed cleanly, SQLite has written its WAL back and removed it; a shared-memory index may remain.
    rmSync(`${this.file}-shm`, { force: true });
    this.notice =
      `The profile store ${this.file} was written by an older version of the application (schema ${version}; ` +
      `this one migrates ${OLDEST_MIGRATED} and later): it was kept as ${aside}, and a new store started.`;
    return this.file;
  }

  /** Closed at once for every caller (a prune stops at its next chunk); the checkpointer stops before the file closes. */
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
      // A small page cache: searches touch a few index pages each (the OS caches the file), and a larger cache
      // fills as the store grows and stays in the process's RSS.
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
      // Checkpoints run in a worker thread, not inside a commit on the event loop; should the worker fail,
      // SQLite's automatic checkpoints take over again.
      db.pragma('wal_autocheckpoint = 0');
      this.checkpointer = new WalCheckpointer(this.file, 1000, () => {
        if (this.handle === db) db.pragma('wal_autocheckpoint = 1000');
      });
      this.checkpointer.start();
    }
  }
}
