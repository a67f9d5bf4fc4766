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

const sourceName = () => state.source?.name ?? null;

let worker = null;
let mirrored = null; // { store, sent: chunk bases sent, first: the store's first record told, settings }
let nextId = 1;
const waiting = new Map(); // request id -> { resolve, reject }
const jsWorkers = new Map(); // the analysis worker's key -> a JS filter's worker

function start() {
  worker = new Worker(new URL('../workers/analysis/analysis-worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => {
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

/** A JS filter's worker for the analysis worker, which gets a port to it (or, if it fails, why). */
function startJsWorker(key) {
  const analysis = worker;
  const js = new Worker(new URL('../workers/js-filter/js-worker.js', import.meta.url), { type: 'module' });
  const { port1, port2 } = new MessageChannel();
  js.onerror = (event) => {
    event.preventDefault();
    analysis.postMessage({ type: 'js-worker', key, error: event.message || 'the JS worker failed' });
  };
  js.postMessage({ type: 'port' }, [port1]);
  jsWorkers.set(key, js);
  analysis.postMessage({ type: 'js-worker', key, port: port2 }, [port2]);
}

function endJsWorker(key) {
  jsWorkers.get(key)?.terminate();
  jsWorkers.delete(key);
}

/** Sends the worker what it lacks of `store`: its chunks not sent yet, the cap's drops, the value settings. */
function sync(store) {
  if (!worker) start();
  if (mirrored?.store !== store) {
    // the topic and partition of each partition index the records name
    worker.postMessage({
      type: 'reset',
      partitions: store.partitions.map((p) => ({ topic: p.topic ?? p.topicId ?? null, partition: p.partition ?? null })),
      source: sourceName(),
    });
    mirrored = { store, sent: new Set(), first: 0, settings: undefined };
  }
  const settings = JSON.stringify(valueSettings());
  if (settings !== mirrored.settings) {
    mirrored.settings = settings;
    worker.postMessage({ type: 'values', settings: valueSettings() });
  }
  for (const chunk of store.chunks) {
    if (mirrored.sent.has(chunk.base)) continue;
    mirrored.sent.add(chunk.base);
    // a structured clone: the page keeps its own (the bytes of one fetch response, copied once)
    worker.postMessage({ type: 'chunk', base: chunk.base, count: chunk.count, data: chunk.data });
  }
  if (store.first > mirrored.first) {
    mirrored.first = store.first;
    worker.postMessage({ type: 'drop', first: store.first });
    for (const base of mirrored.sent) if (!store.chunks.some((c) => c.base === base)) mirrored.sent.delete(base);
  }
}

function request(store, message, progress = null, transfer = []) {
  sync(store);
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject, progress });
    worker.postMessage({ ...message, id }, transfer);
  });
}

/**
 * The Where / JS filter `expr` ({ where, js }) on the records numbered `numbers` of `store`:
 * resolves with { matched (numbers), scanned, timedOut: [{ partition, offset }], stopped, boundMs }
 * or { error: { field, message } } when the filter does not compile.
 */
export function evaluate(store, expr, numbers) {
  return request(store, { type: 'eval', expr, numbers });
}

/** The statistics of `numbers` (the filtered view), or of every kept record when null (stats-compute.js). */
export function statistics(store, numbers) {
  return request(store, { type: 'stats', numbers });
}

/**
 * The records numbered `numbers` (in that order) as a file: `format` ndjson, json, csv or arrow,
 * bytes as `encoding` (base64 or utf8); `progress(done)` as it goes. Resolves with { export: { parts, type, count } }.
 */
export function exportRecords(store, { format, encoding, numbers }, progress) {
  return request(store, { type: 'export', format, encoding, numbers }, progress, [numbers.buffer]);
}
