// One scan worker thread (scan/pool-node.mjs): the package loaded with a wasm instance of its own,
// then the worker loop of scan/worker-core.mjs with the session its scan asks for: the library's
// (matches as records) or the command line's (matches printed, or written to files).
'use strict';
const { parentPort } = require('node:worker_threads');
require('../node.cjs'); // loads and attaches the wasm module
const { scanInternals } = require('../lib.cjs');

const sessions = {
  library: (spec) => scanInternals.librarySession(spec),
  cli: (spec) => require('../cli/scan-session.cjs').cliSession(spec),
};

const worker = new scanInternals.ScanWorker(
  (message, transfer) => parentPort.postMessage(message, transfer),
  async (spec) => sessions[spec.kind](spec),
);
parentPort.on('message', (m) => worker.receive(m));
