// Preloaded into a measured server by the bench (`node --import ./bench/lib/memory-probe.mjs dist/main.js`), never
// by the application itself. It answers the bench over the IPC channel the bench opened when it spawned the server:
//   { cmd: 'memory' }  → a full GC when node runs with --expose-gc, then process.memoryUsage() and how many worker
//                        threads are running (the store's WAL checkpointer)
//   { cmd: 'mark' }    → the monotonic clock in µs (the clock of a --cpu-prof profile's timestamps)
//   { cmd: 'exit' }    → process.exit(0), so that --cpu-prof writes its profile (a signal would not)
//   { cmd: 'alloc-start' } / { cmd: 'alloc-stop', file } → V8's sampling heap profiler, counting the objects
//                        garbage collection has freed too (every allocation, not only what survives), started, and
//                        stopped with its profile written to `file` (bench/alloc-per-request.mjs)
// Without an IPC channel (started by hand) it does nothing.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { syncBuiltinESMExports } from 'node:module';
import workerThreads from 'node:worker_threads';

let workers = 0;
if (typeof process.send === 'function') {
  // Counts the application's worker threads: the class is swapped before the application imports it.
  const { Worker } = workerThreads;
  workerThreads.Worker = class CountedWorker extends Worker {
    constructor(...args) {
      super(...args);
      workers++;
      this.once('exit', () => workers--);
    }
  };
  syncBuiltinESMExports();
  process.on('message', (message) => {
    if (!message || typeof message !== 'object' || typeof message.cmd !== 'string') return;
    const reply = (body) => process.send({ id: message.id, ...body });
    switch (message.cmd) {
      case 'memory':
        if (typeof globalThis.gc === 'function') globalThis.gc();
        reply({ memory: process.memoryUsage(), gc: typeof globalThis.gc === 'function', workers });
        break;
      case 'mark':
        reply({ micros: Number(process.hrtime.bigint() / 1000n) });
        break;
      case 'alloc-start':
      case 'alloc-stop':
        allocations(message.cmd === 'alloc-start' ? null : message.file, message.survivors === true).then(
          () => reply({ done: true }),
          (error) => reply({ error: String(error) }),
        );
        break;
      case 'exit':
        reply({ exiting: true });
        setImmediate(() => process.exit(0));
        break;
    }
  });
  // The channel must not keep the server alive on its own.
  process.channel?.unref();
}

let inspector;
/**
 * Starts the sampling heap profiler (a sample every 4 KB allocated, freed objects kept), or stops it into `file`.
 * `survivors`: leaves out what a scavenge freed, so what is left is what outlived one (copied or promoted).
 */
async function allocations(file, survivors) {
  if (!inspector) {
    inspector = new Session();
    inspector.connect();
  }
  const post = (method, params) =>
    new Promise((resolve, reject) =>
      inspector.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  if (file) {
    writeFileSync(file, JSON.stringify((await post('HeapProfiler.stopSampling')).profile));
    return;
  }
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: !survivors,
  });
}
