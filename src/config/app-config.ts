import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateEnvironment } from './environment.js';

export type AppEnv = 'dev' | 'test' | 'prod';
export type LogLevelName = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'none';

export interface CorsConfig {
  /** Allowed origins; `*` allows any. Empty: CORS is off and no CORS header is ever sent. */
  allowOrigins: string[];
  allowMethods: string[];
  allowHeaders: string[];
  exposeHeaders: string[];
  allowCredentials: boolean;
  maxAge: number;
}

export interface AppConfigValues {
  env: AppEnv;
  debug: boolean;
  port: number;
  host: string;
  /** Proxy addresses or CIDR ranges (or `loopback`, `linklocal`, `uniquelocal`) whose X-Forwarded-* headers are believed. */
  trustedProxies: string[];
  /** Host patterns (regular expressions, anchored) the application answers for; empty allows any valid host. */
  trustedHosts: RegExp[];
  defaultLocale: string;
  supportedLocales: string[];
  cors: CorsConfig;
  maintenance: { enabled: boolean; file: string; retryAfter: number };
  logLevel: LogLevelName;
  bodyLimit: string;
  /** Search engines are told not to index anything (X-Robots-Tag: noindex); on by default in debug. */
  disallowRobotsIndexing: boolean;
  projectDir: string;
  varDir: string;
}

/** The project root: two levels above this file, in src/config/ as in dist/config/. */
export const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

const list = (value: string | undefined, fallback: string[] = []): string[] =>
  value === undefined ? fallback : value.split(',').map((v) => v.trim()).filter((v) => v !== '');

const bool = (value: string | undefined, fallback: boolean): boolean =>
  value === undefined || value === '' ? fallback : /^(1|true|yes|on)$/i.test(value);

/**
 * The application's configuration: read from the environment once, at start, validated, typed.
 * Everything configurable is here and documented in the README.
 */
export class AppConfig implements AppConfigValues {
  readonly env!: AppEnv;
  readonly debug!: boolean;
  readonly port!: number;
  readonly host!: string;
  readonly trustedProxies!: string[];
  readonly trustedHosts!: RegExp[];
  readonly defaultLocale!: string;
  readonly supportedLocales!: string[];
  readonly cors!: CorsConfig;
  readonly maintenance!: { enabled: boolean; file: string; retryAfter: number };
  readonly logLevel!: LogLevelName;
  readonly bodyLimit!: string;
  readonly disallowRobotsIndexing!: boolean;
  readonly projectDir!: string;
  readonly varDir!: string;

  constructor(values: AppConfigValues) {
    Object.assign(this, values);
    Object.freeze(this);
  }

  static fromEnv(env: Record<string, string | undefined> = process.env, overrides: Partial<AppConfigValues> = {}): AppConfig {
    const e = validateEnvironment(env);
    const appEnv = (e.APP_ENV ?? 'dev') as AppEnv;
    const debug = bool(e.APP_DEBUG, appEnv !== 'prod');
    const projectDir = overrides.projectDir ?? PROJECT_DIR;
    const varDir = resolve(projectDir, e.VAR_DIR ?? 'var');
    const defaultLocale = e.DEFAULT_LOCALE ?? 'en';
    const supported = list(e.SUPPORTED_LOCALES, ['en', 'fr', 'de']);
    return new AppConfig({
      env: appEnv,
      debug,
      port: e.PORT ?? 3000,
      host: e.HOST ?? '127.0.0.1',
      trustedProxies: list(e.TRUSTED_PROXIES),
      trustedHosts: list(e.TRUSTED_HOSTS).map((p) => new RegExp(`^(?:${p})$`, 'i')),
      defaultLocale,
      supportedLocales: supported.includes(defaultLocale) ? supported : [defaultLocale, ...supported],
      cors: {
        allowOrigins: list(e.CORS_ALLOW_ORIGINS),
        allowMethods: list(e.CORS_ALLOW_METHODS, ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']).map((m) => m.toUpperCase()),
        allowHeaders: list(e.CORS_ALLOW_HEADERS, ['Content-Type', 'Authorization', 'X-Requested-With']),
        exposeHeaders: list(e.CORS_EXPOSE_HEADERS, ['X-Debug-Token', 'X-Debug-Token-Link']),
        allowCredentials: bool(e.CORS_ALLOW_CREDENTIALS, false),
        maxAge: e.CORS_MAX_AGE ?? 3600,
      },
      maintenance: {
        enabled: bool(e.MAINTENANCE, false),
        file: resolve(projectDir, e.MAINTENANCE_FILE ?? resolve(varDir, 'maintenance')),
        retryAfter: e.MAINTENANCE_RETRY_AFTER ?? 300,
      },
      logLevel: (e.LOG_LEVEL ?? (appEnv === 'test' ? 'none' : 'info')) as LogLevelName,
      bodyLimit: e.BODY_LIMIT ?? '1mb',
      disallowRobotsIndexing: debug,
      projectDir,
      varDir,
      ...overrides,
    });
  }

  /** A copy with some values replaced (tests, tools). */
  with(overrides: Partial<AppConfigValues>): AppConfig {
    return new AppConfig({ ...this, ...overrides });
  }
}
