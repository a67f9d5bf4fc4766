// The JS filter's keeper, in the analysis worker: it runs the user's expression in a worker of
// its own (js-worker.js) and watches it. A record whose test takes more than BOUND_MS is not
// evaluated (neither a match nor left out: the page counts it and can show it); a worker that says
// nothing for BOUND_MS + SLACK_MS is stuck in one record's test: it is ended, a new one started,
// and the records from the last it reported are run again one by one (each reported), so that the
// stuck record is found and skipped. After MAX_TIMEOUTS timed-out records in one run of the
// filter, it stops: the records after are not evaluated either.

export const BOUND_MS = 100;
export const NOT_EVALUATED = 3;
const SLACK_MS = 400;
const MAX_TIMEOUTS = 3;

export class JsFilter {
  constructor(source, workerUrl) {
    this.source = source;
    this.workerUrl = workerUrl;
    this.boundMs = BOUND_MS;
    this.worker = null;
    this.ready = null; // a promise of null (compiled) or the compile error
    this.run_ = null;
    this.timeouts = 0;
    this.stopped = false;
  }

  #start() {
    this.worker = new Worker(this.workerUrl, { type: 'module' });
    this.ready = new Promise((resolve) => {
      this.worker.onmessage = ({ data }) => resolve(data.type === 'compiled' ? (data.error ?? null) : 'the JS worker did not start');
      this.worker.onerror = (e) => {
        e.preventDefault();
        resolve(`the JS worker failed: ${e.message}`);
      };
    });
    this.worker.postMessage({ type: 'compile', source: this.source });
    return this.ready;
  }

  /** Null when the source compiles, else why not. */
  compiled() {
    return this.ready ?? this.#start();
  }

  /** A new run of the filter (the page filters again): the timeouts are counted afresh. */
  startRun(run) {
    if (run === this.run_) return;
    this.run_ = run;
    this.timeouts = 0;
    this.stopped = false;
  }

  /**
   * Tests `records`: { results: Uint8Array (1 matches, 0 does not, NOT_EVALUATED: timed out or
   * not run once the filter stopped), timedOut: [indexes], stopped }.
   */
  async run(records) {
    const results = new Uint8Array(records.length);
    const timedOut = [];
    let at = 0;
    let careful = false;
    while (at < records.length && !this.stopped) {
      if (!this.worker) await this.#start();
      const step = await this.#runFrom(records, at, careful, results);
      for (let k = at; k < step.upTo; k++) {
        if (results[k] === 2) timedOut.push(k);
      }
      at = step.upTo;
      if (step.stuck) {
        this.worker.terminate();
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

  /** Runs records from `from` on; resolves with { upTo (reported so far), stuck }. */
  #runFrom(records, from, careful, results) {
    return new Promise((resolve) => {
      let upTo = from;
      let timer = 0;
      const watch = () => {
        clearTimeout(timer);
        timer = setTimeout(() => resolve({ upTo, stuck: true }), this.boundMs + SLACK_MS);
      };
      this.worker.onmessage = ({ data }) => {
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
      this.worker.postMessage({ type: 'run', records, from, careful, boundMs: this.boundMs });
    });
  }

  close() {
    this.worker?.terminate();
    this.worker = null;
  }
}
