// KafkaClient.scan: a whole-topic search as the library's async iterator. It plans (or takes a
// plan, a shard of one, or a coverage to resume), runs the ranges on worker threads, each with its
// own client and decoder (run.mjs, worker-core.mjs), and hands out the matches as they are written;
// the coverage, aggregates and latest records per key are there once it ends.

import { KafkaClientError } from '../client/errors.mjs';
import { ByteView } from '../decoder/bytes.mjs';
import { KafkaRecord } from '../decoder/records.mjs';
import { Coverage, readCoverage } from './coverage.mjs';
import { planScan, readPlan, shardOf } from './plan.mjs';
import { ScanRun } from './run.mjs';

const SCAN_OPTIONS = [
  'topic',
  'topics',
  'partitions',
  'from',
  'until',
  'isolationLevel',
  'key',
  'keyPruning',
  'rangeRecords',
  'plan',
  'shard',
  'resume',
  'grep',
  'grepIn',
  'where',
  'strict',
  'values',
  'crc',
  'int64',
  'limit',
  'aggregate',
  'latestPerKey',
  'workers',
  'output',
  'startWorker',
  'workerData',
  'onProgress',
  'signal',
];
// how often onProgress is called at most
const PROGRESS_MS = 250;
const OUTPUTS = ['records', 'arrow', 'none'];

// Where workers come from: Node's entry sets worker threads and the core count; browsers have none
// unless the caller gives `startWorker`.
let defaults = { startWorker: null, cores: () => 1 };
export function setScanDefaults(d) {
  defaults = d;
}

/**
 * The plan and coverage a scan starts from: `resume` (a coverage to continue), else `plan` (made
 * before, or a shard of it), else a plan made now from the topics and positions.
 */
export async function startingPoint(client, o) {
  if (o.resume) {
    const resumed = readCoverage(o.resume, 'resume');
    return { coverage: new Coverage(resumed.ranges), scan: resumed.scan, plan: null };
  }
  let plan = o.plan ? readPlan(o.plan) : await planScan(client, o);
  if (o.shard) plan = shardOf(plan, o.shard.index, o.shard.count);
  return { coverage: new Coverage(plan.ranges), scan: null, plan };
}

/** "I/N" or { index, count } as { index, count }. */
export function shardSpec(shard) {
  if (shard === undefined || shard === null) return null;
  const m = typeof shard === 'string' ? /^(\d+)\/(\d+)$/.exec(shard) : null;
  const spec = m ? { index: Number(m[1]), count: Number(m[2]) } : shard;
  if (!Number.isInteger(spec?.index) || !Number.isInteger(spec?.count) || spec.count < 1 || spec.index < 0 || spec.index >= spec.count) {
    throw new KafkaClientError('INVALID_ARGUMENT', `shard is 'I/N' or { index, count } with 0 <= I < N (0-based), got ${JSON.stringify(shard)}`);
  }
  return spec;
}

export class Scan {
  #client;
  #clientOptions;
  #o;
  #chunks = [];
  #wake = null;
  #ended = false;
  #error = null;
  #waiting = null; // the worker's write waiting for the reader

  /**
   * Made by KafkaClient.scan: `clientOptions` are what each worker's own client is made with.
   * @param {import('../index.d.ts').ScanOptions} [options]
   */
  constructor(client, clientOptions, options = {}) {
    for (const name of Object.keys(options)) {
      if (!SCAN_OPTIONS.includes(name)) throw new KafkaClientError('INVALID_ARGUMENT', `unknown scan option '${name}'; valid: ${SCAN_OPTIONS.join(', ')}`);
    }
    this.#client = client;
    this.#clientOptions = clientOptions;
    if (options.output !== undefined && !OUTPUTS.includes(options.output))
      throw new KafkaClientError('INVALID_ARGUMENT', `scan output is one of ${OUTPUTS.join(', ')}, got '${options.output}'`);
    this.#o = { ...options, shard: shardSpec(options.shard) };
    /** The plan the scan runs (set once planned; null when it resumes a coverage). */
    this.plan = null;
    /** Aggregates by name, once the scan ended (null without `aggregate`). */
    this.aggregates = null;
    /** The latest record per key, once ended (latestPerKey): [{ topic, partition, record }]. */
    this.latest = null;
    this.run = null;
    this.done = this.#start();
    this.done.catch(() => {}); // reported by the iterator, or to whoever awaits `done`
  }

  async #start() {
    const o = this.#o;
    try {
      const { coverage, plan } = await startingPoint(this.#client, o);
      this.plan = plan;
      const startWorker = o.startWorker ? () => webWorker(o.startWorker()) : defaults.startWorker;
      if (!startWorker)
        throw new KafkaClientError(
          'INVALID_ARGUMENT',
          "scan runs on workers: in browsers, give startWorker: () => new Worker(new URL('kafka-fetch-decoder/scan-worker', import.meta.url), { type: 'module' })",
        );
      const latest = o.latestPerKey ? { asOf: o.latestPerKey === true ? null : toMs(o.latestPerKey.asOf) } : null;
      this.run = new ScanRun({
        coverage,
        workers: o.workers ?? defaults.cores(),
        startWorker,
        limit: o.limit ?? null,
        aggregate: o.aggregate ?? [],
        latest,
        session: {
          kind: 'library',
          client: this.#clientOptions,
          isolationLevel: o.isolationLevel ?? plan?.isolationLevel,
          crc: o.crc,
          int64: o.int64 ?? 'number',
          values: o.values ?? null,
          filters: {
            key: plan?.key ?? keyOf(o.key),
            grep: o.grep ? { pattern: o.grep, in: o.grepIn } : null,
            where: o.where ?? null,
            strict: Boolean(o.strict),
          },
          limit: o.limit ?? null,
          aggregate: o.aggregate ?? [],
          latest,
          output: latest ? 'none' : (o.output ?? 'records'),
          workerData: o.workerData ?? null,
        },
        progress: progressOf(o.onProgress, () => this.coverage()),
        write: (range, payload) => this.#push(revive(payload)),
      });
      await this.run.run(o.signal);
      this.aggregates = this.run.aggregates?.result() ?? null;
      this.latest = this.run.latest?.result().map((w) => revive(w.line)) ?? null;
      return { coverage: this.coverage(), aggregates: this.aggregates, latest: this.latest };
    } catch (e) {
      this.#error = e;
      throw e;
    } finally {
      this.#ended = true;
      this.#notify();
    }
  }

  /** The coverage so far, in its file form (scan.mjs's Coverage.toJSON). */
  coverage() {
    return this.run ? this.run.coverage.toJSON({ topics: this.plan?.topics }) : null;
  }

  #push(payload) {
    this.#chunks.push(payload);
    this.#notify();
    // the worker waits until the reader took it: a slow reader slows the scan, not memory
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  #notify() {
    const w = this.#wake;
    this.#wake = null;
    w?.();
  }

  async *[Symbol.asyncIterator]() {
    for (;;) {
      if (this.#chunks.length) {
        const chunk = this.#chunks.shift();
        const release = this.#waiting;
        this.#waiting = null;
        yield chunk;
        release?.();
        continue;
      }
      if (this.#ended) {
        if (this.#error) throw this.#error;
        return;
      }
      await new Promise((resolve) => {
        this.#wake = resolve;
      });
    }
  }
}

/** The run's progress callback: `onProgress(coverage)` now and then, or nothing. */
function progressOf(onProgress, coverage) {
  if (typeof onProgress !== 'function') return () => {};
  let last = 0;
  return () => {
    const now = Date.now();
    if (now - last < PROGRESS_MS) return;
    last = now;
    onProgress(coverage());
  };
}

/** A Web Worker as run.mjs drives workers. */
function webWorker(w) {
  return {
    post: (message, transfer) => w.postMessage(message, transfer ?? []),
    onMessage: (handler) => w.addEventListener('message', (e) => handler(e.data)),
    onExit: (handler) =>
      w.addEventListener('error', (e) => {
        e.preventDefault?.();
        handler(`error: ${e.message ?? 'the worker failed'}`);
      }),
    terminate: () => w.terminate(),
  };
}

/**
 * Records that crossed from a worker (structured clone: plain objects, Buffers as Uint8Arrays) as
 * the package hands records out: KafkaRecords, bytes as Buffers in Node.
 */
function revive(payload) {
  const bytes = (b) => (b === null || b === undefined || b instanceof ByteView ? b : new ByteView(b.buffer, b.byteOffset, b.byteLength));
  const one = (r) => {
    Object.setPrototypeOf(r, KafkaRecord.prototype);
    r.key = bytes(r.key);
    r.value = bytes(r.value);
    for (const h of r.headers) h.value = bytes(h.value);
    return r;
  };
  if (payload.ipc) return payload;
  if (payload.records) payload.records.forEach(one);
  else if (payload.record) one(payload.record);
  return payload;
}

function keyOf(key) {
  if (key === undefined || key === null) return null;
  const bytes = typeof key === 'string' ? new TextEncoder().encode(key) : key;
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return { base64: btoa(s) };
}

function toMs(t) {
  if (t === undefined || t === null) return null;
  if (t instanceof Date) return t.getTime();
  if (typeof t === 'number') return t;
  const ms = Date.parse(t);
  if (!Number.isFinite(ms)) throw new KafkaClientError('INVALID_ARGUMENT', `latestPerKey.asOf is a time (a Date, ms or an ISO-8601 string), got ${t}`);
  return ms;
}
