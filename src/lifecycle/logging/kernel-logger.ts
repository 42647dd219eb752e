import { Injectable, LoggerService } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { currentKernelContext, KernelContext } from '../kernel-context.js';
import { LineFormatter } from './line-formatter.js';
import { LogContext, LogEntry } from './log-entry.js';
import { LogLevel, parseLogLevel } from './log-level.js';

/** A logger bound to one channel, the way a module logs: `logger.channel('cart').info('Added {sku}', { sku })`. */
export class ChannelLogger {
  constructor(
    private readonly logger: KernelLogger,
    readonly channel: string,
  ) {}

  debug(message: string, context: LogContext = {}): void {
    this.logger.record(LogLevel.DEBUG, this.channel, message, context);
  }
  info(message: string, context: LogContext = {}): void {
    this.logger.record(LogLevel.INFO, this.channel, message, context);
  }
  notice(message: string, context: LogContext = {}): void {
    this.logger.record(LogLevel.NOTICE, this.channel, message, context);
  }
  warning(message: string, context: LogContext = {}): void {
    this.logger.record(LogLevel.WARNING, this.channel, message, context);
  }
  error(message: string, context: LogContext = {}): void {
    this.logger.record(LogLevel.ERROR, this.channel, message, context);
  }
  critical(message: string, context: LogContext = {}): void {
    this.logger.record(LogLevel.CRITICAL, this.channel, message, context);
  }
}

/**
 * The application's logger (also Nest's, see main.ts). Every entry written while a request is handled is recorded
 * on that request (through AsyncLocalStorage) for the error page and the profiler; entries at or above LOG_LEVEL
 * are also printed, one Monolog-style line each. The `event` channel is printed only at LOG_LEVEL=debug, like
 * Symfony's `channels: ["!event"]`: it is one line per listener per request.
 */
@Injectable()
export class KernelLogger implements LoggerService {
  private readonly printLevel: number;
  private readonly allToStderr: boolean;
  private readonly channels = new Map<string, ChannelLogger>();
  private readonly formatter = new LineFormatter();
  /**
   * Whether every entry is kept on its request. Only debug mode shows a request's logs (error page, profiler);
   * without it an entry that is not printed would be recorded for nobody, and the kernel writes several per
   * request (one per listener called), so they are not recorded at all (nor the listener calls: see `tracing`).
   */
  readonly tracing: boolean;

  constructor(config: AppConfig) {
    this.printLevel =
      config.logLevel === 'none' ? Number.POSITIVE_INFINITY : (parseLogLevel(config.logLevel) ?? LogLevel.INFO);
    this.tracing = config.debug || this.printLevel <= LogLevel.DEBUG;
    this.allToStderr = config.logOutput === 'stderr';
  }

  channel(name: string): ChannelLogger {
    let logger = this.channels.get(name);
    if (!logger) {
      logger = new ChannelLogger(this, name);
      this.channels.set(name, logger);
    }
    return logger;
  }

  /**
   * Records an entry on the given request context (default: the current one) and prints it if loud enough. `time`
   * (milliseconds since the epoch, default now) lets a caller writing several entries at once read the clock once.
   */
  record(
    level: LogLevel,
    channel: string,
    message: string,
    context: LogContext = {},
    target?: KernelContext,
    time = Date.now(),
  ): LogEntry {
    const entry = new LogEntry(level, channel, message, context, time);
    const printed = this.prints(level, channel);
    if (this.tracing || printed) {
      const kernelContext = target ?? currentKernelContext();
      if (kernelContext) kernelContext.logs.push(entry);
    }
    if (printed) this.print(entry);
    return entry;
  }

  /**
   * Prints an entry record() kept quiet (below LOG_LEVEL, or LOG_LEVEL=none): for the line that says why the
   * process is ending, which Node itself would print whatever the logging.
   */
  printAnyway(entry: LogEntry): void {
    if (!this.prints(entry.level, entry.channel)) this.print(entry);
  }

  /** Prints an entry that is not kept on its request (one made again when read: requestLog), if loud enough. */
  printOnly(entry: LogEntry): void {
    if (this.prints(entry.level, entry.channel)) this.print(entry);
  }

  /** Whether record() prints an entry of this level and channel. */
  prints(level: LogLevel, channel: string): boolean {
    return level >= this.printLevel && (channel !== 'event' || this.printLevel <= LogLevel.DEBUG);
  }

  // Nest's LoggerService: the optional last string parameter is Nest's "context" (a class name); we use it as
  // the channel, so `new Logger('cart')` logs on channel `cart`.
  log(message: unknown, ...optional: unknown[]): void {
    this.fromNest(LogLevel.INFO, message, optional);
  }
  error(message: unknown, ...optional: unknown[]): void {
    this.fromNest(LogLevel.ERROR, message, optional);
  }
  warn(message: unknown, ...optional: unknown[]): void {
    this.fromNest(LogLevel.WARNING, message, optional);
  }
  debug(message: unknown, ...optional: unknown[]): void {
    this.fromNest(LogLevel.DEBUG, message, optional);
  }
  verbose(message: unknown, ...optional: unknown[]): void {
    this.fromNest(LogLevel.DEBUG, message, optional);
  }
  fatal(message: unknown, ...optional: unknown[]): void {
    this.fromNest(LogLevel.CRITICAL, message, optional);
  }

  private fromNest(level: LogLevel, message: unknown, optional: unknown[]): void {
    let channel = 'app';
    const params = [...optional];
    if (params.length > 0 && typeof params[params.length - 1] === 'string') channel = params.pop() as string;
    const context: LogContext = {};
    if (message instanceof Error) {
      context.exception = message;
      message = `${message.name}: ${message.message}`;
    }
    // Nest passes a stack string as the first optional parameter of error().
    if (params.length > 0) {
      if (level >= LogLevel.ERROR && typeof params[0] === 'string') context.stack = params.shift();
      if (params.length > 0) context.params = params;
    }
    if (typeof message === 'string') {
      this.record(level, channel, message, context);
    } else if (typeof message === 'object' && message !== null) {
      // In the context, an object is redacted by its keys wherever it is shown or printed.
      this.record(level, channel, '{message}', { message, ...context });
    } else {
      this.record(level, channel, String(message), context);
    }
  }

  private print(entry: LogEntry): void {
    (this.allToStderr || entry.level >= LogLevel.ERROR ? process.stderr : process.stdout).write(
      this.formatter.format(entry),
    );
  }
}
