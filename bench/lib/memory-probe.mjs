// Preloaded into a measured server by the bench (`node --import ./bench/lib/memory-probe.mjs dist/main.js`), never
// by the application itself. It answers the bench over the IPC channel the bench opened when it spawned the server:
//   { cmd: 'memory' }  → a full GC when node runs with --expose-gc, then process.memoryUsage() and how many worker
//                        threads are running (the store's WAL checkpointer; its prune worker is a child process,
//                        which the bench sees in /proc)
//   { cmd: 'mark' }    → the monotonic clock in µs (the clock of a --cpu-prof profile's timestamps)
//   { cmd: 'exit' }    → process.exit(0), so that --cpu-prof writes its profile (a signal would not)
// Without an IPC channel (started by hand) it does nothing.
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
      case 'exit':
        reply({ exiting: true });
        setImmediate(() => process.exit(0));
        break;
    }
  });
  // The channel must not keep the server alive on its own.
  process.channel?.unref();
}
