import { plainToInstance } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, validateSync } from 'class-validator';

const BOOLEAN = /^(1|0|true|false|yes|no|on|off)?$/i;

/** The environment variables the application reads, as strings, validated once at start. */
export class Environment {
  @IsOptional() @IsIn(['dev', 'test', 'prod']) APP_ENV?: string;
  @IsOptional() @Matches(BOOLEAN) APP_DEBUG?: string;
  @IsOptional() @IsInt() @Min(0) @Max(65535) PORT?: number;
  @IsOptional() @IsString() HOST?: string;
  @IsOptional() @IsString() TRUSTED_PROXIES?: string;
  @IsOptional() @IsString() TRUSTED_HOSTS?: string;
  @IsOptional() @Matches(/^[a-z]{2}(_[A-Z]{2})?$/) DEFAULT_LOCALE?: string;
  @IsOptional() @Matches(/^([a-z]{2}(_[A-Z]{2})?)(,\s*[a-z]{2}(_[A-Z]{2})?)*$/) SUPPORTED_LOCALES?: string;
  @IsOptional() @IsString() CORS_ALLOW_ORIGINS?: string;
  @IsOptional() @IsString() CORS_ALLOW_METHODS?: string;
  @IsOptional() @IsString() CORS_ALLOW_HEADERS?: string;
  @IsOptional() @IsString() CORS_EXPOSE_HEADERS?: string;
  @IsOptional() @Matches(BOOLEAN) CORS_ALLOW_CREDENTIALS?: string;
  @IsOptional() @IsInt() @Min(0) CORS_MAX_AGE?: number;
  @IsOptional() @Matches(BOOLEAN) MAINTENANCE?: string;
  @IsOptional() @IsString() MAINTENANCE_FILE?: string;
  @IsOptional() @IsInt() @Min(0) MAINTENANCE_RETRY_AFTER?: number;
  @IsOptional() @IsIn(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'none']) LOG_LEVEL?: string;
  @IsOptional() @IsIn(['split', 'stderr']) LOG_OUTPUT?: string;
  @IsOptional() @IsString() BODY_LIMIT?: string;
  @IsOptional() @IsInt() @Min(1) MAX_URL_LENGTH?: number;
  @IsOptional() @IsInt() @Min(1) MAX_HEADER_COUNT?: number;
  @IsOptional() @IsInt() @Min(1024) @Max(1_048_576) MAX_HEADER_SIZE?: number;
  @IsOptional() @IsString() VAR_DIR?: string;
  @IsOptional() @Matches(BOOLEAN) PROFILER_ENABLED?: string;
  @IsOptional() @Matches(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/) PROFILER_DSN?: string;
  @IsOptional() @IsString() PROFILER_EXCLUDED_PATHS?: string;
  @IsOptional() @IsString() PROFILER_ALLOWED_IPS?: string;
  @IsOptional()
  @Matches(/^\s*(\*|\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?)?\s*(,\s*(\*|\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?)\s*)*$/i, {
    message:
      'PROFILER_ALLOWED_HOSTS must be host names separated by commas (".example.com" for it and its subdomains, "*" for any)',
  })
  PROFILER_ALLOWED_HOSTS?: string;
  @IsOptional() @IsString() PROFILER_REDACT_FIELDS?: string;
  @IsOptional() @Matches(BOOLEAN) VIEW_CACHE?: string;
  @IsOptional() @IsInt() @Min(0) PROFILER_MAX_PROFILES?: number;
  @IsOptional() @Matches(/^\d+\s*[smhdw]?$/) PROFILER_MAX_AGE?: string;
  @IsOptional() @IsInt() @Min(1) @Max(60_000) PROFILER_FLUSH_INTERVAL_MS?: number;
  @IsOptional() @IsInt() @Min(1) PROFILER_BUFFER_LIMIT?: number;
  @IsOptional() @IsInt() @Min(0) @Max(600_000) PROFILER_SHUTDOWN_TIMEOUT_MS?: number;
  @IsOptional() @IsInt() @Min(1) @Max(600_000) PROFILER_SLOW_MS?: number;
  @IsOptional() @IsInt() @Min(1) @Max(600_000) PROFILER_SLOW_QUERY_MS?: number;
  @IsOptional() @IsString() PROFILER_EDITOR?: string;
  @IsOptional() @IsString() PROFILER_EDITOR_PATH_MAP?: string;
  @IsOptional() @Matches(/^https?:\/\/[^/\s]+/) PROFILER_OTLP_ENDPOINT?: string;
  @IsOptional() @Matches(/^[\w.-]{1,100}$/) OTEL_SERVICE_NAME?: string;
  @IsOptional() @Matches(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/) DATABASE_URL?: string;
  @IsOptional() @Matches(/^https?:\/\/[^/\s]+/) ADDRESS_CHECK_URL?: string;
  @IsOptional() @IsInt() @Min(1) ADDRESS_CHECK_TIMEOUT_MS?: number;
  @IsOptional() @Matches(/^[A-Za-z0-9_-]{1,64}$/) SESSION_COOKIE_NAME?: string;
  @IsOptional() @Matches(/^[1-9]\d*\s*[smhdw]?$/) SESSION_LIFETIME?: string;
  @IsOptional() @Matches(/^[1-9]\d*\s*[smhdw]?$/) REMEMBER_ME_LIFETIME?: string;
  @IsOptional() @IsInt() @Min(1) @Max(1000) LOGIN_THROTTLING_MAX_ATTEMPTS?: number;
  @IsOptional() @Matches(/^[1-9]\d*\s*[smh]?$/) LOGIN_THROTTLING_INTERVAL?: string;
}

export class InvalidEnvironmentError extends Error {
  constructor(problems: string[]) {
    super(`Invalid environment:\n  - ${problems.join('\n  - ')}`);
    this.name = 'InvalidEnvironmentError';
  }
}

export function validateEnvironment(env: Record<string, string | undefined>): Environment {
  const relevant: Record<string, string> = {};
  for (const key of ENV_KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') relevant[key] = value;
  }
  const instance = plainToInstance(Environment, relevant, { enableImplicitConversion: false });
  for (const key of [
    'PORT',
    'CORS_MAX_AGE',
    'MAINTENANCE_RETRY_AFTER',
    'PROFILER_MAX_PROFILES',
    'PROFILER_FLUSH_INTERVAL_MS',
    'PROFILER_BUFFER_LIMIT',
    'PROFILER_SHUTDOWN_TIMEOUT_MS',
    'MAX_URL_LENGTH',
    'MAX_HEADER_COUNT',
    'MAX_HEADER_SIZE',
    'LOGIN_THROTTLING_MAX_ATTEMPTS',
    'PROFILER_SLOW_MS',
    'PROFILER_SLOW_QUERY_MS',
  ] as const) {
    if (relevant[key] !== undefined)
      (instance as unknown as Record<string, unknown>)[key] = /^\d+$/.test(relevant[key])
        ? Number(relevant[key])
        : relevant[key];
  }
  const errors = validateSync(instance, { skipMissingProperties: false });
  if (errors.length > 0) {
    throw new InvalidEnvironmentError(
      errors.map((e) => `${e.property}=${JSON.stringify(e.value)}: ${Object.values(e.constraints ?? {}).join(', ')}`),
    );
  }
  return instance;
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
