import { SqliteProfilerStorage } from './dist/profiler/storage/sqlite/sqlite-profiler.storage.js';
import { sampleProfile } from './dist/profiler/storage/testing/sample-profile.fixture.js';
import { ProfileCodec } from './dist/profiler/storage/profile-codec.js';
import { rmSync } from 'node:fs';
const N = 20000, B = 50;
const profiles = Array.from({ length: N }, (_, i) => ({ ...sampleProfile(i), token: (0x100000 + i).toString(16), time: Date.now() - (N - i) * 10 }));
const codec = new ProfileCodec();
const blobs = profiles.map((p) => codec.encodeSync(p.data ?? {}));
console.log('avg blob bytes', Math.round(blobs.reduce((a, b) => a + b.length, 0) / N));
for (const variant of ['full', 'nodata', 'noindexes', 'full']) {
  for (const f of ['', '-wal', '-shm']) rmSync('/tmp/wb.sqlite' + f, { force: true });
  const s = new SqliteProfilerStorage({ file: '/tmp/wb.sqlite' }); await s.open();
  const db = s.connection.db;
  if (variant === 'noindexes') for (const i of ['profile_ip', 'profile_method', 'profile_status', 'profile_url_id', 'profile_parent', 'profile_redirected_from']) db.exec('DROP INDEX ' + i);
  let com = 0;
  for (let i = 0; i < N; i += B) {
    const batch = profiles.slice(i, i + B);
    const bl = variant === 'nodata' ? batch.map(() => Buffer.alloc(10)) : blobs.slice(i, i + B);
    const t1 = process.cpuUsage();
    s.writer.commit(batch, bl, false);
    const t2 = process.cpuUsage();
    com += (t2.user + t2.system) - (t1.user + t1.system);
  }
  console.log(variant, 'commit µs/profile', (com / N).toFixed(1));
  await s.close();
}
