import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';

/**
 * The pruner's code, run in a child process with its own connection to the store: on each message it deletes one
 * chunk in one transaction (the statements come from the store: `take` copies the profiles going into the
 * temporary table profile_gone, `chunk` lowers the counts and deletes them) and answers with their tokens.
 */
// busy_timeout as the store's own connection: a store locked by another process fails a chunk quickly (the
// retention reports it and tries again at its next run) instead of holding the store's writes. The process ends
// with its parent (the IPC channel closes).
const CHILD_SOURCE = `
const config = JSON.parse(process.argv[1]);
const Database = require(config.driver);
const db = new Database(config.file, { fileMustExist: true });
db.pragma('busy_timeout = 250');
db.pragma('synchronous = NORMAL');
db.pragma('temp_store = MEMORY');
db.pragma('cache_size = ' + config.cacheSize);
db.pragma('wal_autocheckpoint = 0');
db.exec(config.setup);
const clearGone = db.prepare('DELETE FROM temp.profile_gone');
const take = db.prepare(config.take);
const chunk = config.chunk.map((sql) => db.prepare(sql));
const tokens = db.prepare('SELECT token FROM temp.profile_gone ORDER BY id').pluck();
const sweepRange = db.prepare(config.sweep.range);
const sweepFrom = db.prepare(config.sweep.from);
const sweepDone = db.prepare(config.sweep.done);
const sweep = db.transaction((low, high) => {
  if (high !== null) return sweepRange.run(low, high).changes;
  const changes = sweepFrom.run(low).changes;
  sweepDone.run();
  return changes;
});
const run = db.transaction((maxId, keep, atMost) => {
  clearGone.run();
  if (take.run({ maxId, keep, atMost }).changes === 0) return [];
  for (const statement of chunk) statement.run();
  return tokens.all();
});
const close = () => {
  if (db.open) db.close();
  process.exit(0);
};
process.on('disconnect', close);
process.on('message', (message) => {
  if (message === 'close') return close();
  const started = performance.now();
  try {
    if (message.sweep) {
      const count = sweep(message.sweep[0], message.sweep[1]);
      return process.send({ id: message.id, tokens: '', count, ms: performance.now() - started });
    }
    const removed = run(BigInt(message.maxId), message.keep, message.atMost);
    // The tokens travel as one string: tens of thousands of strings decoded one by one block the receiving event
    // loop far longer than one string and a split.
    process.send({ id: message.id, tokens: removed.join('\\n'), count: removed.length, ms: performance.now() - started });
  } catch (error) {
    process.send({ id: message.id, error: String((error && error.message) || error) });
  }
});
`;

export interface PruneWorkerStatements {
  /** Run once on the worker's connection (the temporary table). */
  setup: string;
  /** Parameters: the largest key that may go, and how many profiles at most. */
  take: string;
  chunk: readonly string[];
  /** Sweeping stale token entries: a range (low, high), the last range (low), and what ends a sweep. */
  sweep: { range: string; from: string; done: string };
}

export interface PruneChunkResult {
  /**
   * The chunk's tokens, one per line ('' for none), as the worker sent them: split by the receiver a slice at a
   * time, since a whole chunk's split and pushed at once blocks the event loop.
   */
  tokens: string;
  /** Rows deleted: the chunk's profiles, or a sweep's entries. */
  count: number;
  /** How long the chunk's transaction took, in milliseconds. */
  ms: number;
}

/**
 * Deletes chunks of old profiles from a SQLite file in a child process. better-sqlite3 is synchronous: on the event
 * loop a chunk must stay short, and each of the many short transactions writes back the index pages it touched. In
 * a connection of its own a chunk may be long, writing far fewer pages per profile, while requests go on (readers
 * never wait in WAL mode; the store's writes wait for the chunk, see SqliteProfilerStorage.write). A process rather
 * than a worker thread: glibc keeps part of a stopped worker thread's page cache in the application's RSS, and a
 * process gives all of it back when it exits.
 */
export class PruneWorker {
  private worker?: ChildProcess;
  private failure: Error | null = null;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (result: PruneChunkResult) => void; reject: (error: Error) => void }
  >();
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly file: string,
    private readonly statements: PruneWorkerStatements,
    /** The worker's page cache (SQLite's `cache_size`, negative: KiB), 32 MB: a larger one prunes no faster. */
    private readonly cacheSize = -32768,
    /**
     * The worker stops once it has had no chunk for this long: retention runs once a minute, and an idle worker
     * would keep its process and its page cache until the next.
     */
    private readonly idleMs = 5000,
  ) {}

  /** The worker's process id while it runs. */
  get pid(): number | undefined {
    return this.worker?.pid;
  }

  /** Whether the worker process is running (it is started by the first chunk and stops when idle). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Deletes one chunk: the oldest profiles with a key up to `maxId` but the newest `keep` (0: none kept), at most `atMost`. */
  chunk(maxId: bigint, keep: number, atMost: number): Promise<PruneChunkResult> {
    return this.send({ maxId: String(maxId), keep, atMost });
  }

  /** Sweeps the stale token entries between `low` and `high` (null: no upper bound, and the sweep is done). */
  sweep(low: string, high: string | null): Promise<PruneChunkResult> {
    return this.send({ sweep: [low, high] });
  }

  private send(message: object): Promise<PruneChunkResult> {
    clearTimeout(this.idleTimer);
    const worker = this.start();
    const id = this.nextId++;
    // Referenced while a chunk is under way: a script awaiting prune() must not exit meanwhile.
    referenced(worker, true);
    return new Promise<PruneChunkResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.send({ id, ...message });
    });
  }

  /** Stops the worker (its connection closed first), killing it if it has not exited within 5 s. */
  async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    if (worker.exitCode !== null || worker.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    if (worker.connected) worker.send('close');
    const timeout = setTimeout(() => worker.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timeout);
  }

  private start(): ChildProcess {
    if (this.worker) return this.worker;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const config = {
      file: this.file,
      driver,
      cacheSize: this.cacheSize,
      ...this.statements,
      chunk: [...this.statements.chunk],
    };
    // Node alone: none of the parent's flags (--cpu-prof, a debugger, Jest's) nor NODE_OPTIONS apply to it.
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const worker = spawn(process.execPath, ['-e', CHILD_SOURCE, JSON.stringify(config)], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env,
      serialization: 'json',
    });
    // What it said before failing (the last 4 KB), for the error: a file it cannot open, a statement SQLite refuses.
    let stderr = '';
    worker.stderr?.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-4096);
    });
    worker.on('message', (message: { id: number; tokens?: string; count?: number; ms?: number; error?: string }) => {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (this.pending.size === 0) {
        referenced(worker, false);
        this.stopWhenIdle(worker);
      }
      if (message.error !== undefined) waiting.reject(new Error(`Pruning the profile store failed: ${message.error}`));
      else
        waiting.resolve({
          tokens: message.count ? (message.tokens ?? '') : '',
          count: message.count ?? 0,
          ms: message.ms ?? 0,
        });
    });
    const fail = (error: Error) => {
      this.failure = error;
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code, signal) => {
      const said = /^\w*Error\b.*$/m.exec(stderr)?.[0];
      if (this.pending.size > 0)
        fail(
          new Error(
            `The profile store's prune worker stopped (${signal ? `signal ${signal}` : `exit code ${code}`})${said ? `: ${said}` : '.'}`,
          ),
        );
      if (this.worker === worker) this.worker = undefined;
    });
    referenced(worker, false);
    this.worker = worker;
    return worker;
  }

  private stopWhenIdle(worker: ChildProcess): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.worker === worker && this.pending.size === 0) void this.stop();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  /** The last failure of a worker (a new one is started at the next chunk). */
  get lastFailure(): Error | null {
    return this.failure;
  }
}

/** Whether the worker (its process and its IPC channel) keeps the event loop alive. */
function referenced(worker: ChildProcess, ref: boolean): void {
  const channel = (worker as ChildProcess & { channel?: { ref(): void; unref(): void } | null }).channel;
  if (ref) {
    worker.ref();
    channel?.ref();
  } else {
    worker.unref();
    channel?.unref();
  }
}
