import type { Worker } from 'node:worker_threads';

/** Terminated after `graceMs`: a worker stuck in a long statement must not hold the shutdown. */
export async function stopWorker(worker: Worker, graceMs: number): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.postMessage('close');
  const timeout = setTimeout(() => void worker.terminate(), graceMs);
  await exited;
  clearTimeout(timeout);
}
