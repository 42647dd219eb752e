import { isMain, runWith } from '../../cli/command-line.js';
import { startUp } from '../../cli/start-up-failure.js';
import { parseArgs } from 'node:util';
import { AppConfig } from '../../config/app-config.js';
import type { ProfileSummary } from '../storage/profile-record.js';
import type { ProfilerStorage } from '../storage/profiler-storage.js';
import { createProfilerStorage } from '../storage/storage-factory.js';
import { listTime } from '../views/profile-time.js';
import { matchCount } from '../views/figures.js';

export interface ProfilerCliOptions {
  /** Opens the store (the CLI closes it). */
  storage: () => ProfilerStorage;
  out?: (text: string) => void;
  err?: (text: string) => void;
  /** Times are shown in the local time zone, or in UTC (tests). */
  utc?: boolean;
}

const USAGE = `Usage: profiler <command> [options]

Commands:
  list     The newest profiles, newest first
             --limit N    how many to show (default 10)
             --ip X       client IP, or its start ("192.168.")
             --method M   HTTP method (any case)
             --status S   status code, or its start ("4" = 4xx, "40" = 400-409)
             --url U      part of the URL (any case)
  clear    Removes every profile and says how many there were

Options:
  -h, --help   This help

The store is the one PROFILER_DSN names (default sqlite:var/profiler.sqlite). From npm:
  npm run profiler:list -- --status 5 --limit 20
  npm run profiler:clear
`;

const URL_WIDTH = 80;

/**
 * The profiler from the command line, without starting the application: `list` (the search page's table) and
 * `clear`. Runs against the store PROFILER_DSN names (through AppConfig), as the application would.
 */
export class ProfilerCli {
  private readonly out: (text: string) => void;
  private readonly err: (text: string) => void;

  constructor(private readonly options: ProfilerCliOptions) {
    this.out = options.out ?? ((text) => void process.stdout.write(text));
    this.err = options.err ?? ((text) => void process.stderr.write(text));
  }

  /** Runs a command line (without node and the script); resolves with the exit code. */
  async run(argv: readonly string[]): Promise<number> {
    let parsed;
    try {
      parsed = parseArgs({
        args: [...argv],
        allowPositionals: true,
        strict: true,
        options: {
          help: { type: 'boolean', short: 'h' },
          limit: { type: 'string' },
          ip: { type: 'string' },
          method: { type: 'string' },
          status: { type: 'string' },
          url: { type: 'string' },
        },
      });
    } catch (error) {
      return this.usageError((error as Error).message);
    }
    const { values, positionals } = parsed;
    if (values.help) {
      this.out(USAGE);
      return 0;
    }
    const [command, ...extra] = positionals;
    if (command === undefined) return this.usageError('No command given.');
    if (extra.length > 0) return this.usageError(`Unexpected argument "${extra[0]}".`);
    switch (command) {
      case 'list': {
        const limit = values.limit === undefined ? 10 : Number(values.limit);
        if (!Number.isInteger(limit) || limit < 1)
          return this.usageError(`--limit must be a positive whole number, got "${values.limit}".`);
        return this.withStorage(async (storage) => {
          const { total, atLeast, rows } = await storage.find({
            limit,
            ip: values.ip,
            method: values.method,
            statusCode: values.status,
            url: values.url,
          });
          if (rows.length > 0) this.out(this.table(rows));
          this.out(`${matchCount(total, atLeast)} results found\n`);
        });
      }
      case 'clear': {
        const filters = ['limit', 'ip', 'method', 'status', 'url'].filter(
          (name) => values[name as keyof typeof values] !== undefined,
        );
        if (filters.length > 0) return this.usageError(`clear takes no options (got --${filters[0]}).`);
        return this.withStorage(async (storage) => {
          const removed = await storage.clear();
          this.out(`Removed ${removed} profile${removed === 1 ? '' : 's'}.\n`);
        });
      }
      default:
        return this.usageError(`Unknown command "${command}".`);
    }
  }

  /** `DD-Mon-YYYY HH:MM:SS`, as the profiler's search page shows times. */
  formatTime(time: number): string {
    return listTime(time, this.options.utc === true);
  }

  private table(rows: ProfileSummary[]): string {
    const header = ['Status', 'IP', 'Method', 'URL', 'Time', 'Token'];
    const cells = rows.map((r) => [
      String(r.statusCode),
      r.ip,
      r.method,
      ellipsis(r.url, URL_WIDTH),
      this.formatTime(r.time),
      r.token,
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i].length)));
    const line = (row: string[]) =>
      `${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ')}\n`;
    return line(header) + line(widths.map((w) => '-'.repeat(w))) + cells.map(line).join('');
  }

  private withStorage(action: (storage: ProfilerStorage) => Promise<void>): Promise<number> {
    return runWith(
      async () => {
        const storage = this.options.storage();
        await storage.open();
        return storage;
      },
      (storage) => storage.close(),
      action,
      this.err,
    );
  }

  private usageError(message: string): number {
    this.err(`${message}\n\n${USAGE}`);
    return 2;
  }
}

function ellipsis(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

if (isMain(import.meta.url)) {
  // A configuration mistake is one line naming the variable, as the application's own start says it.
  const config = await startUp(async () => AppConfig.fromEnv());
  const cli = new ProfilerCli({
    storage: () => createProfilerStorage(config.profiler.dsn, { baseDir: config.projectDir }),
  });
  process.exitCode = await cli.run(process.argv.slice(2));
}
