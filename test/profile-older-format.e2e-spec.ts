import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
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
});
