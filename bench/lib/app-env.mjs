// The environments the benchmarks start the application in (bench/run.mjs, bench/cpu-per-request.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// Anything of the application's configuration inherited from the caller's shell is dropped: the bench sets its own.
const APP_KEYS =
  /^(APP_|PROFILER_|DATABASE_URL$|VAR_DIR$|PORT$|HOST$|LOG_LEVEL$|VIEW_CACHE$|MAINTENANCE|TRUSTED_|CORS_|SESSION_|REMEMBER_ME_|BODY_LIMIT$|DEFAULT_LOCALE$|SUPPORTED_LOCALES$|NODE_ENV$|NODE_OPTIONS$|MAX_URL_LENGTH$)/;
export const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([key]) => !APP_KEYS.test(key)));

/**
 * The Node options the application is started with (`npm start`, `npm run start:dev`, `npm run start:prod`): those
 * of nest-cli.json's `exec`, after its binary, so that the bench measures the server as users run it.
 */
export function appNodeArgs(root = ROOT) {
  const { exec = 'node' } = JSON.parse(readFileSync(join(root, 'nest-cli.json'), 'utf8'));
  return exec.trim().split(/\s+/).slice(1);
}

/**
 * The application's environments: `off` (APP_DEBUG=0, no profiler) or `profiled`, with its own var directory.
 * VIEW_CACHE=1: compiled templates kept in memory (off by default in APP_ENV=dev). NODE_ENV=production turns
 * Express's own view cache on as well, for builds that do not read VIEW_CACHE yet.
 */
export function appEnv(kind, varDir, dist = join(ROOT, 'dist')) {
  mkdirSync(varDir, { recursive: true });
  const common = {
    VIEW_CACHE: '1',
    NODE_ENV: 'production',
    LOG_LEVEL: 'none',
    HOST: '127.0.0.1',
    VAR_DIR: varDir,
    DATABASE_URL: `sqlite:${join(varDir, 'shop.sqlite')}`,
    PROFILER_DSN: `sqlite:${join(varDir, 'profiler.sqlite')}`,
  };
  if (kind === 'off') {
    // Only a development start loads the demo catalogue: the profiler-off server (APP_ENV=prod) gets the same one
    // from the CLI, so that its catalogue page lists the products the profiled server's does.
    if (!existsSync(join(varDir, 'shop.sqlite'))) {
      // Seeded by the build that will open it: an earlier build refuses a database a later one has migrated.
      execFileSync(process.execPath, [join(dist, 'database/cli/database.cli.js'), 'seed'], {
        env: { ...cleanEnv(), DATABASE_URL: common.DATABASE_URL },
        stdio: 'ignore',
      });
    }
    return { ...common, APP_ENV: 'prod', APP_DEBUG: '0', PROFILER_ENABLED: '0' };
  }
  return { ...common, APP_ENV: 'dev', APP_DEBUG: '1', PROFILER_ENABLED: '1' };
}
