import { SqliteProfilerStorage } from './sqlite/sqlite-profiler.storage.js';
import { createProfilerStorage } from './storage-factory.js';

describe('createProfilerStorage', () => {
  it('opens an in-memory SQLite store for sqlite::memory:', async () => {
    const storage = createProfilerStorage('sqlite::memory:');
    expect(storage).toBeInstanceOf(SqliteProfilerStorage);
    expect((storage as SqliteProfilerStorage).file).toBe(':memory:');
    await storage.open();
    expect(await storage.count()).toBe(0);
    await storage.close();
  });

  it('opens a SQLite file for sqlite:<path>', () => {
    expect((createProfilerStorage('sqlite:/srv/app/var/profiler.sqlite') as SqliteProfilerStorage).file).toBe('/srv/app/var/profiler.sqlite');
    expect((createProfilerStorage('sqlite:///srv/app/var/profiler.sqlite') as SqliteProfilerStorage).file).toBe('/srv/app/var/profiler.sqlite');
    expect((createProfilerStorage('sqlite:var/profiler.sqlite', { baseDir: '/srv/app' }) as SqliteProfilerStorage).file).toBe('/srv/app/var/profiler.sqlite');
  });

  it('refuses other schemes, naming the supported ones', () => {
    expect(() => createProfilerStorage('postgres://user:secret@db/profiles')).toThrow(
      'Unsupported profiler DSN scheme "postgres:": supported are "sqlite:<file>" and "sqlite::memory:".',
    );
    expect(() => createProfilerStorage('mysql://db')).toThrow('supported are "sqlite:<file>" and "sqlite::memory:"');
    expect(() => createProfilerStorage('profiler.sqlite')).toThrow('Unsupported profiler DSN "profiler.sqlite"');
    expect(() => createProfilerStorage('sqlite:')).toThrow('names no file');
  });
});
