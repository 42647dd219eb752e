import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { parse } from 'node-html-parser';
import request from 'supertest';
import { ProfilerStorage } from '../../src/profiler/storage/profiler-storage.js';
import { SqliteConnection } from '../../src/profiler/storage/sqlite/sqlite-connection.js';
import type { SqliteProfilerStorage } from '../../src/profiler/storage/sqlite/sqlite-profiler.storage.js';

/** The `.stats` line of the search page and its store error, as text (whitespace collapsed). */
export async function searchPageStats(app: INestApplication): Promise<{ stats: string; storeError: string }> {
  const res = await request(app.getHttpServer()).get('/_profiler/search?limit=10').expect(200);
  const html = parse(res.text);
  const text = (selector: string) => (html.querySelector(selector)?.text ?? '').replace(/\s+/g, ' ').trim();
  return { stats: text('p.stats'), storeError: text('p.store-error') };
}

/** How many rows of the store's `profile` table have each token, read through a connection of its own. */
export function storedTokenCounts(file: string, tokens: readonly string[]): Map<string, number> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const count = db.prepare('SELECT count(*) FROM profile WHERE token = ?').pluck();
    return new Map(tokens.map((t) => [t, count.get(t) as number]));
  } finally {
    db.close();
  }
}

/** The SQLite store's own connection (the faults that live on a connection: query_only, max_page_count). */
export function storeConnection(app: INestApplication): Database.Database {
  const connection = (app.get(ProfilerStorage) as unknown as { connection?: SqliteConnection }).connection;
  if (!(connection instanceof SqliteConnection)) throw new Error('The profile store is not an open SQLite store.');
  return connection.db;
}

export function storeFile(app: INestApplication): string {
  return (app.get(ProfilerStorage) as SqliteProfilerStorage).file;
}

/**
 * A directory on a small tmpfs of its own, when this process may mount one (root with CAP_SYS_ADMIN, as on the
 * development machines and CI runners): then "disk full" is the kernel's ENOSPC. Elsewhere null, and the tests
 * use SQLite's max_page_count, which makes SQLite itself answer SQLITE_FULL.
 */
export class TmpfsDisk {
  private filler = 0;

  private constructor(readonly dir: string) {}

  static mount(dir: string, sizeBytes: number): TmpfsDisk | null {
    mkdirSync(dir, { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
      return new TmpfsDisk(dir);
    } catch {
      return null;
    }
  }

  /** Writes filler files until the file system refuses (ENOSPC): the disk is full. */
  fill(): void {
    // Big chunks first, then single pages: tmpfs allocates pages, so not one is left for the WAL to grow into.
    for (const size of [64 * 1024, 4096]) {
      const chunk = Buffer.alloc(size, 0x5a);
      for (;;) {
        try {
          writeFileSync(join(this.dir, `filler-${this.filler++}`), chunk, { flag: 'wx' });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  }

  /** Frees the space the filler took. */
  free(): void {
    for (let i = 0; i < this.filler; i++) rmSync(join(this.dir, `filler-${i}`), { force: true });
    this.filler = 0;
  }

  unmount(): void {
    try {
      execFileSync('umount', ['-l', this.dir], { stdio: 'pipe' });
    } catch {
      // Already gone.
    }
  }
}
