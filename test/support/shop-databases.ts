import pg from 'pg';
import { describePostgres, POSTGRES_URL } from './postgres.js';

export interface TestDatabase {
  /** DATABASE_URL of the app (undefined: createTestApp's in-memory SQLite). */
  url?: string;
  teardown?: () => Promise<void>;
}

/** A PostgreSQL schema of its own (dropped by teardown), as a DATABASE_URL whose search_path is that schema. */
export async function postgresSchema(label: string): Promise<TestDatabase> {
  const schema = `shopkernel_${label}_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    teardown: async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/**
 * Runs a suite twice: on in-memory SQLite and on a PostgreSQL schema of its own (skipped without a server,
 * except in CI). The suite gets the database to create its app with.
 */
export function describeOnEachDatabase(
  title: string,
  label: string,
  suite: (database: () => Promise<TestDatabase>) => void,
): void {
  describe(`${title} on SQLite (e2e)`, () => suite(async () => ({})));
  describePostgres(`${title} PostgreSQL tests`)(`${title} on PostgreSQL (e2e)`, () =>
    suite(() => postgresSchema(label)),
  );
}
