// Questions to a server started with an IPC channel and bench/lib/memory-probe.mjs preloaded: each message carries an
// id, and the probe's answer comes back with it.

/**
 * `ask(cmd, extra)`: sends `{ cmd, id, ...extra }` to `child` and resolves with the answer of that id; rejects when the
 * message cannot be sent (the server has exited), with `describe(error)` as the message.
 */
export function askServer(child, describe = (error) => error.message) {
  let nextId = 1;
  return (cmd, extra = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const onMessage = (m) => {
        if (m?.id !== id) return;
        child.off('message', onMessage);
        resolve(m);
      };
      child.on('message', onMessage);
      child.send({ ...extra, cmd, id }, (error) => {
        if (!error) return;
        child.off('message', onMessage);
        reject(new Error(describe(error)));
      });
    });
}
