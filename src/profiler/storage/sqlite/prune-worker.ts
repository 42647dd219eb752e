import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { stopWorker } from './stop-worker.js';

/**
 * The pruner's code, run in a worker thread with its own connection to the store: on each message it deletes one
 * chunk in one transaction (the statements come from the store: `take` copies the profiles going into the
 * temporary table profile_gone, `chunk` lowers the counts and deletes them) and answers with their tokens.
 */
// busy_timeout as the store's own connection: a store locked by another process fails a chunk quickly (the
// retention reports it and tries again at its next run) instead of holding the store's writes.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 250');
db.pragma('synchronous = NORMAL');
db.pragma('temp_store = MEMORY');
db.pragma('cache_size = ' + workerData.cacheSize);
db.pragma('wal_autocheckpoint = 0');
db.exec(workerData.setup);
const clearGone = db.prepare('DELETE FROM temp.profile_gone');
const take = db.prepare(workerData.take);
const chunk = workerData.chunk.map((sql) => db.prepare(sql));
const tokens = db.prepare('SELECT token FROM temp.profile_gone ORDER BY id').pluck();
const run = db.transaction((maxId, atMost) => {
  clearGone.run();
  if (take.run(maxId, atMost).changes === 0) return [];
  for (const statement of chunk) statement.run();
  return tokens.all();
});
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  const started = performance.now();
  try {
    const removed = run(BigInt(message.maxId), message.atMost);
    // The tokens travel as one string: a structured clone of tens of thousands of strings blocked the receiving
    // event loop 13 to 17 ms per chunk; one string and a split, 2 to 4.
    parentPort.postMessage({ id: message.id, tokens: removed.join('\\n'), count: removed.length, ms: performance.now() - started });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String((error && error.message) || error) });
  }
});
`;

export interface PruneWorkerStatements {
  /** Run once on the worker's connection (the temporary table). */
  setup: string;
  /** Parameters: the largest key that may go, and how many profiles at most. */
  take: string;
  chunk: readonly string[];
}

export interface PruneChunkResult {
  tokens: string[];
  /** How long the chunk's transaction took, in milliseconds. */
  ms: number;
}

/**
 * Deletes chunks of old profiles from a SQLite file in a worker thread. better-sqlite3 is synchronous: on the
 * event loop, a chunk must stay a few milliseconds, and a hundred thousand profiles then take hundreds of
 * transactions, each writing back the index pages it touched (the deletes are spread over the token, IP and URL
 * indexes). In a worker a chunk may take a second or two: far fewer pages are written per profile, and
 * requests are not held up at all (readers never wait in WAL mode; the store's writes wait for the chunk, see
 * SqliteProfilerStorage.write).
 */
export class PruneWorker {
  private worker?: Worker;
  private failure: Error | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (result: PruneChunkResult) => void; reject: (error: Error) => void }>();
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly file: string,
    private readonly statements: PruneWorkerStatements,
    /**
     * The worker's page cache (SQLite's `cache_size`, negative: KiB), 32 MB. Pruning 100,000 profiles took as long
     * with 128 MB (2.1-2.5 s either way, on a 400,000-profile store), but the process's peak RSS went from 128 to
     * 230 MB, and after the worker stopped glibc kept some 30 MB of what its thread had allocated.
     */
    private readonly cacheSize = -32768,
    /**
     * The worker stops once it has had no chunk for this long: retention runs once a minute, and an idle worker
     * would keep its thread and its page cache in the process's memory until the next.
     */
    private readonly idleMs = 5000,
  ) {}

  /** Whether a worker thread is running (it is started by the first chunk and stops when idle). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Deletes one chunk: the oldest profiles with a key up to `maxId`, at most `atMost`. */
  chunk(maxId: bigint, atMost: number): Promise<PruneChunkResult> {
    clearTimeout(this.idleTimer);
    const worker = this.start();
    const id = this.nextId++;
    // Referenced while a chunk is under way: a script awaiting prune() must not exit meanwhile.
    worker.ref();
    return new Promise<PruneChunkResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, maxId: String(maxId), atMost });
    });
  }

  /** Stops the worker (its connection closed first). */
  async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    await stopWorker(worker, 5000);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.file, driver, cacheSize: this.cacheSize, ...this.statements, chunk: [...this.statements.chunk] },
    });
    worker.on('message', (message: { id: number; tokens?: string; count?: number; ms?: number; error?: string }) => {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (this.pending.size === 0) {
        worker.unref();
        this.stopWhenIdle(worker);
      }
      if (message.error !== undefined) waiting.reject(new Error(`Pruning the profile store failed: ${message.error}`));
      else waiting.resolve({ tokens: message.count ? (message.tokens ?? '').split('\n') : [], ms: message.ms ?? 0 });
    });
    const fail = (error: Error) => {
      this.failure = error;
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.pending.size > 0) fail(new Error(`The profile store's prune worker stopped (exit code ${code}).`));
      if (this.worker === worker) this.worker = undefined;
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private stopWhenIdle(worker: Worker): void {
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
