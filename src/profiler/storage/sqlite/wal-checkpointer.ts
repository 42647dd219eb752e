import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { stopWorker } from './stop-worker.js';

/** A PASSIVE checkpoint blocks nobody. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'checkpoint') checkpoint();
  if (message === 'close') {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
`;

/**
 * Checkpoints off the event loop: an automatic checkpoint runs inside whichever commit crosses the threshold
 * (writing the WAL back and fsyncing), blocking requests meanwhile.
 */
export class WalCheckpointer {
  private worker?: Worker;

  constructor(
    private readonly file: string,
    private readonly intervalMs = 1000,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {}

  start(): void {
    if (this.worker) return;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.file, driver, intervalMs: this.intervalMs },
    });
    worker.on('message', (message: { error?: string }) => {
      if (message?.error) this.onError(new Error(`WAL checkpoint failed: ${message.error}`));
    });
    worker.on('error', (error) => this.onError(error));
    worker.unref();
    this.worker = worker;
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    await stopWorker(worker, 2000);
  }
}
