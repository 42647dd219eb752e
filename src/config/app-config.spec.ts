import { AppConfig } from './app-config.js';
import { ConfigurationError } from './configuration.error.js';

/** The error AppConfig.fromEnv throws for this environment (none: the test fails). */
function mistake(env: Record<string, string>): ConfigurationError {
  try {
    AppConfig.fromEnv(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error(`No mistake found in ${JSON.stringify(env)}`);
}

describe('AppConfig.fromEnv: a configuration mistake', () => {
  it.each([
    [{ APP_DEBUG: 'maybe' }, 'APP_DEBUG: must be one of 1, 0, true, false, yes, no, on, off (got "maybe")'],
    [{ APP_ENV: 'staging' }, 'APP_ENV: must be one of dev, test, prod (got "staging")'],
    [{ PORT: 'abc' }, 'PORT: must be a whole number from 0 to 65535 (got "abc")'],
    [{ PORT: '70000' }, 'PORT: must be a whole number from 0 to 65535 (got "70000")'],
    [{ PORT: '80.5' }, 'PORT: must be a whole number from 0 to 65535 (got "80.5")'],
    [
      { ADDRESS_CHECK_TIMEOUT_MS: 'abc' },
      'ADDRESS_CHECK_TIMEOUT_MS: must be a whole number from 1 to 600000 (got "abc")',
    ],
    [
      { ADDRESS_CHECK_TIMEOUT_MS: '-1' },
      'ADDRESS_CHECK_TIMEOUT_MS: must be a whole number from 1 to 600000 (got "-1")',
    ],
    [{ ADDRESS_CHECK_TIMEOUT_MS: '0' }, 'ADDRESS_CHECK_TIMEOUT_MS: must be a whole number from 1 to 600000 (got "0")'],
    [{ PROFILER_MAX_PROFILES: 'lots' }, 'PROFILER_MAX_PROFILES: must be a whole number, at least 0 (got "lots")'],
    [{ SESSION_LIFETIME: '0' }, 'SESSION_LIFETIME: must be a duration such as 90s, 15m, 12h, 7d or 2w (got "0")'],
    [
      { TRUSTED_HOSTS: 'shop\\.example,a)(b' },
      'TRUSTED_HOSTS: must be regular expressions separated by commas, each a valid one (got "shop\\\\.example,a)(b")',
    ],
    [
      { PROFILER_EXCLUDED_PATHS: '[' },
      'PROFILER_EXCLUDED_PATHS: must be regular expressions separated by commas, each a valid one (got "[")',
    ],
    [
      { PROFILER_REDACT_FIELDS: '(' },
      'PROFILER_REDACT_FIELDS: must be regular expressions separated by commas, each a valid one (got "(")',
    ],
    [
      { TRUSTED_PROXIES: '10.0.0.0/99' },
      'TRUSTED_PROXIES: must be addresses or CIDR ranges (or loopback, linklocal, uniquelocal) separated by commas (got "10.0.0.0/99")',
    ],
    [
      { PROFILER_ALLOWED_IPS: 'loopback,nowhere' },
      'PROFILER_ALLOWED_IPS: must be addresses or CIDR ranges (or loopback, linklocal, uniquelocal) separated by commas (got "loopback,nowhere")',
    ],
    [{ BODY_LIMIT: 'lots' }, 'BODY_LIMIT: must be a size such as 512kb or 1mb (got "lots")'],
  ])('%p is one line naming the variable: %s', (env, message) => {
    const error = mistake(env);
    expect(error.message).toBe(message);
    expect(error.variables).toEqual([Object.keys(env)[0]]);
  });

  it.each([
    [
      'DATABASE_URL',
      'mysql://shop:PW@db',
      'must be sqlite:<file>, sqlite::memory:, or a valid postgres:// or postgresql:// URL (got a "mysql:" URL)',
    ],
    [
      'PROFILER_DSN',
      'mysql://shop:PW@db',
      'must be sqlite:<file>, sqlite::memory:, or a valid postgres:// or postgresql:// URL (got a "mysql:" URL)',
    ],
    [
      'PROFILER_DSN',
      'shop:PW@db',
      'must be sqlite:<file>, sqlite::memory:, or a valid postgres:// or postgresql:// URL (got something else)',
    ],
    [
      'DATABASE_URL',
      'postgres://shop:P/W@127.0.0.1:1/db',
      'must be sqlite:<file>, sqlite::memory:, or a valid postgres:// or postgresql:// URL (got a "postgres:" URL)',
    ],
    [
      'PROFILER_DSN',
      'postgresql://shop:PW@db:port/x',
      'must be sqlite:<file>, sqlite::memory:, or a valid postgres:// or postgresql:// URL (got a "postgresql:" URL)',
    ],
    ['ADDRESS_CHECK_URL', 'mysql://shop:PW@db', 'must be an http:// or https:// URL (got a "mysql:" URL)'],
    ['ADDRESS_CHECK_URL', 'ftp://shop:PW/x@db', 'must be an http:// or https:// URL (got a "ftp:" URL)'],
    ['PROFILER_OTLP_ENDPOINT', 'http://shop:PW@[collector', 'must be an http:// or https:// URL (got a "http:" URL)'],
    ['PROFILER_OTLP_ENDPOINT', 'collector:4318 PW', 'must be an http:// or https:// URL (got something else)'],
    [
      'DATABASE_URL',
      '//shop:PW@db',
      'must be sqlite:<file>, sqlite::memory:, or a valid postgres:// or postgresql:// URL (got something else)',
    ],
  ])('%s=%s is described without its value (a password stays out)', (variable, value, problem) => {
    const error = mistake({ [variable]: value });
    expect(error.message).toBe(`${variable}: ${problem}`);
    expect(error.message).not.toContain('PW');
  });

  it('names every variable that is wrong, on one line', () => {
    const error = mistake({ APP_DEBUG: 'maybe', PORT: 'abc', DATABASE_URL: 'mysql://shop:PW@db' });
    expect(error.variables).toEqual(['APP_DEBUG', 'PORT', 'DATABASE_URL']);
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain('PW');
  });

  it('masks a password in a value it quotes', () => {
    const error = mistake({ MAINTENANCE: 'https://admin:PW@example.com/' });
    expect(error.message).toBe(
      'MAINTENANCE: must be one of 1, 0, true, false, yes, no, on, off (got "https://admin:******@example.com/")',
    );
  });
});

describe('AppConfig.fromEnv: whole numbers', () => {
  it.each(['2000', '1', '600000', ' 2500 '])('starts with ADDRESS_CHECK_TIMEOUT_MS=%p', (value) => {
    expect(AppConfig.fromEnv({ ADDRESS_CHECK_TIMEOUT_MS: value }).addressCheck.timeoutMs).toBe(Number(value));
  });

  it('reads every numeric variable as a number', () => {
    const config = AppConfig.fromEnv({ PORT: '8080', PROFILER_SLOW_MS: '250', MAX_HEADER_SIZE: '2048' });
    expect([config.port, config.profiler.slowRequestMs, config.maxHeaderSize]).toEqual([8080, 250, 2048]);
  });
});

describe('AppConfig.fromEnv: the variable behind a database file', () => {
  it('is VAR_DIR for the default files, the variable itself when set', () => {
    const defaults = AppConfig.fromEnv({});
    expect([defaults.database.variable, defaults.profiler.dsnVariable]).toEqual(['VAR_DIR', 'VAR_DIR']);
    const set = AppConfig.fromEnv({ DATABASE_URL: 'sqlite::memory:', PROFILER_DSN: 'sqlite::memory:' });
    expect([set.database.variable, set.profiler.dsnVariable]).toEqual(['DATABASE_URL', 'PROFILER_DSN']);
  });
});
