import { describeDatabaseTarget, parseDatabaseUrl } from './database-url.js';

describe('parseDatabaseUrl', () => {
  it('reads SQLite files, relative to the project, and the in-memory database', () => {
    expect(parseDatabaseUrl('sqlite:var/shop.sqlite', '/srv/app')).toEqual({
      dialect: 'sqlite',
      file: '/srv/app/var/shop.sqlite',
    });
    expect(parseDatabaseUrl('sqlite:/data/shop.sqlite', '/srv/app')).toEqual({
      dialect: 'sqlite',
      file: '/data/shop.sqlite',
    });
    expect(parseDatabaseUrl('sqlite:///data/shop.sqlite', '/srv/app')).toEqual({
      dialect: 'sqlite',
      file: '/data/shop.sqlite',
    });
    expect(parseDatabaseUrl('sqlite::memory:', '/srv/app')).toEqual({ dialect: 'sqlite', file: ':memory:' });
  });

  it('reads PostgreSQL connection strings as they are', () => {
    expect(parseDatabaseUrl('postgres://shop:pw@127.0.0.1:5432/shop', '/srv/app')).toEqual({
      dialect: 'postgres',
      connectionString: 'postgres://shop:pw@127.0.0.1:5432/shop',
    });
    expect(parseDatabaseUrl('postgresql://db/shop', '/srv/app')).toEqual({
      dialect: 'postgres',
      connectionString: 'postgresql://db/shop',
    });
  });

  it('refuses other schemes and an empty file, naming what is supported', () => {
    expect(() => parseDatabaseUrl('mysql://db/shop', '/srv')).toThrow(
      'Unsupported DATABASE_URL scheme "mysql:": supported are "sqlite:<file>", "sqlite::memory:", "postgres://…", "postgresql://…".',
    );
    expect(() => parseDatabaseUrl('shop.sqlite', '/srv')).toThrow('Unsupported DATABASE_URL "shop.sqlite"');
    expect(() => parseDatabaseUrl('sqlite:', '/srv')).toThrow('DATABASE_URL "sqlite:" names no file');
  });
});

describe('describeDatabaseTarget', () => {
  it('masks a PostgreSQL password and shows SQLite files as they are', () => {
    expect(
      describeDatabaseTarget({ dialect: 'postgres', connectionString: 'postgres://shop:s3cret@db:5432/shop' }),
    ).toBe('postgres://shop:******@db:5432/shop');
    expect(
      describeDatabaseTarget({
        dialect: 'postgres',
        connectionString: 'postgres://shop@db:5432/shop?password=s3cret&sslmode=require',
      }),
    ).toBe('postgres://shop@db:5432/shop?password=******&sslmode=require');
    expect(
      describeDatabaseTarget({ dialect: 'postgres', connectionString: 'postgres://shop:s3:c@r@t@db:5432/shop' }),
    ).not.toMatch(/s3|c@r|r@t/);
    expect(describeDatabaseTarget({ dialect: 'postgres', connectionString: 'postgres://db/shop' })).toBe(
      'postgres://db/shop',
    );
    expect(describeDatabaseTarget({ dialect: 'sqlite', file: '/srv/app/var/shop.sqlite' })).toBe(
      'sqlite:/srv/app/var/shop.sqlite',
    );
  });
});
