import { jest } from '@jest/globals';
import type { NestExpressApplication } from '@nestjs/platform-express';
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ProfilerService } from '../src/profiler/profiler.service.js';
import { ProfileFormat } from '../src/profiler/storage/profile-codec.js';
import { ProfilerStorage } from '../src/profiler/storage/profiler-storage.js';
import type { SqliteConnection } from '../src/profiler/storage/sqlite/sqlite-connection.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';

describe('A profile stored in a format this version no longer reads (e2e)', () => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    app = await createTestApp();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('opens with its summary and says it came from an older version', async () => {
    const token = (await request(app.getHttpServer()).get('/').expect(200)).headers['x-debug-token'];
    await storedProfile(app, token);
    await app.get(ProfilerService).flush();
    // Format 1 (deflate with a dictionary this version no longer carries), as an older version wrote it.
    const db = (app.get(ProfilerStorage) as unknown as { connection: SqliteConnection }).connection.db;
    const v1 = Buffer.from('012377ec323931edf04ac830217a6f8cf68ea659f23634373337333036330081dad8da5a00', 'hex');
    expect(v1[0]).toBe(ProfileFormat.DEFLATE_DICTIONARY_V1);
    db.prepare('UPDATE profile_data SET data = ? WHERE id = (SELECT id FROM profile_token WHERE token = ?)').run(
      v1,
      token,
    );
    const page = await request(app.getHttpServer()).get(`/_profiler/${token}`).expect(200);
    expect(page.text).toContain(
      '<p class="older-format" role="note">This profile was stored by an older version of Shopkernel, in a format this version no longer reads: only its summary is shown.</p>',
    );
    expect(page.text).toContain(`<dd class="mono token">${token}</dd>`);
    const fresh = await request(app.getHttpServer()).get('/').expect(200);
    await storedProfile(app, fresh.headers['x-debug-token']);
    const other = await request(app.getHttpServer()).get(`/_profiler/${fresh.headers['x-debug-token']}`).expect(200);
    expect(other.text).not.toContain('older-format');
  });

  it('sets a profile store too old to migrate aside at start, and says where in one warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'older-store-'));
    const file = join(dir, 'profiler.sqlite');
    const old = new Database(file);
    old.exec(
      'CREATE TABLE profile (id INTEGER PRIMARY KEY, token TEXT); CREATE TABLE profile_data (id INTEGER PRIMARY KEY, data BLOB); PRAGMA user_version = 5',
    );
    old.close();
    let printed = '';
    const keep = (chunk: string | Uint8Array) => ((printed += String(chunk)), true);
    const spies = [process.stdout, process.stderr].map((stream) =>
      jest.spyOn(stream, 'write').mockImplementation(keep),
    );
    const started = await createTestApp({ env: { PROFILER_DSN: `sqlite:${file}`, LOG_LEVEL: 'warning' } });
    try {
      for (const spy of spies) spy.mockRestore();
      expect(printed).toContain(
        `profiler.WARNING: The profile store ${file} was written by an older version of the application (schema 5; this one migrates 7 and later): it was kept as ${file}.v5, and a new store started.`,
      );
      expect(existsSync(`${file}.v5`)).toBe(true);
      const token = (await request(started.getHttpServer()).get('/').expect(200)).headers['x-debug-token'];
      expect((await storedProfile(started, token)).token).toBe(token);
    } finally {
      for (const spy of spies) spy.mockRestore();
      await started.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
