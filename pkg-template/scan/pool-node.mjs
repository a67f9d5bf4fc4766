// Scan workers in Node: worker threads, each loading the package (a wasm instance of its own) and
// running scan/worker-node.cjs. Not shared between scans, unlike decode threads: a scan's workers
// hold its session (connections, filters) and end with it.
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

// Bundled into lib.cjs beside the package's entries: the worker script ships in scan/.
const WORKER = path.join(__dirname, 'scan', 'worker-node.cjs');

/** A scan worker thread as run.mjs drives it. */
export function nodeScanWorker() {
  const worker = new Worker(WORKER);
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (handler) => worker.on('message', handler),
    onExit: (handler) => {
      worker.on('error', (/** @type {Error} */ e) => handler(`error: ${e?.message ?? e}`));
      worker.on('exit', (code) => handler(code));
    },
    terminate: () => worker.terminate(),
  };
}

/** How many workers a scan runs by default: the cores this process may use. */
export const nodeCores = () => (typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
