import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, SqliteDialect, type Dialect } from 'kysely';
import { StatementCache } from './statement-cache.js';
import { dirname } from 'node:path';
import pg from 'pg';
import type { AppConfig } from '../config/app-config.js';
import { ConfigurationError } from '../config/configuration.error.js';
import type { KernelLogger } from '../lifecycle/logging/kernel-logger.js';
import { describeDatabaseTarget, parseDatabaseUrl, type DatabaseTarget } from './database-url.js';
import { DatabaseMigrator } from './database-migrator.js';
import { createDirectory, describeOpenFailure, whyCannotOpen } from './sqlite-file.js';
import { seedCatalogue } from './seed/catalogue.seeder.js';
import { queryEntries } from './query-entries.js';
import { QueryRecorder } from './query-recorder.js';
import type { ShopDatabase } from './schema.js';
import type { ShopDb } from './shop-db.js';

export interface OpenDatabaseOptions {
  /** A relative SQLite file is relative to this directory (the project's). */
  baseDir: string;
  /** Queries are logged on its `database` channel; none: not logged (the CLI). */
  logger?: KernelLogger;
  /** PostgreSQL pool size. */
  poolSize?: number;
}

/**
 * The driver under a ShopDb, for a library that speaks to the database itself (rate-limiter-flexible's stores):
 * the better-sqlite3 database Kysely's connection is, or the pg Pool its connections come from.
 */
export type ShopDbDriver =
  { dialect: 'sqlite'; database: SqliteDatabase.Database } | { dialect: 'postgres'; pool: pg.Pool };

const drivers = new WeakMap<object, { current?: ShopDbDriver }>();

/** The driver of a ShopDb made by createShopDb (SQLite's is opened by the first query: one is run if needed). */
export async function shopDbDriver(db: ShopDb): Promise<ShopDbDriver> {
  const holder = drivers.get(db);
  if (!holder) throw new Error('shopDbDriver: this database was not opened by createShopDb.');
  if (!holder.current) await db.connection().execute(async () => undefined);
  return holder.current!;
}

/** pg's type ids of what it would otherwise return as strings or Dates. */
const PG_INT8 = 20;
const PG_NUMERIC = 1700;
const PG_TIMESTAMPTZ = 1184;

/**
 * The shop's Kysely instance for a DATABASE_URL: better-sqlite3 (WAL, foreign keys on, a busy timeout) or a pg
 * Pool, with every query reported to the QueryRecorder. The returned instance is not migrated yet: see
 * DatabaseMigrator. Close it with `destroy()`.
 */
export function createShopDb(url: string, options: OpenDatabaseOptions): ShopDb {
  const target = parseDatabaseUrl(url, options.baseDir);
  const recorder = new QueryRecorder(options.logger);
  const holder: { current?: ShopDbDriver } = {};
  const db = new Kysely<ShopDatabase>({
    dialect: dialectFor(target, options, holder),
    plugins: [recorder],
    log: recorder.log,
  });
  recorder.recognise(queryEntries(db));
  drivers.set(db, holder);
  return db as ShopDb;
}

/**
 * The application's ShopDb: connected to DATABASE_URL and migrated before anything can inject it, so the
 * application does not start (nor serve) on a database it cannot migrate.
 */
export async function openMigratedShopDb(config: AppConfig, logger: KernelLogger): Promise<ShopDb> {
  const db = createShopDb(config.database.url, { baseDir: config.projectDir, logger });
  const parsed = parseDatabaseUrl(config.database.url, config.projectDir);
  const target = describeDatabaseTarget(parsed);
  try {
    await connect(db, parsed, target, config.database.variable);
    const applied = await new DatabaseMigrator(db, target).migrateToLatest();
    for (const migration of applied)
      logger.channel('database').info('Applied migration {migration} to {database}', { migration, database: target });
    // The quick start (`npm start`) shows a shop with something in it: an empty development catalogue gets the demo one.
    if (config.env === 'dev' && !(await db.selectFrom('products').select('id').limit(1).executeTakeFirst())) {
      const report = await seedCatalogue(db);
      logger.channel('database').info('Loaded the demo catalogue ({products} products) into the empty {database}', {
        products: report.products,
        database: target,
      });
    }
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw error;
  }
  return db;
}

/**
 * A first statement, so that a database that cannot be opened (a path under a file, a server that refuses) is a
 * configuration mistake naming the variable, told apart from a migration that fails.
 */
async function connect(db: ShopDb, parsed: DatabaseTarget, target: string, variable: string): Promise<void> {
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    const why =
      (parsed.dialect === 'sqlite' ? whyCannotOpen(parsed.file, error) : undefined) ?? describeOpenFailure(error);
    throw new ConfigurationError(variable, `cannot open the shop database ${target}: ${why}`);
  }
}

function dialectFor(target: DatabaseTarget, options: OpenDatabaseOptions, driver: { current?: ShopDbDriver }): Dialect {
  if (target.dialect === 'sqlite') {
    return new SqliteDialect({
      database: async () => {
        if (target.file !== ':memory:') await createDirectory(dirname(target.file));
        const database = new SqliteDatabase(target.file);
        database.pragma('journal_mode = WAL');
        database.pragma('synchronous = NORMAL');
        database.pragma('foreign_keys = ON');
        database.pragma('busy_timeout = 5000');
        driver.current = { dialect: 'sqlite', database };
        return new StatementCache(database);
      },
    });
  }
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    max: options.poolSize ?? 10,
    types: { getTypeParser },
  });
  // An idle client losing its connection (server restart) must not crash the process: the pool replaces it.
  pool.on('error', (error) => {
    options.logger?.channel('database').error('PostgreSQL connection error: {message}', { message: error.message });
  });
  driver.current = { dialect: 'postgres', pool };
  return new PostgresDialect({ pool });
}

/**
 * The same values on both dialects: counts and sums (int8) and numerics as numbers, as SQLite returns them, and
 * timestamptz as ISO 8601 text, as the SQLite schema stores times.
 */
const getTypeParser = ((id: number, format?: 'text' | 'binary') => {
  if (format === 'binary') return pg.types.getTypeParser(id as never, 'binary');
  switch (id) {
    case PG_INT8:
    case PG_NUMERIC:
      return (value: string) => Number(value);
    case PG_TIMESTAMPTZ: {
      const parseDate = pg.types.getTypeParser(PG_TIMESTAMPTZ, 'text') as (value: string) => Date | number;
      return (value: string) => {
        const date = parseDate(value);
        return date instanceof Date && !Number.isNaN(date.getTime()) ? date.toISOString() : value;
      };
    }
    default:
      return pg.types.getTypeParser(id as never, 'text');
  }
}) as pg.CustomTypesConfig['getTypeParser'];
