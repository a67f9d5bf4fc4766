// Running a scan's ranges on a pool of workers (worker-core.mjs), on the calling thread's side:
// ranges dealt to idle workers, a partition's ranges interleaved with other partitions' so that
// workers read different partitions at once; matches handed to `write` in offset order per
// partition (a later range's are held until the ranges before it are done); a limit shared out on
// request; a range that failed tried again from where it stopped; aggregates merged; and the
// coverage kept to what was written.
//
// `startWorker(index)` gives { post(message, transfer), onMessage(handler), onExit(handler),
// terminate() }: a Node worker thread or a Web Worker; each is sent { type: 'init', session }.

import { KafkaClientError } from '../client/errors.mjs';
import { makeAggregates } from './aggregates.mjs';
import { LatestPerKey } from './latest.mjs';

/**
 * @typedef {{ post(message: object, transfer?: Transferable[]): void, onMessage(handler: (message: any) => void): void,
 *   onExit(handler: (code: number | string) => void): void, terminate(): void }} ScanWorkerHandle
 */

// Tries of a range whose reading failed (a broker down, a leader moved past the client's retries)
const RANGE_ATTEMPTS = 3;

export class ScanRun {
  /**
   * `coverage`: the Coverage to fill (its pending ranges are read); `session`: the workers' session
   * spec; `workers`: how many; `limit`: matches in all, or null; `ordered`: hand a partition's
   * matches out in offset order; `aggregate`: names (aggregates.mjs); `latest`: { asOf } or null;
   * `write(range, payload)`: takes a data message's payload (may return a promise: the worker that
   * sent it waits); `progress(run)`: called now and then.
   *
   * @param {{ coverage: import('./coverage.mjs').Coverage, session: object, workers: number,
   *   startWorker: (index: number) => ScanWorkerHandle, limit?: number | null, ordered?: boolean, aggregate?: string[],
   *   latest?: { asOf?: number | null } | null, write?: (range: any, payload: any) => unknown, progress?: (run: ScanRun) => void }} options
   */
  constructor({ coverage, session, workers, startWorker, limit = null, ordered = true, aggregate = [], latest = null, write = () => {}, progress = () => {} }) {
    this.coverage = coverage;
    this.session = session;
    this.workerCount = Math.max(1, Math.min(workers, coverage.pending().filter((r) => r.next < r.to).length || 1));
    this.startWorker = startWorker;
    this.remaining = limit;
    this.ordered = ordered;
    this.aggregates = aggregate.length ? makeAggregates(aggregate) : null;
    this.latest = latest ? new LatestPerKey(latest.asOf ?? null) : null;
    this.write = write;
    this.progress = progress;
    this.stopReason = null;
    /** @type {ScanWorkerHandle[] | null} the workers started, by index */
    this.workers = null;
    /** Per range id: { attempts, base: { records, matches } at this attempt's start, queue, done } */
    this.state = new Map();
    this.live = { records: 0, matches: 0 }; // what running attempts read so far (for progress)
    this.failure = null;
  }

  /** Runs the pending ranges; resolves when every one stopped. `signal` ends it as interrupted. */
  async run(signal) {
    const pending = dealOrder(this.coverage.pending());
    for (const r of this.coverage.ranges)
      this.state.set(r.id, {
        attempts: 0,
        base: { records: r.records, matches: r.matches },
        queue: [],
        done: r.stop !== null,
        seen: { records: 0, matches: 0 },
      });
    // partitions' ranges in offset order: a range's data is written once those before it are done
    this.order = new Map();
    for (const r of this.coverage.ranges) {
      const k = partitionKey(r);
      if (!this.order.has(k)) this.order.set(k, []);
      this.order.get(k).push(r.id);
    }
    for (const ids of this.order.values()) ids.sort((a, b) => (this.coverage.ranges[a].from < this.coverage.ranges[b].from ? -1 : 1));
    this.queue = pending;
    const onAbort = () => this.stop('interrupted');
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) this.stop('interrupted');
    try {
      await Promise.all(Array.from({ length: this.workerCount }, (_, i) => this.#drive(i)));
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    this.coverage.stopRest(this.stopReason ?? 'interrupted');
    if (this.failure) throw this.failure;
  }

  /** Ends the scan early: running ranges stop where they are, no other starts ('limit' or 'interrupted'). */
  stop(reason) {
    if (this.stopReason) return;
    this.stopReason = reason;
    for (const w of this.workers ?? []) w?.post({ type: 'stop', reason });
  }

  /** One worker's life: started, given ranges until none is left, ended. */
  async #drive(index) {
    this.workers ??= [];
    const worker = this.startWorker(index);
    this.workers[index] = worker;
    let current = null;
    let wake = null;
    const inbox = [];
    const next = () =>
      new Promise((resolve) => {
        if (inbox.length) resolve(inbox.shift());
        else wake = resolve;
      });
    const deliver = (m) => {
      if (wake) {
        const w = wake;
        wake = null;
        w(m);
      } else {
        inbox.push(m);
      }
    };
    worker.onMessage(deliver);
    worker.onExit((code) => deliver({ type: 'exit', code }));
    worker.post({ type: 'init', session: this.session });
    if (this.stopReason) worker.post({ type: 'stop', reason: this.stopReason });
    try {
      for (;;) {
        if (!current && !this.stopReason && !this.failure) {
          current = this.queue.shift() ?? null;
          if (current) {
            const s = this.state.get(current.id);
            s.attempts++;
            s.seen = { records: 0, matches: 0, next: undefined };
            const { id, topic, partition, next: from, to, untilTime } = current;
            worker.post({ type: 'range', range: { id, topic, partition, next: from, to, untilTime } });
          }
        }
        if (!current) break;
        const m = await next();
        if (m.type === 'exit' || m.type === 'fatal') {
          const why = m.type === 'exit' ? `a scan worker exited (code ${m.code})` : `a scan worker failed: ${m.error.message}`;
          this.failure ??= new KafkaClientError(m.error?.code ?? 'WORKER', why);
          // what it wrote stays counted; the ranges after it in its partition may be written
          this.coverage.stopped(current.id, 'error', { message: why });
          this.state.get(current.id).done = true;
          this.stop('interrupted');
          await this.#flush(this.coverage.ranges[current.id]);
          current = null;
          break;
        }
        if (m.type === 'reserve') {
          const granted = this.remaining === null ? m.count : Math.min(m.count, this.remaining);
          if (this.remaining !== null) this.remaining -= granted;
          worker.post({ type: 'granted', count: granted });
          if (this.remaining === 0) this.stop('limit');
          continue;
        }
        if (m.type === 'ready') continue;
        const s = this.state.get(m.id);
        this.#seen(s, m);
        if (m.type === 'progress') {
          this.progress(this);
          continue;
        }
        if (m.type === 'done') {
          // decided here, once: the done may be taken (#flush) after the next attempt started
          m.retry = m.stop === 'error' && s.attempts < RANGE_ATTEMPTS && !this.stopReason;
          if (m.retry) this.queue.unshift({ ...current, next: m.next });
          current = null;
        }
        // data and done of a range are taken in order, once the ranges before it are done
        s.queue.push({ m, worker });
        await this.#flush(this.coverage.ranges[m.id]);
      }
    } finally {
      worker.terminate();
    }
  }

  /** What running attempts read so far, for the progress line. */
  #seen(s, m) {
    this.live.records += m.records - s.seen.records;
    this.live.matches += m.matches - s.seen.matches;
    s.seen = { records: m.records, matches: m.matches, next: m.next };
  }

  /**
   * Where the scan stands now, counting what workers read and have not written yet: { records,
   * matches, partitions: [{ topic, partition, read, span }] } (offsets read of each partition's span).
   */
  standing() {
    let records = 0;
    let matches = 0;
    const parts = new Map();
    for (const r of this.coverage.ranges) {
      const s = this.state.get(r.id);
      const running = s && !s.done && s.seen.next !== undefined;
      records += running ? Math.max(r.records, s.base.records + s.seen.records) : r.records;
      matches += running ? Math.max(r.matches, s.base.matches + s.seen.matches) : r.matches;
      const next = running && s.seen.next > r.next ? s.seen.next : r.next;
      const k = `${r.topic}/${r.partition}`;
      const p = parts.get(k) ?? { topic: r.topic, partition: r.partition, read: 0n, span: 0n };
      p.read += next - r.from;
      p.span += r.to - r.from;
      parts.set(k, p);
    }
    return { records, matches, partitions: [...parts.values()] };
  }

  /** Writes what the head ranges of a partition have queued, moving on as they are done. */
  async #flush(range) {
    const ids = this.order.get(partitionKey(range));
    for (const id of ids) {
      const s = this.state.get(id);
      if (this.ordered && s.done) continue;
      while (s.queue.length) {
        const { m, worker } = s.queue.shift();
        if (m.type === 'data') {
          await this.write(this.coverage.ranges[id], m.payload);
          worker.post({ type: 'ack' });
          this.#account(id, s, m);
        } else {
          this.#finish(id, s, m);
        }
      }
      if (this.ordered && !s.done) return;
    }
  }

  /** A data message written: the coverage moves with it. */
  #account(id, s, m) {
    const r = this.coverage.ranges[id];
    r.next = m.next > r.next ? m.next : r.next;
    r.records = s.base.records + m.records;
    r.matches = s.base.matches + m.matches;
  }

  /** A range's attempt ended: its coverage, aggregates and latest records taken. */
  #finish(id, s, m) {
    this.#account(id, s, m);
    s.base = { records: this.coverage.ranges[id].records, matches: this.coverage.ranges[id].matches };
    if (m.partial) this.aggregates?.merge(m.partial);
    if (m.latest) this.latest?.merge(m.latest);
    if (!m.retry) {
      this.coverage.stopped(id, m.stop, m.error);
      s.done = true;
    }
    if (m.stop === 'error' && !m.retry) this.failure ??= new KafkaClientError(m.error?.code ?? 'SCAN', m.error?.message ?? 'a range failed');
    this.progress(this);
  }
}

const partitionKey = (r) => `${r.topic}\u0000${r.partition}`;

/**
 * The order ranges are dealt in: the first range of every partition, then the second of each, ...
 * so that workers at the same time read different partitions (whose matches need no waiting).
 */
function dealOrder(ranges) {
  const index = new Map();
  const keyed = ranges.map((r) => {
    const k = partitionKey(r);
    const i = index.get(k) ?? 0;
    index.set(k, i + 1);
    return { r, i };
  });
  return keyed.sort((a, b) => a.i - b.i).map((x) => x.r);
}
