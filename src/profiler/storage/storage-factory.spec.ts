import { PostgresProfilerStorage } from './postgres/postgres-profiler.storage.js';
import { SqliteProfilerStorage } from './sqlite/sqlite-profiler.storage.js';
import { storedCount } from './testing/profiler-storage.contract.js';
import { createProfilerStorage } from './storage-factory.js';

describe('createProfilerStorage', () => {
  it('opens an in-memory SQLite store for sqlite::memory:', async () => {
    const storage = createProfilerStorage('sqlite::memory:');
    expect(storage).toBeInstanceOf(SqliteProfilerStorage);
    expect((storage as SqliteProfilerStorage).file).toBe(':memory:');
    await storage.open();
    expect(await storedCount(storage)).toBe(0);
    await storage.close();
  });

  it('opens a SQLite file for sqlite:<path>', () => {
    expect((createProfilerStorage('sqlite:/srv/app/var/profiler.sqlite') as SqliteProfilerStorage).file).toBe(
      '/srv/app/var/profiler.sqlite',
    );
    expect((createProfilerStorage('sqlite:///srv/app/var/profiler.sqlite') as SqliteProfilerStorage).file).toBe(
      '/srv/app/var/profiler.sqlite',
    );
    expect(
      (createProfilerStorage('sqlite:var/profiler.sqlite', { baseDir: '/srv/app' }) as SqliteProfilerStorage).file,
    ).toBe('/srv/app/var/profiler.sqlite');
  });

  it('makes a PostgreSQL store for postgres:// and postgresql://, in the public schema by default', () => {
    const storage = createProfilerStorage('postgres://user:secret@db:5432/profiles');
    expect(storage).toBeInstanceOf(PostgresProfilerStorage);
    expect((storage as PostgresProfilerStorage).connectionString).toBe('postgres://user:secret@db:5432/profiles');
    expect((storage as PostgresProfilerStorage).schemaName).toBe('public');
    expect((storage as PostgresProfilerStorage).description).toBe(
      'postgres://user:******@db:5432/profiles (schema public)',
    );
    const upper = createProfilerStorage(' POSTGRESQL://user@db/profiles ');
    expect(upper).toBeInstanceOf(PostgresProfilerStorage);
    expect((upper as PostgresProfilerStorage).connectionString).toBe('POSTGRESQL://user@db/profiles');
  });

  it('takes the schema from ?schema= and leaves pg its own parameters', () => {
    const storage = createProfilerStorage(
      'postgresql://user@db:5432/shop?sslmode=require&schema=profiler_a&application_name=web',
    ) as PostgresProfilerStorage;
    expect(storage.schemaName).toBe('profiler_a');
    expect(storage.connectionString).toBe('postgresql://user@db:5432/shop?sslmode=require&application_name=web');
    expect((createProfilerStorage('postgres://db/shop?schema=Profiles') as PostgresProfilerStorage).schemaName).toBe(
      'Profiles',
    );
    expect((createProfilerStorage('postgres://db/shop?schema=p') as PostgresProfilerStorage).connectionString).toBe(
      'postgres://db/shop',
    );
  });

  it('refuses a schema that is not a plain name, or given twice', () => {
    expect(() => createProfilerStorage('postgres://db/shop?schema=a;drop')).toThrow(
      'The profiler DSN\'s schema "a;drop" is not a valid name',
    );
    expect(() => createProfilerStorage('postgres://db/shop?schema=')).toThrow('schema "" is not a valid name');
    expect(() => createProfilerStorage('postgres://db/shop?schema=1abc')).toThrow('not a valid name');
    expect(() => createProfilerStorage('postgres://u:pw@db/shop?schema=a&schema=b')).toThrow(
      'The profiler DSN postgres://u:******@db/shop?schema=a&schema=b names the schema 2 times',
    );
  });

  it('refuses other schemes, naming the supported ones', () => {
    expect(() => createProfilerStorage('mysql://user:secret@db/profiles')).toThrow(
      'Unsupported profiler DSN scheme "mysql:": supported are "sqlite:<file>", "sqlite::memory:", "postgres://…" and "postgresql://…".',
    );
    expect(() => createProfilerStorage('redis://db')).toThrow(
      'supported are "sqlite:<file>", "sqlite::memory:", "postgres://…" and "postgresql://…"',
    );
    expect(() => createProfilerStorage('profiler.sqlite')).toThrow('Unsupported profiler DSN "profiler.sqlite"');
    expect(() => createProfilerStorage('postgres:')).toThrow('Unsupported profiler DSN scheme "postgres:"');
    expect(() => createProfilerStorage('sqlite:')).toThrow('names no file');
  });
});
