// Module worker: runs the JS filter the user typed on record objects (js-filter.js, in the analysis
// worker, has the page start it and end it when one record takes too long: a loop that never ends
// must not hold the analysis). It talks to js-filter.js over the port its first message brings. The
// filter is an expression over the record's fields (r, topic, partition, offset, timestamp, key,
// value, headers, headerList), or a function of the record (`r => ...`).
//
// The code is the user's, and may have come from a link: it must reach nothing but the records.
// The servers send this file with a policy of its own (cli/page-policy.cjs: no connection, no
// import(), no importScripts, no worker), and before any of it runs, the ways out are taken from
// this worker's global scope as well (for a server that sends no policy).
//
//   In:  { type: 'port' } with the port (from the page), then on it:
//        { type: 'compile', source }  then  { type: 'run', records, from, careful, boundMs }
//   Out: { type: 'compiled', error? } | { type: 'progress' | 'done', upTo, results: [0 | 1 | 2 per record from `from`], error? }
//        (1: matches, 0: does not or threw, 2: took more than boundMs); `careful` reports every record

const WAYS_OUT = [
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'WebSocketStream',
  'EventSource',
  'WebTransport',
  'importScripts',
  'Worker',
  'SharedWorker',
  'BroadcastChannel',
  'indexedDB',
  'caches',
];
for (const name of WAYS_OUT) {
  try {
    delete (/** @type {Record<string, unknown>} */ (/** @type {unknown} */ (self))[name]);
    if (name in self) Object.defineProperty(self, name, { value: undefined, writable: false, configurable: false });
  } catch {
    /* not there */
  }
}

// The messages on the port are typed in shared/analysis-protocol.js.
/**
 * @typedef {import('../../shared/analysis-protocol.js').JsPortMessage} JsPortMessage
 * @typedef {import('../../shared/analysis-protocol.js').JsRequest} JsRequest
 * @typedef {import('../../shared/analysis-protocol.js').JsCompiled} JsCompiled
 * @typedef {import('../../shared/analysis-protocol.js').JsProgress} JsProgress
 * @typedef {import('../../shared/analysis-protocol.js').FilterRecord} FilterRecord
 */

const FIELDS = ['r', 'topic', 'partition', 'offset', 'timestamp', 'key', 'value', 'headers', 'headerList'];
const REPORT_MS = 10;
/** @type {(r: FilterRecord) => unknown} */
let test = null;
/** @type {MessagePort} */
let port = null; // to js-filter.js

/**
 * @param {string} source
 * @returns {(r: FilterRecord) => unknown} the user's test: what it returns is truthy or not
 */
function compile(source) {
  const text = source.trim();
  // a function given as such: called with the record
  if (/^(async\s+)?(function\b|\(?\s*[\w$]*\s*\)?\s*=>)/.test(text)) {
    // eslint-disable-next-line no-new-func
    const fn = new Function(`"use strict"; return (${text});`)();
    if (typeof fn !== 'function') throw new Error('not a function');
    return (r) => fn(r);
  }
  // eslint-disable-next-line no-new-func
  const fn = new Function(...FIELDS, `"use strict"; return (${text});`);
  return (r) => fn(r, r.topic, r.partition, r.offset, r.timestamp, r.key, r.value, r.headers, r.headerList);
}

self.onmessage = (/** @type {MessageEvent<JsPortMessage>} */ { data, ports }) => {
  if (data.type !== 'port' || port) return;
  port = ports[0];
  port.onmessage = (/** @type {MessageEvent<JsRequest>} */ { data: msg }) => answer(msg);
};

/** @param {JsRequest} msg */
function answer(msg) {
  if (msg.type === 'compile') {
    try {
      test = compile(msg.source);
      port.postMessage(/** @satisfies {JsCompiled} */ ({ type: 'compiled' }));
    } catch (e) {
      port.postMessage(/** @satisfies {JsCompiled} */ ({ type: 'compiled', error: String(e?.message ?? e) }));
    }
    return;
  }
  const { records, from, careful, boundMs } = msg;
  /** @type {number[]} */
  let results = [];
  /** @type {string | null} */
  let error = null;
  let since = performance.now();
  for (let k = from; k < records.length; k++) {
    const started = performance.now();
    let match = false;
    try {
      match = Boolean(test(records[k]));
    } catch (e) {
      error ??= `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
    }
    const now = performance.now();
    results.push(now - started > boundMs ? 2 : match ? 1 : 0);
    if (careful || now - since > REPORT_MS) {
      port.postMessage(/** @satisfies {JsProgress} */ ({ type: 'progress', upTo: k + 1, results, error }));
      results = [];
      since = now;
    }
  }
  port.postMessage(/** @satisfies {JsProgress} */ ({ type: 'done', upTo: records.length, results, error }));
}
