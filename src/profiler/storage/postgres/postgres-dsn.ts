import { Redactor } from '../../../lifecycle/redaction/redactor.js';

export interface PostgresProfilerTarget {
  /** Without `schema` (pg's own parameters are kept). */
  connectionString: string;
  schema: string;
}

/** Always quoted in SQL, so it is used exactly as written. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function isPostgresDsn(dsn: string): boolean {
  return /^postgres(ql)?:\/\/./i.test(dsn.trim());
}

/** `?schema=` (default `public`) is the store's; every other parameter is pg's. */
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

/** By the one redaction of everything printed. */
export function maskDsn(dsn: string): string {
  return Redactor.url(dsn);
}
