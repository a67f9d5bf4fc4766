// The JS filter's keeper, in the analysis worker: it runs the user's expression in a worker of
// its own (js-worker.js) and watches it. A record whose test takes more than BOUND_MS is not
// evaluated (neither a match nor left out: the page counts it and can show it); a worker that says
// nothing for BOUND_MS + SLACK_MS is stuck in one record's test: it is ended, a new one started,
// and the records from the last it reported are run again one by one (each reported), so that the
// stuck record is found and skipped. After MAX_TIMEOUTS timed-out records in one run of the
// filter, it stops: the records after are not evaluated either.
//
// The page starts and ends the JS workers (analysis.js, for Firefox's sake): this side asks with
// { type: 'js-worker-start' | 'js-worker-end', key } and is answered { type: 'js-worker', key,
// port | error } (jsWorkerAnswered); it then talks to the worker over the port.

export const BOUND_MS = 100;
export const NOT_EVALUATED = 3;
const SLACK_MS = 400;
const MAX_TIMEOUTS = 3;

// The messages with the page and on the JS worker's port are typed in shared/analysis-protocol.js.
/**
 * @typedef {import('../../shared/analysis-protocol.js').JsWorkerRequest} JsWorkerRequest
 * @typedef {import('../../shared/analysis-protocol.js').JsWorkerAnswer} JsWorkerAnswer
 * @typedef {import('../../shared/analysis-protocol.js').FilterRecord} FilterRecord
 * @typedef {import('../../shared/analysis-protocol.js').JsRequest} JsRequest
 * @typedef {import('../../shared/analysis-protocol.js').JsCompiled} JsCompiled
 * @typedef {import('../../shared/analysis-protocol.js').JsProgress} JsProgress
 * @typedef {{ key: number, port?: MessagePort, error?: string }} JsWorker a JS worker the page started: its port, or why not
 */

let nextKey = 1;
/** @type {Map<number, { port(port: MessagePort): void, error(message: string): void }>} */
const starting = new Map(); // key -> the start's callbacks: { port(port), error(message) }

/**
 * A JS worker the page started for this side: { key, port }, or its error, through `onError` as well later.
 * @param {(message: string) => void} onError
 * @returns {Promise<JsWorker>}
 */
function startJsWorker(onError) {
  const key = nextKey++;
  self.postMessage(/** @satisfies {JsWorkerRequest} */ ({ type: 'js-worker-start', key }));
  return new Promise((resolve) => {
    starting.set(key, {
      port: (port) => resolve({ key, port }),
      error: (message) => {
        resolve({ key, error: message });
        onError(message);
      },
    });
  });
}

/** @param {JsWorker} worker */
function endJsWorker(worker) {
  starting.delete(worker.key);
  worker.port?.close();
  self.postMessage(/** @satisfies {JsWorkerRequest} */ ({ type: 'js-worker-end', key: worker.key }));
}

/**
 * The page's answer about a JS worker (analysis-worker.js hands it here).
 * @param {JsWorkerAnswer} answer
 */
export function jsWorkerAnswered({ key, port, error }) {
  const callbacks = starting.get(key);
  if (port) callbacks?.port(port);
  else callbacks?.error(error);
}

export class JsFilter {
  /** @param {string} source */
  constructor(source) {
    this.source = source;
    this.boundMs = BOUND_MS;
    /** @type {JsWorker | null} */
    this.worker = null; // { key, port }
    /** @type {Promise<string | null> | null} */
    this.ready = null; // a promise of null (compiled) or the compile error
    /** @type {unknown} */
    this.run_ = null;
    this.timeouts = 0;
    this.stopped = false;
  }

  /** @returns {Promise<string | null>} */
  #start() {
    /** @type {(why: string) => void} */
    let failed = () => {};
    this.ready = startJsWorker((message) => failed(`the JS worker failed: ${message}`)).then((worker) => {
      if (worker.error) return `the JS worker failed: ${worker.error}`;
      this.worker = worker;
      return new Promise((/** @type {(why: string | null) => void} */ resolve) => {
        failed = resolve;
        worker.port.onmessage = (/** @type {MessageEvent<JsCompiled>} */ { data }) =>
          resolve(data.type === 'compiled' ? (data.error ?? null) : 'the JS worker did not start');
        worker.port.postMessage(/** @satisfies {JsRequest} */ ({ type: 'compile', source: this.source }));
      });
    });
    return this.ready;
  }

  /** Null when the source compiles, else why not. */
  compiled() {
    return this.ready ?? this.#start();
  }

  /**
   * A new run of the filter (the page filters again): the timeouts are counted afresh.
   * @param {number} run the page's number of this filtering (filter.js)
   */
  startRun(run) {
    if (run === this.run_) return;
    this.run_ = run;
    this.timeouts = 0;
    this.stopped = false;
  }

  /**
   * Tests `records`: { results: Uint8Array (1 matches, 0 does not, NOT_EVALUATED: timed out or
   * not run once the filter stopped), timedOut: [indexes], stopped }.
   * @param {FilterRecord[]} records
   */
  async run(records) {
    const results = new Uint8Array(records.length);
    /** @type {number[]} */
    const timedOut = [];
    let at = 0;
    let careful = false;
    while (at < records.length && !this.stopped) {
      // a worker that cannot start again: the filter stops (the rest is not evaluated)
      if (!this.worker && (await this.#start())) this.stopped = true;
      if (this.stopped) break;
      const step = await this.#runFrom(records, at, careful, results);
      for (let k = at; k < step.upTo; k++) {
        if (results[k] === 2) timedOut.push(k);
      }
      at = step.upTo;
      if (step.stuck) {
        endJsWorker(this.worker);
        this.worker = null;
        this.ready = null;
        if (careful) {
          // reported one by one: the record after the last reported is the one that never ended
          results[at] = 2;
          timedOut.push(at);
          at++;
        }
        careful = true;
      }
      if (this.timeouts + timedOut.length >= MAX_TIMEOUTS) this.stopped = true;
    }
    this.timeouts += timedOut.length;
    for (let k = 0; k < results.length; k++) if (results[k] === 2 || k >= at) results[k] = NOT_EVALUATED;
    return { results, timedOut, stopped: this.stopped };
  }

  /**
   * Runs records from `from` on; resolves with { upTo (reported so far), stuck }.
   * @param {FilterRecord[]} records
   * @param {number} from
   * @param {boolean} careful
   * @param {Uint8Array} results
   * @returns {Promise<{ upTo: number, stuck: boolean }>}
   */
  #runFrom(records, from, careful, results) {
    return new Promise((resolve) => {
      let upTo = from;
      let timer = 0;
      const watch = () => {
        clearTimeout(timer);
        timer = setTimeout(() => resolve({ upTo, stuck: true }), this.boundMs + SLACK_MS);
      };
      this.worker.port.onmessage = (/** @type {MessageEvent<JsProgress>} */ { data }) => {
        results.set(data.results, upTo);
        upTo = data.upTo;
        if (data.type === 'done') {
          clearTimeout(timer);
          resolve({ upTo, stuck: false });
        } else {
          watch();
        }
      };
      watch();
      this.worker.port.postMessage(/** @satisfies {JsRequest} */ ({ type: 'run', records, from, careful, boundMs: this.boundMs }));
    });
  }

  close() {
    if (this.worker) endJsWorker(this.worker);
    this.worker = null;
  }
}
