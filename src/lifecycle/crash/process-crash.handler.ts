import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { classOf, messageOf } from '../errors/exception-status.js';
import { HttpKernel } from '../http-kernel.js';
import { KernelHttpAdapter } from '../kernel-http.adapter.js';
import { KernelLogger } from '../logging/kernel-logger.js';
import { LogLevel } from '../logging/log-level.js';

/** Longest a crashing process waits for its crash hooks (a store that cannot write synchronously), in milliseconds. */
export const CRASH_WAIT_MS = 5000;
/** What a hook still running at CRASH_WAIT_MS is given on top, before the process exits without it. */
const HARD_EXIT_GRACE_MS = 1000;

/**
 * What runs when the process crashes, before it exits: given the milliseconds it may take. Synchronous where it
 * can (nothing else then runs before the exit); a promise is waited for, CRASH_WAIT_MS at most.
 */
export type CrashHook = (timeLeftMs: number) => void | Promise<unknown>;

/** The parts of `process` the handler uses (a fake one in its spec). */
export interface CrashingProcess {
  exitCode?: number | string | null;
  on(event: 'uncaughtException', listener: (error: unknown, origin: string) => void): unknown;
  off(event: 'uncaughtException', listener: (error: unknown, origin: string) => void): unknown;
  once(event: 'exit', listener: () => void): unknown;
  exit(code: number): void;
}

/**
 * What a careful service does when an uncaught exception or unhandled rejection ends the process: log it (CRITICAL,
 * channel `process`, as Symfony's ErrorHandler does; printed whatever LOG_LEVEL says), stop taking connections,
 * terminate the requests already answered, run the crash hooks (the profiler writes every buffered profile), then
 * exit 1, as Node would have.
 *
 * Node's semantics are kept: one `uncaughtException` listener, whose `origin` tells an unhandled rejection, so
 * `--unhandled-rejections` still decides whether a rejection crashes. A hook that hangs cannot hold the process (an
 * unref'd timer exits at CRASH_WAIT_MS plus a grace), and a second crash while the hooks run exits at once.
 * Installed by main.ts: an application inside a test runner must not take over the runner's process.
 */
@Injectable()
export class ProcessCrashHandler implements OnApplicationShutdown {
  private readonly hooks: CrashHook[] = [];
  private target: CrashingProcess | null = null;
  private crashed = false;
  private readonly listener = (error: unknown, origin: string): void => this.crash(error, origin);

  constructor(
    private readonly logger: KernelLogger,
    private readonly kernel: HttpKernel,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** Runs `hook` on a crash, after those registered before it. */
  onCrash(hook: CrashHook): void {
    this.hooks.push(hook);
  }

  install(target: CrashingProcess = process): void {
    if (this.target) return;
    this.target = target;
    target.on('uncaughtException', this.listener);
  }

  uninstall(): void {
    this.target?.off('uncaughtException', this.listener);
    this.target = null;
  }

  onApplicationShutdown(): void {
    // A crash while the hooks run keeps its handler: the process is exiting anyway.
    if (!this.crashed) this.uninstall();
  }

  private crash(error: unknown, origin: string): void {
    const target = this.target;
    if (!target) return;
    const what = origin === 'unhandledRejection' ? 'Unhandled promise rejection' : 'Uncaught exception';
    if (this.crashed) {
      this.log(`${what} while handling a crash, exiting at once: {message}`, error);
      target.exit(1);
      return;
    }
    this.crashed = true;
    // Whoever exits from now on (Nest's SIGTERM handling calls process.exit(0)), a crashed process reports failure.
    target.exitCode = 1;
    target.once('exit', () => {
      target.exitCode = 1;
    });
    this.log(`${what}: {message}`, error);
    const hard = setTimeout(() => target.exit(1), CRASH_WAIT_MS + HARD_EXIT_GRACE_MS);
    hard.unref();
    this.stopListening();
    const waits: Promise<unknown>[] = [];
    const deadline = Date.now() + CRASH_WAIT_MS;
    this.attempt(() => this.kernel.terminateAnswered());
    for (const hook of this.hooks) {
      this.attempt(() => {
        const wait = hook(Math.max(0, deadline - Date.now()));
        if (wait instanceof Promise) waits.push(wait);
      });
    }
    if (waits.length === 0) {
      target.exit(1);
      return;
    }
    void Promise.allSettled(waits).then(() => target.exit(1));
  }

  /**
   * A crashed process takes no new connection, nor a new request on a kept-alive one, while its hooks wait (it would
   * answer from a state nobody knows, with profiles the crash hooks no longer write).
   */
  private stopListening(): void {
    this.attempt(() => {
      const adapter = this.adapterHost.httpAdapter;
      const closed: unknown = adapter instanceof KernelHttpAdapter ? adapter.refuseRequests() : adapter?.close();
      if (closed instanceof Promise) closed.catch(() => undefined);
    });
  }

  /** A step failing must not keep the others from running. */
  private attempt(step: () => unknown): void {
    try {
      step();
    } catch (failure) {
      this.log('Failed while handling the crash: {message}', failure);
    }
  }

  private log(message: string, error: unknown): void {
    try {
      const stack = error instanceof Error ? error.stack : undefined;
      const context = {
        message: `${classOf(error)}: ${messageOf(error)}`,
        exception: error,
        ...(stack ? { stack } : {}),
      };
      this.logger.printAnyway(this.logger.record(LogLevel.CRITICAL, 'process', message, context));
    } catch {
      // Logging failing must not keep the process from exiting.
    }
  }
}
