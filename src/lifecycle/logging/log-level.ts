/** Monolog's levels (RFC 5424 severities), by the numbers the profiler and the error page sort and filter on. */
export enum LogLevel {
  DEBUG = 100,
  INFO = 200,
  NOTICE = 250,
  WARNING = 300,
  ERROR = 400,
  CRITICAL = 500,
  ALERT = 550,
  EMERGENCY = 600,
}

export const LOG_LEVEL_NAMES: Record<LogLevel, string> = {
  [LogLevel.DEBUG]: 'DEBUG',
  [LogLevel.INFO]: 'INFO',
  [LogLevel.NOTICE]: 'NOTICE',
  [LogLevel.WARNING]: 'WARNING',
  [LogLevel.ERROR]: 'ERROR',
  [LogLevel.CRITICAL]: 'CRITICAL',
  [LogLevel.ALERT]: 'ALERT',
  [LogLevel.EMERGENCY]: 'EMERGENCY',
};

export function parseLogLevel(name: string): LogLevel | null {
  switch (name.toLowerCase()) {
    case 'debug':
      return LogLevel.DEBUG;
    case 'info':
      return LogLevel.INFO;
    case 'notice':
      return LogLevel.NOTICE;
    case 'warning':
      return LogLevel.WARNING;
    case 'error':
      return LogLevel.ERROR;
    case 'critical':
      return LogLevel.CRITICAL;
    case 'alert':
      return LogLevel.ALERT;
    case 'emergency':
      return LogLevel.EMERGENCY;
    default:
      return null;
  }
}
