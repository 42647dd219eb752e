import { Redactor } from '../../../lifecycle/redaction/redactor.js';

/** A PostgreSQL profiler DSN, read: what pg connects with, and the schema the store's tables live in. */
export interface PostgresProfilerTarget {
  /** The DSN without its `schema` parameter (pg's own parameters, such as `sslmode`, are kept). */
  connectionString: string;
  /** Default `public`. */
  schema: string;
}

/** A schema name as the store accepts it: always quoted in SQL, so it is used exactly as written. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** `postgres://…` or `postgresql://…` (case-insensitive). */
export function isPostgresDsn(dsn: string): boolean {
  return /^postgres(ql)?:\/\/./i.test(dsn.trim());
}

/**
 * Reads `postgres://user:password@host:port/db?schema=name&sslmode=…`: the `schema` parameter (default `public`)
 * is the store's, every other parameter is pg's.
 */
export function parsePostgresProfilerDsn(dsn: string): PostgresProfilerTarget {
  const value = dsn.trim();
  const hash = value.indexOf('#');
  const withoutFragment = hash < 0 ? value : value.slice(0, hash);
  const question = withoutFragment.indexOf('?');
  if (question < 0) return { connectionString: withoutFragment, schema: 'public' };
  const params = new URLSearchParams(withoutFragment.slice(question + 1));
  const schemas = params.getAll('schema');
  if (schemas.length > 1)
    throw new Error(`The profiler DSN ${maskDsn(value)} names the schema ${schemas.length} times: give "schema" once.`);
  const schema = schemas[0] ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(
      `The profiler DSN's schema "${schema}" is not a valid name: use letters, digits and underscores (at most 63, not starting with a digit).`,
    );
  }
  params.delete('schema');
  const rest = params.toString();
  return { connectionString: withoutFragment.slice(0, question) + (rest === '' ? '' : `?${rest}`), schema };
}

/** The DSN as it may be shown (errors, logs): its password masked, by the one redaction of everything printed. */
export function maskDsn(dsn: string): string {
  return Redactor.url(dsn);
}
