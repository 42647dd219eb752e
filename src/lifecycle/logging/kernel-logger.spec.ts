import { jest } from '@jest/globals';
import { AppConfig } from '../../config/app-config.js';
import { MASK } from '../redaction/redactor.js';
import { KernelLogger } from './kernel-logger.js';
import { LineFormatter } from './line-formatter.js';
import { LogLevel } from './log-level.js';

/** What the logger writes to stdout and stderr while `run` runs. */
function captured(run: () => void): { stdout: string; stderr: string } {
  const out = { stdout: '', stderr: '' };
  const stdout = jest
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk: string | Uint8Array) => ((out.stdout += String(chunk)), true));
  const stderr = jest
    .spyOn(process.stderr, 'write')
    .mockImplementation((chunk: string | Uint8Array) => ((out.stderr += String(chunk)), true));
  try {
    run();
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  return out;
}

const logger = (level: string) => new KernelLogger(AppConfig.fromEnv({ APP_ENV: 'prod', LOG_LEVEL: level }));

describe('KernelLogger printing', () => {
  it('prints every level redacted and on one line, errors on stderr', () => {
    const printed = captured(() => {
      const log = logger('debug');
      for (const level of [
        LogLevel.DEBUG,
        LogLevel.INFO,
        LogLevel.NOTICE,
        LogLevel.WARNING,
        LogLevel.ERROR,
        LogLevel.CRITICAL,
      ]) {
        log.record(level, 'request', 'Got {uri}\n[forged] line', {
          uri: '/x?token=SECRET-1',
          password: 'SECRET-2',
          'key\nforged': 'a\u2028b',
        });
      }
    });
    const lines = `${printed.stdout}${printed.stderr}`.split('\n').filter(Boolean);
    expect(lines).toHaveLength(6);
    expect(printed.stderr.split('\n').filter(Boolean)).toHaveLength(2);
    for (const l of lines) {
      expect(l).toContain(
        `Got /x?token=${MASK}\\n[forged] line {"uri":"/x?token=${MASK}","password":"${MASK}","key\\nforged":"a\\u2028b"}`,
      );
      expect(l).not.toContain('SECRET');
    }
  });

  it("prints every line on stderr with LOG_OUTPUT=stderr, keeping stdout for a command's data", () => {
    const printed = captured(() => {
      const log = new KernelLogger(AppConfig.fromEnv({ APP_ENV: 'prod', LOG_LEVEL: 'debug', LOG_OUTPUT: 'stderr' }));
      log.record(LogLevel.DEBUG, 'app', 'debug line');
      log.record(LogLevel.INFO, 'app', 'info line');
      log.record(LogLevel.ERROR, 'app', 'error line');
    });
    expect(printed.stdout).toBe('');
    expect(
      printed.stderr
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(/^\[[^\]]+\] /, '')),
    ).toEqual(['app.DEBUG: debug line', 'app.INFO: info line', 'app.ERROR: error line']);
  });

  it("prints Nest's messages redacted: errors by message, objects by their keys, stacks as text", () => {
    const printed = captured(() => {
      const log = logger('info');
      log.error(new Error('Connect to postgres://shop:SECRET-1@db failed'), 'Database');
      log.log({ password: 'SECRET-2', user: 'ann' }, 'Accounts');
      log.error('Failed', 'Error: at http://x/?token=SECRET-3\n    at f (a.js:1:1)', 'Http');
    });
    expect(printed.stdout).toContain(
      `Accounts.INFO: {"password":"${MASK}","user":"ann"} {"message":{"password":"${MASK}","user":"ann"}}`,
    );
    expect(printed.stderr).toContain(
      `Database.ERROR: Error: Connect to postgres://shop:${MASK}@db failed {"exception":{"class":"Error","message":"Connect to postgres://shop:${MASK}@db failed"}}`,
    );
    expect(printed.stderr).toContain(
      `Http.ERROR: Failed {"stack":"Error: at http://x/?token=${MASK}\\n    at f (a.js:1:1)"}`,
    );
    expect(`${printed.stdout}${printed.stderr}`).not.toContain('SECRET');
    expect(`${printed.stdout}${printed.stderr}`.split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('formats (and redacts) nothing that is not printed', () => {
    const format = jest.spyOn(LineFormatter.prototype, 'format');
    try {
      const printed = captured(() => {
        const log = logger('error');
        log.record(LogLevel.INFO, 'request', 'Matched route "{route}".', { route: 'home', request_uri: '/?token=x' });
        log.record(LogLevel.DEBUG, 'event', 'Notified event "{event}" to listener "{listener}".', {
          event: 'kernel.request',
          listener: 'L',
        });
      });
      expect(printed).toEqual({ stdout: '', stderr: '' });
      expect(format).not.toHaveBeenCalled();
    } finally {
      format.mockRestore();
    }
  });
});
