// The page's side of the analysis worker (analysis-worker.js), which runs the Where and JS filters
// and computes the statistics off the page thread. It holds a copy of the records the page keeps:
// each chunk the worker decoded (its transferable form: columns and bytes, no record objects) is
// sent to it once, numbered as the page numbers it, and forgotten there when the cap drops it here.
// Started when a Where or JS filter is first typed or the Statistics panel first opened; a page
// that uses neither never loads it.
//
// The JS filter's workers are started and ended here, on the page's thread, for the analysis
// worker (which talks to each over a MessagePort): in Firefox ESR a worker that starts a worker of
// its own just after ending one that ran an endless loop can block for good in `new Worker()`
// (www/README.md, "Engines").

import { valueSettings } from './values/values.js';
import { state } from './view-state.js';

// The messages with the worker are typed in shared/analysis-protocol.js, for both sides.
/**
 * @typedef {import('./store.js').RecordStore} RecordStore
 * @typedef {import('../shared/analysis-protocol.js').FilterExpr} FilterExpr
 * @typedef {import('../shared/analysis-protocol.js').ResetRequest} ResetRequest
 * @typedef {import('../shared/analysis-protocol.js').ValuesRequest} ValuesRequest
 * @typedef {import('../shared/analysis-protocol.js').ChunkRequest} ChunkRequest
 * @typedef {import('../shared/analysis-protocol.js').DropRequest} DropRequest
 * @typedef {import('../shared/analysis-protocol.js').EvalRequest} EvalRequest
 * @typedef {import('../shared/analysis-protocol.js').StatsRequest} StatsRequest
 * @typedef {import('../shared/analysis-protocol.js').ExportRequest} ExportRequest
 * @typedef {import('../shared/analysis-protocol.js').JsWorkerAnswer} JsWorkerAnswer
 * @typedef {import('../shared/analysis-protocol.js').JsPortMessage} JsPortMessage
 * @typedef {import('../shared/analysis-protocol.js').JsWorkerRequest} JsWorkerRequest
 * @typedef {import('../shared/analysis-protocol.js').EvalAnswer} EvalAnswer
 * @typedef {import('../shared/analysis-protocol.js').StatsAnswer} StatsAnswer
 * @typedef {import('../shared/analysis-protocol.js').ExportProgress} ExportProgress
 * @typedef {import('../shared/analysis-protocol.js').ExportAnswer} ExportAnswer
 * @typedef {import('../shared/analysis-protocol.js').FatalAnswer} FatalAnswer
 */

/**
 * What the analysis worker posts (AnalysisAnswer), read by the fields that route it: that the page
 * start or end a JS filter's worker (`type`, `key`); or a request's (`id`) progress, or why it failed
 * (`error` with `fatal`: the request rejects); else its answer. Each is there only in the answers that have it.
 * @typedef {Partial<JsWorkerRequest & ExportProgress & FatalAnswer>} WorkerReply
 */

/**
 * A request to the worker as request() takes it: its id is added when sent.
 * @typedef {Omit<EvalRequest, 'id'> | Omit<StatsRequest, 'id'> | Omit<ExportRequest, 'id'>} Request
 */

const sourceName = () => state.source?.name ?? null;

/** @type {Worker} */
let worker = null;
/** @type {{ store: RecordStore, sent: Set<number>, first: number, settings: string }} */
let mirrored = null; // { store, sent: chunk bases sent, first: the store's first record told, settings }
let nextId = 1;
/** @type {Map<number, { resolve: (answer: unknown) => void, reject: (error: Error) => void, progress: (done: number) => void }>} */
const waiting = new Map(); // request id -> { resolve, reject }
/** @type {Map<number, Worker>} */
const jsWorkers = new Map(); // the analysis worker's key -> a JS filter's worker

function start() {
  worker = new Worker(new URL('../workers/analysis/analysis-worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (/** @type {MessageEvent<WorkerReply>} */ { data }) => {
    if (data.type === 'js-worker-start') return startJsWorker(data.key);
    if (data.type === 'js-worker-end') return endJsWorker(data.key);
    const w = waiting.get(data.id);
    if (!w) return;
    if (data.progress !== undefined) {
      w.progress?.(data.progress);
      return;
    }
    waiting.delete(data.id);
    if (data.error && data.fatal) w.reject(Object.assign(new Error(data.error.message), data.error));
    else w.resolve(data);
  };
  worker.onerror = (event) => {
    event.preventDefault();
    const error = new Error(`the analysis worker failed: ${event.message || 'see the browser console'}`);
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
    for (const key of jsWorkers.keys()) endJsWorker(key);
    worker = null;
    mirrored = null;
  };
  mirrored = null;
}

/**
 * A JS filter's worker for the analysis worker, which gets a port to it (or, if it fails, why).
 * @param {number} key
 */
function startJsWorker(key) {
  const analysis = worker;
  const js = new Worker(new URL('../workers/js-filter/js-worker.js', import.meta.url), { type: 'module' });
  const { port1, port2 } = new MessageChannel();
  js.onerror = (event) => {
    event.preventDefault();
    analysis.postMessage(/** @satisfies {JsWorkerAnswer} */ ({ type: 'js-worker', key, error: event.message || 'the JS worker failed' }));
  };
  js.postMessage(/** @satisfies {JsPortMessage} */ ({ type: 'port' }), [port1]);
  jsWorkers.set(key, js);
  analysis.postMessage(/** @satisfies {JsWorkerAnswer} */ ({ type: 'js-worker', key, port: port2 }), [port2]);
}

function endJsWorker(/** @type {number} */ key) {
  jsWorkers.get(key)?.terminate();
  jsWorkers.delete(key);
}

/**
 * Sends the worker what it lacks of `store`: its chunks not sent yet, the cap's drops, the value settings.
 * @param {RecordStore} store
 */
function sync(store) {
  if (!worker) start();
  if (mirrored?.store !== store) {
    // the topic and partition of each partition index the records name
    worker.postMessage(
      /** @satisfies {ResetRequest} */ ({
        type: 'reset',
        partitions: store.partitions.map((p) => ({ topic: p.topic ?? p.topicId ?? null, partition: p.partition ?? null })),
        source: sourceName(),
      }),
    );
    mirrored = { store, sent: new Set(), first: 0, settings: undefined };
  }
  const settings = JSON.stringify(valueSettings());
  if (settings !== mirrored.settings) {
    mirrored.settings = settings;
    worker.postMessage(/** @satisfies {ValuesRequest} */ ({ type: 'values', settings: valueSettings() }));
  }
  for (const chunk of store.chunks) {
    if (mirrored.sent.has(chunk.base)) continue;
    mirrored.sent.add(chunk.base);
    // a structured clone: the page keeps its own (the bytes of one fetch response, copied once)
    worker.postMessage(/** @satisfies {ChunkRequest} */ ({ type: 'chunk', base: chunk.base, count: chunk.count, data: chunk.data }));
  }
  if (store.first > mirrored.first) {
    mirrored.first = store.first;
    worker.postMessage(/** @satisfies {DropRequest} */ ({ type: 'drop', first: store.first }));
    for (const base of mirrored.sent) if (!store.chunks.some((c) => c.base === base)) mirrored.sent.delete(base);
  }
}

/**
 * Sends `message` once the worker has the records of `store`; resolves with the worker's answer.
 * @param {RecordStore} store
 * @param {Request} message
 * @param {(done: number) => void} [progress]
 * @param {Transferable[]} [transfer]
 * @returns {Promise<unknown>}
 */
function request(store, message, progress = null, transfer = []) {
  sync(store);
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject, progress });
    worker.postMessage(/** @satisfies {EvalRequest | StatsRequest | ExportRequest} */ ({ ...message, id }), transfer);
  });
}

/**
 * The Where / JS filter `expr` ({ where, js }) on the records numbered `numbers` of `store`:
 * resolves with { matched (numbers), scanned, timedOut: [{ partition, offset }], stopped, boundMs }
 * or { error: { field, message } } when the filter does not compile.
 * @param {RecordStore} store
 * @param {FilterExpr} expr
 * @param {Float64Array} numbers
 */
export function evaluate(store, expr, numbers) {
  return /** @type {Promise<EvalAnswer>} */ (request(store, { type: 'eval', expr, numbers }));
}

/**
 * The statistics of `numbers` (the filtered view), or of every kept record when null (stats-compute.js).
 * @param {RecordStore} store
 * @param {Float64Array | null} numbers
 */
export function statistics(store, numbers) {
  return /** @type {Promise<StatsAnswer>} */ (request(store, { type: 'stats', numbers }));
}

/**
 * The records numbered `numbers` (in that order) as a file: `format` ndjson, json, csv or arrow,
 * bytes as `encoding` (base64 or utf8); `progress(done)` as it goes. Resolves with { export: { parts, type, count } }.
 * @param {RecordStore} store
 * @param {Pick<ExportRequest, 'format' | 'encoding' | 'numbers'>} options
 * @param {(done: number) => void} progress
 */
export function exportRecords(store, { format, encoding, numbers }, progress) {
  return /** @type {Promise<ExportAnswer>} */ (request(store, { type: 'export', format, encoding, numbers }, progress, [numbers.buffer]));
}
