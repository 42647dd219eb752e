import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, runUntilExit, startApp, TEST_BUILD_DIR } from './support/app-process.js';

/**
 * A configuration mistake, in its own process as users meet it: the application (or a command) exits 1 having
 * printed one line on stderr naming the variable, no password and no stack, instead of Nest's report or a hang.
 * One representative per kind; the bulk of the wording is src/config/app-config.spec.ts's.
 */
describe('Start-up with a configuration mistake (its own process)', () => {
  let main: string;
  let dir: string;
  let aFile: string;

  beforeAll(() => {
    main = buildApp();
    dir = mkdtempSync(join(tmpdir(), 'shopkernel-start-up-'));
    aFile = join(dir, 'a-file');
    writeFileSync(aFile, 'not a directory');
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The hang guard only: a mistake is reported at once, a loaded machine included. */
  const HANG_GUARD_MS = 60_000;

  const cases: Array<[string, Record<string, string> | (() => Record<string, string>), RegExp]> = [
    ['APP_DEBUG=maybe', { APP_DEBUG: 'maybe' }, /^APP_DEBUG: must be one of 1, 0, true/],
    ['PORT=abc', { PORT: 'abc' }, /^PORT: must be a whole number from 0 to 65535 \(got "abc"\)$/],
    ['ADDRESS_CHECK_TIMEOUT_MS=-1', { ADDRESS_CHECK_TIMEOUT_MS: '-1' }, /^ADDRESS_CHECK_TIMEOUT_MS: must be a whole/],
    [
      'DATABASE_URL with another scheme',
      { DATABASE_URL: 'mysql://shop:pw-planted@db' },
      /^DATABASE_URL: must be sqlite:/,
    ],
    [
      'PROFILER_DSN with another scheme',
      { PROFILER_DSN: 'mysql://shop:pw-planted@db' },
      /^PROFILER_DSN: must be sqlite:/,
    ],
    [
      'ADDRESS_CHECK_URL with another scheme',
      { ADDRESS_CHECK_URL: 'mysql://shop:pw-planted@db' },
      /^ADDRESS_CHECK_URL: /,
    ],
    [
      'a malformed PROFILER_OTLP_ENDPOINT with a password',
      { PROFILER_OTLP_ENDPOINT: 'http://shop:pw-planted@[collector:4318' },
      /^PROFILER_OTLP_ENDPOINT: must be an http:\/\/ or https:\/\/ URL/,
    ],
    [
      'DATABASE_URL under /proc (mkdir -p never returns there)',
      { DATABASE_URL: 'sqlite:/proc/x/y.sqlite' },
      /^DATABASE_URL: cannot open the shop database sqlite:\/proc\/x\/y\.sqlite: its directory \/proc\/x cannot be created \(ENOENT\)$/,
    ],
    [
      'VAR_DIR under /proc, the databases in their default files',
      { VAR_DIR: '/proc/nowhere', DATABASE_URL: '', PROFILER_DSN: '' },
      /^VAR_DIR: cannot open the shop database sqlite:\/proc\/nowhere\/shop\.sqlite: its directory \/proc\/nowhere cannot be created/,
    ],
    [
      'a shop database under a regular file',
      () => ({ DATABASE_URL: `sqlite:${aFile}/x.sqlite` }),
      /^DATABASE_URL: cannot open the shop database sqlite:.*\/a-file\/x\.sqlite: its directory cannot be created: .*\/a-file is not a directory/,
    ],
    [
      'a PostgreSQL shop database that refuses, with a password',
      { DATABASE_URL: 'postgres://shop:pw-planted@127.0.0.1:1/test' },
      /^DATABASE_URL: cannot open the shop database postgres:\/\/shop:\*+@127\.0\.0\.1:1\/test: connect ECONNREFUSED/,
    ],
    [
      'a PostgreSQL profile store with a bad schema name and a password',
      { PROFILER_DSN: 'postgres://shop:pw-planted@127.0.0.1:1/test?schema=1x' },
      /^PROFILER_DSN: The profiler DSN's schema "1x" is not a valid name/,
    ],
    ['HOST not of this machine', { HOST: '192.0.2.1' }, /^HOST: cannot listen on 192\.0\.2\.1:\d+ \(EADDRNOTAVAIL\)$/],
  ];

  it.each(cases)('%s: one line naming the variable, exit 1', async (_name, given, line) => {
    const env = typeof given === 'function' ? given() : given;
    const { code, signal, output, stderr } = await runUntilExit(main, env, HANG_GUARD_MS);
    expect({ code, signal }).toEqual({ code: 1, signal: null });
    expect(stderr.endsWith('\n')).toBe(true);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr.trimEnd()).toMatch(line);
    // A password the temporary directory's random name cannot hold (it has no '-').
    expect(output).not.toContain('pw-planted');
    expect(output).not.toContain('    at ');
  });

  it('is one line from a command too (npm run db:migrate)', async () => {
    const cli = join(TEST_BUILD_DIR, 'database', 'cli', 'database.cli.js');
    const { code, stderr, output } = await runUntilExit(cli, { APP_DEBUG: 'maybe' }, HANG_GUARD_MS);
    expect(code).toBe(1);
    expect(stderr).toBe('APP_DEBUG: must be one of 1, 0, true, false, yes, no, on, off (got "maybe")\n');
    expect(output).not.toContain('    at ');
  });

  it('starts with ADDRESS_CHECK_TIMEOUT_MS=2000, the documented default', async () => {
    const app = await startApp(
      main,
      { ADDRESS_CHECK_TIMEOUT_MS: '2000', PROFILER_DSN: 'sqlite::memory:' },
      HANG_GUARD_MS,
    );
    app.child.kill('SIGTERM');
    expect((await app.exited).code).toBe(0);
  });
});
