import { jest } from '@jest/globals';
import type { HttpAdapterHost } from '@nestjs/core';
import { EventEmitter } from 'node:events';
import type { HttpKernel } from '../http-kernel.js';
import type { KernelLogger } from '../logging/kernel-logger.js';
import { LogEntry } from '../logging/log-entry.js';
import { LogLevel } from '../logging/log-level.js';
import { KernelHttpAdapter } from '../kernel-http.adapter.js';
import { CRASH_WAIT_MS, ProcessCrashHandler, type CrashingProcess } from './process-crash.handler.js';

/** `process` as the handler sees it: its listeners, its exit code, and exit() recorded instead of done. */
class FakeProcess extends EventEmitter implements CrashingProcess {
  exitCode: number | string | null | undefined = undefined;
  readonly exits: number[] = [];

  exit(code: number): void {
    this.exits.push(code);
  }
}

describe('ProcessCrashHandler', () => {
  let target: FakeProcess;
  let logged: LogEntry[];
  let printed: LogEntry[];
  let steps: string[];
  let closeServer: jest.Mock<() => Promise<void>>;
  let handler: ProcessCrashHandler;

  beforeEach(() => {
    jest.useFakeTimers();
    target = new FakeProcess();
    logged = [];
    printed = [];
    steps = [];
    const logger = {
      record: (level: LogLevel, channel: string, message: string, context: Record<string, unknown>) => {
        const entry = new LogEntry(level, channel, message, context, Date.now());
        logged.push(entry);
        return entry;
      },
      printAnyway: (entry: LogEntry) => printed.push(entry),
    };
    const kernel = {
      terminateAnswered: () => {
        steps.push('terminate answered');
        return 2;
      },
    };
    closeServer = jest.fn(async () => {
      steps.push('stop listening');
    });
    handler = new ProcessCrashHandler(
      logger as unknown as KernelLogger,
      kernel as unknown as HttpKernel,
      { httpAdapter: { close: closeServer } } as unknown as HttpAdapterHost,
    );
  });

  afterEach(() => {
    handler.uninstall();
    jest.useRealTimers();
  });

  const messages = () => logged.map((entry) => `${entry.channel}.${entry.levelName}: ${entry.message}`);

  it('listens to uncaughtException once, and stops when uninstalled or when the application shuts down', () => {
    handler.install(target);
    handler.install(target);
    expect(target.listenerCount('uncaughtException')).toBe(1);
    handler.onApplicationShutdown();
    expect(target.listenerCount('uncaughtException')).toBe(0);
  });

  it('on an uncaught exception: logs it (CRITICAL, printed anyway), stops listening, terminates the answered responses, runs the hooks in order, exits 1 at once', () => {
    handler.onCrash(() => void steps.push('hook 1'));
    handler.onCrash(() => void steps.push('hook 2'));
    handler.install(target);
    const error = new TypeError('boom');
    target.emit('uncaughtException', error, 'uncaughtException');
    expect(messages()).toEqual(['process.CRITICAL: Uncaught exception: TypeError: boom']);
    expect(logged[0].level).toBe(LogLevel.CRITICAL);
    expect(logged[0].context).toMatchObject({ exception: error, stack: error.stack });
    expect(printed).toEqual([logged[0]]);
    expect(steps).toEqual(['stop listening', 'terminate answered', 'hook 1', 'hook 2']);
    expect(target.exits).toEqual([1]);
    expect(target.exitCode).toBe(1);
  });

  it("makes the kernel's adapter refuse the requests still arriving on kept-alive connections", () => {
    const adapter = Object.create(KernelHttpAdapter.prototype) as KernelHttpAdapter;
    const refuse = jest.fn(() => undefined);
    const close = jest.fn(() => undefined);
    Object.assign(adapter, { refuseRequests: refuse, close });
    const crashing = new ProcessCrashHandler(
      { record: () => new LogEntry(LogLevel.CRITICAL, 'process', '', {}, 0), printAnyway: () => undefined } as never,
      { terminateAnswered: () => 0 } as unknown as HttpKernel,
      { httpAdapter: adapter } as unknown as HttpAdapterHost,
    );
    const other = new FakeProcess();
    crashing.install(other);
    other.emit('uncaughtException', new Error('boom'), 'uncaughtException');
    expect([refuse.mock.calls.length, close.mock.calls.length]).toEqual([1, 0]);
    expect(other.exits).toEqual([1]);
    crashing.uninstall();
  });

  it('names an unhandled rejection (Node hands it over with that origin) and a thrown value that is not an Error', () => {
    handler.install(target);
    target.emit('uncaughtException', 'a string', 'unhandledRejection');
    expect(messages()).toEqual(['process.CRITICAL: Unhandled promise rejection: string: a string']);
    expect(logged[0].context.stack).toBeUndefined();
  });

  it('waits for a hook that returns a promise, giving it the time left, then exits 1', async () => {
    let timeLeft = -1;
    let release: () => void = () => undefined;
    handler.onCrash((ms) => {
      timeLeft = ms;
      return new Promise<void>((resolve) => (release = resolve));
    });
    handler.install(target);
    target.emit('uncaughtException', new Error('boom'), 'uncaughtException');
    expect(timeLeft).toBe(CRASH_WAIT_MS);
    await jest.advanceTimersByTimeAsync(1000);
    expect(target.exits).toEqual([]);
    release();
    await jest.advanceTimersByTimeAsync(0);
    expect(target.exits).toEqual([1]);
  });

  it('exits at the hard deadline when a hook never settles', async () => {
    handler.onCrash(() => new Promise(() => undefined));
    handler.install(target);
    target.emit('uncaughtException', new Error('boom'), 'uncaughtException');
    await jest.advanceTimersByTimeAsync(CRASH_WAIT_MS);
    expect(target.exits).toEqual([]);
    await jest.advanceTimersByTimeAsync(1000);
    expect(target.exits).toEqual([1]);
  });

  it('a second crash while the hooks wait exits at once, saying so', () => {
    handler.onCrash(() => new Promise(() => undefined));
    handler.install(target);
    target.emit('uncaughtException', new Error('first'), 'uncaughtException');
    expect(target.exits).toEqual([]);
    target.emit('uncaughtException', new Error('second'), 'unhandledRejection');
    expect(target.exits).toEqual([1]);
    expect(messages()).toEqual([
      'process.CRITICAL: Uncaught exception: Error: first',
      'process.CRITICAL: Unhandled promise rejection while handling a crash, exiting at once: Error: second',
    ]);
  });

  it('a failing step or hook is logged and the others still run; a failing logger does not keep the process alive', () => {
    handler.onCrash(() => {
      throw new Error('hook failed');
    });
    handler.onCrash(() => void steps.push('hook 2'));
    closeServer.mockImplementation(() => {
      throw new Error('not listening');
    });
    handler.install(target);
    target.emit('uncaughtException', new Error('boom'), 'uncaughtException');
    expect(messages()).toEqual([
      'process.CRITICAL: Uncaught exception: Error: boom',
      'process.CRITICAL: Failed while handling the crash: Error: not listening',
      'process.CRITICAL: Failed while handling the crash: Error: hook failed',
    ]);
    expect(steps).toEqual(['terminate answered', 'hook 2']);
    expect(target.exits).toEqual([1]);

    const silent = new ProcessCrashHandler(
      {
        record: () => {
          throw new Error('logger down');
        },
        printAnyway: () => undefined,
      } as unknown as KernelLogger,
      { terminateAnswered: () => 0 } as unknown as HttpKernel,
      { httpAdapter: undefined } as unknown as HttpAdapterHost,
    );
    const other = new FakeProcess();
    silent.install(other);
    other.emit('uncaughtException', new Error('boom'), 'uncaughtException');
    expect(other.exits).toEqual([1]);
    silent.uninstall();
  });

  it('a crashed process reports failure even when something else exits 0 meanwhile (Nest on SIGTERM)', () => {
    handler.onCrash(() => new Promise(() => undefined));
    handler.install(target);
    target.emit('uncaughtException', new Error('boom'), 'uncaughtException');
    // process.exit(0) sets the code, then emits 'exit'.
    target.exitCode = 0;
    target.emit('exit');
    expect(target.exitCode).toBe(1);
  });

  it('keeps listening through the shutdown once crashed, so that a second crash still exits at once', () => {
    handler.onCrash(() => new Promise(() => undefined));
    handler.install(target);
    target.emit('uncaughtException', new Error('boom'), 'uncaughtException');
    handler.onApplicationShutdown();
    expect(target.listenerCount('uncaughtException')).toBe(1);
  });
});
