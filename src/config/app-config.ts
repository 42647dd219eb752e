import { resolve } from 'node:path';
import { editorTemplate, parsePathMap, type PathMapping } from './editor-settings.js';
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

export interface ProfilerConfig {
  /** Record a profile for every request; on by default in debug mode, never without it. */
  enabled: boolean;
  /** `sqlite:<file>` (relative to the project), `sqlite::memory:`, or `postgres://…`. */
  dsn: string;
  /** The variable that chose `dsn` (VAR_DIR for the default file): a store that cannot be opened names it. */
  dsnVariable: 'PROFILER_DSN' | 'VAR_DIR';
  /** Clients (addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`) allowed to see debug details. */
  allowedIps: string[];
  /**
   * Host names the debug tools answer for besides loopback names and IP addresses (DNS rebinding): exact names,
   * `.example.com` for it and its subdomains, `*` for any.
   */
  allowedHosts: string[];
  /** Extra field names (regular expressions, case-insensitive) whose values the profiler masks, on top of the built-in ones. */
  redactFields: RegExp[];
  /** Paths (regular expressions, matched against the path) whose requests are not profiled. */
  excludedPaths: RegExp[];
  /** Retention: keep at most this many profiles (0: no limit). */
  maxProfiles: number;
  /** Retention: drop profiles older than this many seconds (0: no limit). */
  maxAgeSeconds: number;
  /** How often retention runs, in milliseconds. */
  retentionIntervalMs: number;
  /** Profiles are written in batches: at most this long after their response, in milliseconds. */
  flushIntervalMs: number;
  /** ...or as soon as this many wait. */
  batchSize: number;
  /** At most this many profiles wait in memory for the store; beyond it the oldest are dropped and counted. */
  bufferLimit: number;
  /** At shutdown, a failing store is retried this long (milliseconds) before the waiting profiles are given up. */
  shutdownTimeoutMs: number;
  /** A request slower than this many milliseconds is coloured in the toolbar and the request list. */
  slowRequestMs: number;
  /** A database query slower than this many milliseconds is marked in the Database panel. */
  slowQueryMs: number;
  /**
   * Where file:line links lead: PROFILER_EDITOR's URL template (null: the profiler's own source view) and
   * PROFILER_EDITOR_PATH_MAP's prefixes, for an editor that sees the files under another path.
   */
  editor: { template: string | null; pathMap: PathMapping[] };
  /** Where stored profiles are also exported as OTLP spans (PROFILER_OTLP_ENDPOINT), and the service's name. */
  otlp: { endpoint: string | null; serviceName: string };
}

export interface DatabaseConfig {
  /** `sqlite:<file>` (relative to the project), `sqlite::memory:`, or `postgres://…` / `postgresql://…`. */
  url: string;
  /** The variable that chose `url` (VAR_DIR for the default file): a database that cannot be opened names it. */
  variable: 'DATABASE_URL' | 'VAR_DIR';
}

export interface SessionConfig {
  /** The session cookie's name. */
  cookieName: string;
  /** Idle lifetime in seconds: a session not used for this long expires (renewed as the visitor comes back). */
  lifetimeSeconds: number;
  /** An unchanged session's expiry is renewed at most this often, in seconds (one write per visitor and period). */
  touchAfterSeconds: number;
}

/** A path the firewall protects, and the roles a visitor needs there (Symfony's access_control). */
export interface AccessRule {
  path: RegExp;
  roles: string[];
}

export interface SecurityConfig {
  /** Where the firewall sends an anonymous visitor who asks for a protected page. */
  loginPath: string;
  /** The first matching rule applies; a path no rule matches is public. */
  accessControl: AccessRule[];
  rememberMeCookieName: string;
  rememberMeLifetimeSeconds: number;
  /**
   * After a remember-me token is rotated, the token it replaced still logs in for this many seconds (requests sent
   * together with the same cookie), and the series is not rotated again meanwhile (Symfony's CacheTokenVerifier).
   */
  rememberMeGraceSeconds: number;
  loginThrottling: LoginThrottlingConfig;
}

/**
 * Failed logins allowed per window (Symfony's login_throttling): `maxAttempts` per account and client address,
 * five times as many per client address whatever the account; registrations count per client address too.
 */
export interface LoginThrottlingConfig {
  maxAttempts: number;
  intervalSeconds: number;
}

/** The address service the checkout asks (off when `url` is null): ADDRESS_CHECK_URL, ADDRESS_CHECK_TIMEOUT_MS. */
export interface AddressCheckConfig {
  url: string | null;
  timeoutMs: number;
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
  /** `split`: errors on stderr, the rest on stdout; `stderr`: every line on stderr (a command whose stdout is data). */
  logOutput: 'split' | 'stderr';
  bodyLimit: string;
  /** Longest request-target (path and query, in bytes) accepted; longer: 414. */
  maxUrlLength: number;
  /** Most header fields a request may have; more: 431. */
  maxHeaderCount: number;
  /** Largest header section (request line and headers, in bytes) Node's HTTP server reads; larger: 431 from Node. */
  maxHeaderSize: number;
  /** Search engines are told not to index anything (X-Robots-Tag: noindex); on by default in debug. */
  disallowRobotsIndexing: boolean;
  /** Keep compiled templates (off in development, so that an edited view shows at once). */
  viewCache: boolean;
  profiler: ProfilerConfig;
  database: DatabaseConfig;
  session: SessionConfig;
  security: SecurityConfig;
  addressCheck: AddressCheckConfig;
  projectDir: string;
  varDir: string;
}

/** The project root: two levels above this file, in src/config/ as in dist/config/. */
export const PROJECT_DIR = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

const list = (value: string | undefined, fallback: string[] = []): string[] =>
  value === undefined
    ? fallback
    : value
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');

const bool = (value: string | undefined, fallback: boolean): boolean =>
  value === undefined || value === '' ? fallback : /^(1|true|yes|on)$/i.test(value);

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** `90`, `90s`, `15m`, `12h`, `7d`, `2w` → seconds (validated by Environment). */
export function duration(value: string): number {
  const m = /^(\d+)\s*([smhdw]?)$/.exec(value.trim());
  if (!m) throw new Error(`Invalid duration "${value}"`);
  return Number(m[1]) * DURATION_UNITS[m[2] || 's'];
}

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
  readonly logOutput!: 'split' | 'stderr';
  readonly bodyLimit!: string;
  readonly maxUrlLength!: number;
  readonly maxHeaderCount!: number;
  readonly maxHeaderSize!: number;
  readonly disallowRobotsIndexing!: boolean;
  readonly viewCache!: boolean;
  readonly profiler!: ProfilerConfig;
  readonly database!: DatabaseConfig;
  readonly session!: SessionConfig;
  readonly security!: SecurityConfig;
  readonly addressCheck!: AddressCheckConfig;
  readonly projectDir!: string;
  readonly varDir!: string;

  constructor(values: AppConfigValues) {
    Object.assign(this, values);
    Object.freeze(this);
  }

  static fromEnv(
    env: Record<string, string | undefined> = process.env,
    overrides: Partial<AppConfigValues> = {},
  ): AppConfig {
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
        allowMethods: list(e.CORS_ALLOW_METHODS, ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']).map((m) =>
          m.toUpperCase(),
        ),
        allowHeaders: list(e.CORS_ALLOW_HEADERS, ['Content-Type', 'Authorization', 'X-Requested-With']),
        exposeHeaders: list(e.CORS_EXPOSE_HEADERS),
        allowCredentials: bool(e.CORS_ALLOW_CREDENTIALS, false),
        maxAge: e.CORS_MAX_AGE ?? 3600,
      },
      maintenance: {
        enabled: bool(e.MAINTENANCE, false),
        file: resolve(projectDir, e.MAINTENANCE_FILE ?? resolve(varDir, 'maintenance')),
        retryAfter: e.MAINTENANCE_RETRY_AFTER ?? 300,
      },
      logLevel: (e.LOG_LEVEL ?? (appEnv === 'test' ? 'none' : 'info')) as LogLevelName,
      logOutput: e.LOG_OUTPUT === 'stderr' ? 'stderr' : 'split',
      bodyLimit: e.BODY_LIMIT ?? '1mb',
      maxUrlLength: e.MAX_URL_LENGTH ?? 8192,
      maxHeaderCount: e.MAX_HEADER_COUNT ?? 100,
      maxHeaderSize: e.MAX_HEADER_SIZE ?? 16_384,
      disallowRobotsIndexing: debug,
      viewCache: bool(e.VIEW_CACHE, appEnv !== 'dev'),
      profiler: {
        enabled: debug && bool(e.PROFILER_ENABLED, true),
        dsn: e.PROFILER_DSN ?? `sqlite:${resolve(varDir, 'profiler.sqlite')}`,
        dsnVariable: e.PROFILER_DSN === undefined ? 'VAR_DIR' : 'PROFILER_DSN',
        allowedIps: list(e.PROFILER_ALLOWED_IPS, ['loopback', 'uniquelocal']),
        allowedHosts: list(e.PROFILER_ALLOWED_HOSTS).map((h) => h.toLowerCase()),
        redactFields: list(e.PROFILER_REDACT_FIELDS).map((p) => new RegExp(p, 'i')),
        excludedPaths: list(e.PROFILER_EXCLUDED_PATHS).map((p) => new RegExp(p)),
        maxProfiles: e.PROFILER_MAX_PROFILES ?? 50_000,
        maxAgeSeconds: duration(e.PROFILER_MAX_AGE ?? '7d'),
        retentionIntervalMs: 60_000,
        flushIntervalMs: e.PROFILER_FLUSH_INTERVAL_MS ?? 100,
        batchSize: 100,
        bufferLimit: e.PROFILER_BUFFER_LIMIT ?? 10_000,
        shutdownTimeoutMs: e.PROFILER_SHUTDOWN_TIMEOUT_MS ?? 10_000,
        slowRequestMs: e.PROFILER_SLOW_MS ?? 500,
        slowQueryMs: e.PROFILER_SLOW_QUERY_MS ?? 50,
        editor: { template: editorTemplate(e.PROFILER_EDITOR), pathMap: parsePathMap(e.PROFILER_EDITOR_PATH_MAP) },
        otlp: { endpoint: e.PROFILER_OTLP_ENDPOINT ?? null, serviceName: e.OTEL_SERVICE_NAME ?? 'shopkernel' },
      },
      database: {
        url: e.DATABASE_URL ?? `sqlite:${resolve(varDir, 'shop.sqlite')}`,
        variable: e.DATABASE_URL === undefined ? 'VAR_DIR' : 'DATABASE_URL',
      },
      addressCheck: { url: e.ADDRESS_CHECK_URL ?? null, timeoutMs: e.ADDRESS_CHECK_TIMEOUT_MS ?? 2000 },
      session: {
        cookieName: e.SESSION_COOKIE_NAME ?? 'SHOPSESSID',
        lifetimeSeconds: duration(e.SESSION_LIFETIME ?? '7d'),
        touchAfterSeconds: 60,
      },
      security: {
        loginPath: '/login',
        accessControl: [
          // The back office also needs ROLE_ADMIN: its handlers say so with @IsGranted (kernel.controller_arguments).
          { path: /^\/(api\/)?(account|checkout|orders|admin)(\/|$)/, roles: ['ROLE_USER'] },
        ],
        rememberMeCookieName: 'REMEMBERME',
        rememberMeLifetimeSeconds: duration(e.REMEMBER_ME_LIFETIME ?? '30d'),
        rememberMeGraceSeconds: 60,
        loginThrottling: {
          maxAttempts: e.LOGIN_THROTTLING_MAX_ATTEMPTS ?? 5,
          intervalSeconds: duration(e.LOGIN_THROTTLING_INTERVAL ?? '1m'),
        },
      },
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
