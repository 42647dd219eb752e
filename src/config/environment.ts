import { plainToInstance } from 'class-transformer';
import { IsIn, IsOptional, IsString, Matches, ValidateBy, validateSync, type ValidationOptions } from 'class-validator';
import proxyAddr from 'proxy-addr';
import { WholeNumber } from '../lifecycle/whole-number.decorator.js';
import { ConfigurationError } from './configuration.error.js';

const BOOLEAN = /^(1|0|true|false|yes|no|on|off)?$/i;
const DSN = /^(sqlite:.+|postgres(ql)?:\/\/.+)$/i;
const DURATION = /^\d+\s*[smhdw]?$/;
const POSITIVE_DURATION = /^[1-9]\d*\s*[smhdw]?$/;
const LOCALE = /^[a-z]{2}(_[A-Z]{2})?$/;
/** The largest whole number an environment variable can give (WholeNumber reads at most nine digits). */
const NO_LIMIT = 999_999_999;

/** Each decorator says what is wrong in words a reader of the one start-up line understands. */
const Flag = () => Matches(BOOLEAN, { message: 'must be one of 1, 0, true, false, yes, no, on, off' });
const OneOf = (values: string[]) => IsIn(values, { message: `must be one of ${values.join(', ')}` });
const Whole = (min: number, max = NO_LIMIT) =>
  WholeNumber(min, max, {
    message:
      max === NO_LIMIT ? `must be a whole number, at least ${min}` : `must be a whole number from ${min} to ${max}`,
  });
const Pattern = (pattern: RegExp, what: string) => Matches(pattern, { message: `must be ${what}` });
/** `sqlite:<file>`, `sqlite::memory:`, or a PostgreSQL URL a URL parser reads (else it is quoted by pg's errors). */
const Dsn = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'dsn',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && DSN.test(value) && (/^sqlite:/i.test(value) || URL.canParse(value.trim())),
        defaultMessage: () => 'must be sqlite:<file>, sqlite::memory:, or a valid postgres:// or postgresql:// URL',
      },
    },
    options,
  );
const Duration = (pattern = DURATION) => Pattern(pattern, 'a duration such as 90s, 15m, 12h, 7d or 2w');

/** An absolute http:// or https:// URL that a URL parser reads (its host included). */
function HttpUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'httpUrl',
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string' || !/^https?:\/\/[^/\s]+/i.test(value)) return false;
          return URL.canParse(value);
        },
        defaultMessage: () => 'must be an http:// or https:// URL',
      },
    },
    options,
  );
}

/** Regular expressions separated by commas, each one JavaScript compiles. */
function RegExpList(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'regExpList',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && value.split(',').every(compiles),
        defaultMessage: () => 'must be regular expressions separated by commas, each a valid one',
      },
    },
    options,
  );
}

/** Addresses and CIDR ranges separated by commas (or loopback, linklocal, uniquelocal), as Express trusts them. */
function AddressList(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'addressList',
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          try {
            proxyAddr.compile(
              value
                .split(',')
                .map((v) => v.trim())
                .filter((v) => v !== ''),
            );
            return true;
          } catch {
            return false;
          }
        },
        defaultMessage: () =>
          'must be addresses or CIDR ranges (or loopback, linklocal, uniquelocal) separated by commas',
      },
    },
    options,
  );
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern.trim());
    return true;
  } catch {
    return false;
  }
}

/** The environment variables the application reads, as strings, validated once at start. */
export class Environment {
  @IsOptional() @OneOf(['dev', 'test', 'prod']) APP_ENV?: string;
  @IsOptional() @Flag() APP_DEBUG?: string;
  @IsOptional() @Whole(0, 65535) PORT?: number;
  @IsOptional() @IsString() HOST?: string;
  @IsOptional() @AddressList() TRUSTED_PROXIES?: string;
  @IsOptional() @RegExpList() TRUSTED_HOSTS?: string;
  @IsOptional() @Pattern(LOCALE, 'a locale such as en or fr_FR') DEFAULT_LOCALE?: string;
  @IsOptional()
  @Pattern(/^([a-z]{2}(_[A-Z]{2})?)(,\s*[a-z]{2}(_[A-Z]{2})?)*$/, 'locales separated by commas, such as en,fr,de_CH')
  SUPPORTED_LOCALES?: string;
  @IsOptional() @IsString() CORS_ALLOW_ORIGINS?: string;
  @IsOptional() @IsString() CORS_ALLOW_METHODS?: string;
  @IsOptional() @IsString() CORS_ALLOW_HEADERS?: string;
  @IsOptional() @IsString() CORS_EXPOSE_HEADERS?: string;
  @IsOptional() @Flag() CORS_ALLOW_CREDENTIALS?: string;
  @IsOptional() @Whole(0) CORS_MAX_AGE?: number;
  @IsOptional() @Flag() MAINTENANCE?: string;
  @IsOptional() @IsString() MAINTENANCE_FILE?: string;
  @IsOptional() @Whole(0) MAINTENANCE_RETRY_AFTER?: number;
  @IsOptional() @OneOf(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'none']) LOG_LEVEL?: string;
  @IsOptional() @OneOf(['split', 'stderr']) LOG_OUTPUT?: string;
  @IsOptional() @Pattern(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, 'a size such as 512kb or 1mb') BODY_LIMIT?: string;
  @IsOptional() @Whole(1) MAX_URL_LENGTH?: number;
  @IsOptional() @Whole(1) MAX_HEADER_COUNT?: number;
  @IsOptional() @Whole(1024, 1_048_576) MAX_HEADER_SIZE?: number;
  @IsOptional() @IsString() VAR_DIR?: string;
  @IsOptional() @Flag() PROFILER_ENABLED?: string;
  @IsOptional() @Dsn() PROFILER_DSN?: string;
  @IsOptional() @RegExpList() PROFILER_EXCLUDED_PATHS?: string;
  @IsOptional() @AddressList() PROFILER_ALLOWED_IPS?: string;
  @IsOptional()
  @Pattern(
    /^\s*(\*|\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?)?\s*(,\s*(\*|\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?)\s*)*$/i,
    'host names separated by commas (".example.com" for it and its subdomains, "*" for any)',
  )
  PROFILER_ALLOWED_HOSTS?: string;
  @IsOptional() @RegExpList() PROFILER_REDACT_FIELDS?: string;
  @IsOptional() @Flag() VIEW_CACHE?: string;
  @IsOptional() @Whole(0) PROFILER_MAX_PROFILES?: number;
  @IsOptional() @Duration() PROFILER_MAX_AGE?: string;
  @IsOptional() @Whole(1, 60_000) PROFILER_FLUSH_INTERVAL_MS?: number;
  @IsOptional() @Whole(1) PROFILER_BUFFER_LIMIT?: number;
  @IsOptional() @Whole(0, 600_000) PROFILER_SHUTDOWN_TIMEOUT_MS?: number;
  @IsOptional() @Whole(1, 600_000) PROFILER_SLOW_MS?: number;
  @IsOptional() @Whole(1, 600_000) PROFILER_SLOW_QUERY_MS?: number;
  @IsOptional() @IsString() PROFILER_EDITOR?: string;
  @IsOptional() @IsString() PROFILER_EDITOR_PATH_MAP?: string;
  @IsOptional() @HttpUrl() PROFILER_OTLP_ENDPOINT?: string;
  @IsOptional()
  @Pattern(/^[\w.-]{1,100}$/, 'at most 100 letters, digits, dots, dashes or underscores')
  OTEL_SERVICE_NAME?: string;
  @IsOptional() @Dsn() DATABASE_URL?: string;
  @IsOptional() @HttpUrl() ADDRESS_CHECK_URL?: string;
  @IsOptional() @Whole(1, 600_000) ADDRESS_CHECK_TIMEOUT_MS?: number;
  @IsOptional()
  @Pattern(/^[A-Za-z0-9_-]{1,64}$/, 'at most 64 letters, digits, dashes or underscores')
  SESSION_COOKIE_NAME?: string;
  @IsOptional() @Duration(POSITIVE_DURATION) SESSION_LIFETIME?: string;
  @IsOptional() @Duration(POSITIVE_DURATION) REMEMBER_ME_LIFETIME?: string;
  @IsOptional() @Whole(1, 1000) LOGIN_THROTTLING_MAX_ATTEMPTS?: number;
  @IsOptional() @Pattern(/^[1-9]\d*\s*[smh]?$/, 'a duration such as 90s, 15m or 1h') LOGIN_THROTTLING_INTERVAL?: string;
}

/**
 * Variables whose value is a URL or a DSN: a mistake in one is described without quoting it, since the redaction
 * can only mask the credentials of a URL it recognises as one.
 */
const UNQUOTED = /(_URL|_DSN|_ENDPOINT)$/;

/**
 * The environment, checked: a ConfigurationError naming each variable that is wrong and what it must be. Whole
 * numbers become numbers by their declaration (WholeNumber), so a new numeric variable needs nothing else.
 */
export function validateEnvironment(env: Record<string, string | undefined>): Environment {
  const relevant: Record<string, string> = {};
  for (const key of ENV_KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') relevant[key] = value;
  }
  const instance = plainToInstance(Environment, relevant);
  const errors = validateSync(instance, { stopAtFirstError: true });
  if (errors.length > 0) {
    throw new ConfigurationError(
      errors.map((e) => {
        const what = Object.values(e.constraints ?? {})[0] ?? 'is not valid';
        return { variable: e.property, problem: `${what} (got ${shown(e.property, relevant[e.property])})` };
      }),
    );
  }
  return instance;
}

/** A wrong value as the start-up line quotes it: a URL by its scheme alone (`scheme://`, which no password precedes). */
function shown(variable: string, value: string): string {
  if (!UNQUOTED.test(variable)) return JSON.stringify(value);
  const scheme = /^([a-z][a-z0-9+.-]{0,19}):\/\//i.exec(value.trim())?.[1];
  return scheme === undefined ? 'something else' : `a "${scheme}:" URL`;
}

/** Keys of Environment, listed because class fields without initialisers do not exist on instances. */
export const ENV_KEYS = [
  'APP_ENV',
  'APP_DEBUG',
  'PORT',
  'HOST',
  'TRUSTED_PROXIES',
  'TRUSTED_HOSTS',
  'DEFAULT_LOCALE',
  'SUPPORTED_LOCALES',
  'CORS_ALLOW_ORIGINS',
  'CORS_ALLOW_METHODS',
  'CORS_ALLOW_HEADERS',
  'CORS_EXPOSE_HEADERS',
  'CORS_ALLOW_CREDENTIALS',
  'CORS_MAX_AGE',
  'MAINTENANCE',
  'MAINTENANCE_FILE',
  'MAINTENANCE_RETRY_AFTER',
  'LOG_LEVEL',
  'LOG_OUTPUT',
  'BODY_LIMIT',
  'VAR_DIR',
  'PROFILER_ENABLED',
  'PROFILER_DSN',
  'PROFILER_EXCLUDED_PATHS',
  'PROFILER_MAX_PROFILES',
  'PROFILER_MAX_AGE',
  'PROFILER_FLUSH_INTERVAL_MS',
  'PROFILER_BUFFER_LIMIT',
  'DATABASE_URL',
  'ADDRESS_CHECK_URL',
  'ADDRESS_CHECK_TIMEOUT_MS',
  'SESSION_COOKIE_NAME',
  'SESSION_LIFETIME',
  'REMEMBER_ME_LIFETIME',
  'PROFILER_ALLOWED_IPS',
  'PROFILER_REDACT_FIELDS',
  'PROFILER_SHUTDOWN_TIMEOUT_MS',
  'VIEW_CACHE',
  'MAX_URL_LENGTH',
  'MAX_HEADER_COUNT',
  'MAX_HEADER_SIZE',
  'PROFILER_ALLOWED_HOSTS',
  'LOGIN_THROTTLING_MAX_ATTEMPTS',
  'LOGIN_THROTTLING_INTERVAL',
  'PROFILER_SLOW_MS',
  'PROFILER_SLOW_QUERY_MS',
  'PROFILER_EDITOR',
  'PROFILER_EDITOR_PATH_MAP',
  'PROFILER_OTLP_ENDPOINT',
  'OTEL_SERVICE_NAME',
];
