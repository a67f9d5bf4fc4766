// Decoding fetch responses on worker threads (Node), for clients with `decodeThreads`: each thread
// loads the package (a wasm instance of its own) and decodes the frames it is sent; the result comes
// back in transferable form (columns and bytes moved, not copied) and is rebuilt here. The calling
// thread stays free to read sockets while responses decode, several at once on several cores.
//
// The threads are the process's, shared by its clients: starting one (loading the package, compiling
// the wasm module) costs about as much as decoding a few responses, so they outlive the client that
// started them and are ended after IDLE_MS without work. An idle thread keeps no process alive.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { fromTransferable, KafkaDecodeError } from '../api.mjs';

// Bundled into lib.cjs beside the package's entries: the worker script ships in client/.
const WORKER = path.join(__dirname, 'client', 'decode-worker.cjs');
const IDLE_MS = 10_000;

const workers = []; // slot -> Worker | null
const waiting = new Map(); // id -> { resolve, reject, worker }
let nextId = 0;
let idleTimer = null;

function start(slot) {
  const worker = Object.assign(new Worker(WORKER), { inFlight: 0 }); // inFlight: decodes it holds
  worker.unref();
  worker.on('message', ({ id, data, error }) => {
    const w = waiting.get(id);
    if (!w) return;
    settled(id);
    if (error) w.reject(error.decode ? new KafkaDecodeError(error.decode) : new Error(`kafka-fetch-decoder: decode thread: ${error.message}`));
    else w.resolve(fromTransferable(data));
  });
  // a thread that failed fails what it had; the next decode sent to its slot starts a new one
  const fail = (e) => {
    if (workers[slot] === worker) workers[slot] = null;
    for (const [id, w] of waiting) {
      if (w.worker !== worker) continue;
      settled(id);
      w.reject(e);
    }
  };
  worker.on('error', fail);
  worker.on('exit', () => fail(new Error('kafka-fetch-decoder: a decode thread exited')));
  workers[slot] = worker;
  return worker;
}

function settled(id) {
  const { worker } = waiting.get(id);
  waiting.delete(id);
  if (--worker.inFlight === 0) worker.unref(); // an idle thread keeps no process alive
  if (waiting.size === 0) {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(endAll, IDLE_MS);
    idleTimer.unref();
  }
}

function endAll() {
  idleTimer = null;
  for (const [slot, w] of workers.entries()) {
    workers[slot] = null;
    w?.removeAllListeners('exit');
    w?.terminate();
  }
}

/** A client's handle on the process's decode threads: it uses the first `threads` of them. */
export function nodeDecodePool(threads) {
  let closed = false;
  return {
    /**
     * Decodes `frame` with decodeFetchResponse `options` on the next thread in turn. The frame's
     * bytes are moved to the thread when they are a buffer of their own and `keep` is false,
     * else copied.
     */
    decode(frame, options, keep) {
      if (closed) return Promise.reject(new Error('kafka-fetch-decoder: this client was closed'));
      clearTimeout(idleTimer);
      const id = nextId++;
      const slot = id % threads;
      const worker = workers[slot] ?? start(slot);
      const own = !keep && frame.byteOffset === 0 && frame.byteLength === frame.buffer.byteLength;
      const bytes = own ? frame : frame.slice();
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject, worker });
        if (worker.inFlight++ === 0) worker.ref();
        worker.postMessage({ id, frame: bytes, options }, [bytes.buffer]);
      });
    },
    close() {
      closed = true;
    },
  };
}
