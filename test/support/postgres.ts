import pg from 'pg';

/**
 * The machine's PostgreSQL (127.0.0.1:5432, trust auth, database `test`), or TEST_POSTGRES_URL. Tests that need it
 * run in a schema of their own and drop it afterwards. Without a server they are skipped, except in CI (CI=true),
 * where they run and fail.
 */
export const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const IN_CI = process.env.CI === 'true';

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export const POSTGRES_AVAILABLE = await postgresAnswers();

/** `describe` when PostgreSQL answers (or in CI), else `describe.skip` with a line on stderr saying why. */
export function describePostgres(what: string): jest.Describe {
  if (POSTGRES_AVAILABLE || IN_CI) return describe;
  process.stderr.write(`${what} skipped: no PostgreSQL server answers at ${POSTGRES_URL}.\n`);
  return describe.skip;
}

/** Drops a test's own schema and everything in it (the tests' clean-up). */
export async function dropSchema(schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await admin.end();
  }
}
