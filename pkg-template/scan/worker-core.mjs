// One scan worker: a thread (Node's worker_threads, or a Web Worker in the page) with a client and
// a decoder of its own. It reads the ranges it is given, one at a time, as a consume pass from the
// range's next offset to its end; filters, aggregates and formats there; and sends back only what
// the scan asks for: matches in the session's output form, partial aggregates, and how far each
// range got. The thread's messages:
//
//   in:  { type: 'init', session }        the scan's question (the session kind makes it, below)
//        { type: 'range', range }         { id, topic, partition, next, to, untilTime }: read [next, to),
//                                         ending at the first record stamped at or after untilTime
//        { type: 'ack' }                  one data message of ours was written (flow control)
//        { type: 'granted', count }       the answer to our 'reserve' (a limit's share)
//        { type: 'stop', reason }         end the range under way where it is ('limit' or 'interrupted')
//   out: { type: 'ready' } | { type: 'fatal', error }
//        { type: 'data', id, payload, next, records, matches }   matches of range `id`, sent in order
//        { type: 'progress', id, next, records, matches }        now and then, for a progress line
//        { type: 'reserve', count }       asks for `count` matches of the scan's limit
//        { type: 'done', id, next, records, matches, stop, error, partial, latest, file }
// `next`, `records` and `matches` are the range's in this run so far: [start, next) read
// completely, `records` read, `matches` of them sent (or kept for the file, or aggregated).
//
// A session is { client, consume (consume options: decode, values, isolationLevel, sizes), limit
// (a scan-wide count of matches, or null), match(topic, partition, records) -> records, output
// (below), aggregates() (a fresh makeAggregates() per range, or null), latest() (a fresh
// LatestPerKey per range, or null), line(topic, partition, record) (latest's output form) }.
// `output` is { kind: 'stream', encode(topic, partition, records, chunk) -> { payload, transfer } } (sent
// as it is read, in order), { kind: 'file', open(range) -> { add(topic, partition, records, chunk),
// finish(start, end) -> file info } } (written when the range ends), or { kind: 'none' };
// `onResponse(response)`, when there, sees each decoded fetch response before its chunks.

// Data messages in flight at once: the reading goes on while the caller writes, but not further
// ahead than this (the caller acknowledges each one once written).
const IN_FLIGHT = 16;
// How often a range's reading says how far it got, when it sends no data.
const PROGRESS_MS = 250;

export class ScanWorker {
  /** `post(message, transfer)` sends to the caller; `makeSession(spec)` makes a session (async). */
  constructor(post, makeSession) {
    this.post = post;
    this.makeSession = makeSession;
    this.session = null;
    this.queue = Promise.resolve();
    this.inFlight = 0;
    this.waiting = { credit: null, grant: null };
    this.current = null; // the AbortController of the range under way
    this.stopping = null; // why the scan stops early: 'limit' or 'interrupted'
    this.lastProgress = 0;
  }

  /** One message from the caller. */
  receive(msg) {
    switch (msg.type) {
      case 'init':
        this.queue = this.queue
          .then(async () => {
            this.session = await this.makeSession(msg.session);
            this.post({ type: 'ready' });
          })
          .catch((e) => this.post({ type: 'fatal', error: errorOf(e) }));
        break;
      case 'range':
        this.queue = this.queue.then(() => this.#read(msg.range)).catch((e) => this.post({ type: 'fatal', error: errorOf(e) }));
        break;
      case 'ack':
        this.inFlight--;
        this.#wake('credit');
        break;
      case 'granted':
        this.#wake('grant', msg.count);
        break;
      case 'stop':
        this.stopping = msg.reason ?? 'interrupted';
        this.current?.abort();
        this.#wake('grant', 0);
        break;
      default:
    }
  }

  #wait(what) {
    return new Promise((resolve) => {
      this.waiting[what] = resolve;
    });
  }

  #wake(what, value) {
    const resolve = this.waiting[what];
    this.waiting[what] = null;
    resolve?.(value);
  }

  /** Reads range `range` ({ id, topic, partition, next, to } with BigInt offsets) and says how it ended. */
  async #read(range) {
    const s = this.session;
    const { id, topic, partition, to } = range;
    const start = range.next;
    const state = { next: start, records: 0, matches: 0 };
    const aggregates = s.aggregates();
    const latest = s.latest();
    const file = s.output.kind === 'file' ? s.output.open(range) : null;
    let stop = 'end';
    let error = null;
    if (this.stopping) stop = this.stopping;
    else if (start < to) {
      const controller = new AbortController();
      this.current = controller;
      /** @type {bigint | null} */
      let brokerEnd = null;
      const pass = s.client.consume({
        ...s.consume,
        topic,
        partitions: [partition],
        from: start,
        until: to,
        untilEnd: true,
        signal: controller.signal,
        // where the broker said the partition ends when the range began: a range past it (a log
        // truncated since the plan) ends there
        onResponse: ({ response }) => {
          if (brokerEnd === null) {
            for (const t of response.topics)
              for (const p of t.partitions) if (p.partition === partition && p.errorCode === 0) brokerEnd = endOf(p, s.consume.isolationLevel);
          }
          // a session that hands out whole responses sees each before its chunks
          s.onResponse?.(response);
        },
      });
      try {
        for await (const chunk of pass) {
          const ended = await this.#take(s, range, chunk, state, { aggregates, latest, file });
          if (ended) {
            stop = this.stopping ?? ended;
            break;
          }
        }
        if (stop === 'end') {
          if (this.stopping) stop = this.stopping;
          else state.next = brokerEnd !== null && brokerEnd < to ? (brokerEnd > state.next ? brokerEnd : state.next) : to;
        }
      } catch (e) {
        stop = this.stopping ?? 'error';
        if (stop === 'error') error = errorOf(e);
      } finally {
        this.current = null;
      }
    }
    // the file holds what was read, also when the range stopped early (a retry continues at next)
    let written = null;
    if (file) {
      try {
        written = await file.finish(start, state.next);
      } catch (e) {
        [stop, error] = ['error', errorOf(e)];
        Object.assign(state, { next: start, records: 0, matches: 0 });
      }
    }
    this.post({
      type: 'done',
      id,
      next: state.next,
      records: state.records,
      matches: state.matches,
      stop,
      error,
      partial: aggregates?.partial() ?? null,
      latest: latest?.partial() ?? null,
      file: written,
    });
  }

  /**
   * Takes one consume chunk: its matches (a limit's share of them) sent or kept for the file,
   * aggregated and kept for latest, and `state` moved on past it. Resolves with why the range stops
   * here ('time': a record stamped at or after the range's untilTime; 'limit'), or null.
   */
  async #take(s, range, chunk, state, { aggregates, latest, file }) {
    const { topic, partition } = chunk;
    const { id, to, untilTime } = range;
    let records = chunk.records;
    let next = BigInt(chunk.nextOffset);
    if (next > to) next = to;
    let ended = null;
    if (untilTime !== null && untilTime !== undefined) {
      // as consume's until: the first record stamped at or after the time ends the partition
      const at = records.findIndex((r) => Number(r.timestamp) >= untilTime);
      if (at >= 0) {
        next = BigInt(records[at].offset);
        records = records.slice(0, at);
        ended = 'time';
      }
    }
    let matched = s.match(topic, partition, records);
    let read = records.length;
    if (s.limit !== null && matched.length) {
      const granted = await this.#reserve(matched.length);
      if (granted < matched.length) {
        // [next, the first match not granted) is read completely: the range stops before it
        const cut = matched[granted];
        next = BigInt(cut.offset);
        read = records.indexOf(cut);
        matched = matched.slice(0, granted);
        ended = 'limit';
      }
    }
    if (aggregates) for (const r of matched) aggregates.add(topic, partition, r);
    if (latest) for (const r of matched) latest.add(topic, partition, r, s.line(topic, partition, r));
    if (file && matched.length) file.add(topic, partition, matched, chunk);
    state.records += read;
    state.matches += matched.length;
    if (next > state.next) state.next = next;
    if (s.output.kind === 'stream' && matched.length) {
      // made last: an output may move the chunk's bytes to the caller (the page's does)
      const message = s.output.encode(topic, partition, matched, chunk);
      // the caller acknowledges what it wrote, also while the scan stops
      while (this.inFlight >= IN_FLIGHT) await this.#wait('credit');
      this.inFlight++;
      this.post({ type: 'data', id, payload: message.payload, ...state }, message.transfer);
      return ended ?? this.stopping;
    }
    if (this.stopping) return this.stopping;
    if (Date.now() - this.lastProgress > PROGRESS_MS) {
      this.lastProgress = Date.now();
      this.post({ type: 'progress', id, ...state });
    }
    return ended;
  }

  /** A share of the scan's limit: up to `count` matches. */
  async #reserve(count) {
    if (this.stopping) return 0;
    const granted = this.#wait('grant');
    this.post({ type: 'reserve', count });
    return granted;
  }
}

/** The end offset a partition's Fetch answer reports: the high watermark, or the last stable offset under read_committed. */
function endOf(p, isolationLevel) {
  const lso = p.lastStableOffset === null ? -1n : BigInt(p.lastStableOffset);
  return isolationLevel === 'read_committed' && lso >= 0n ? lso : BigInt(p.highWatermark);
}

/** An error as a message carries it: its fields, enough to throw it again on the other side. */
export function errorOf(e) {
  return {
    name: e?.name ?? 'Error',
    code: e?.code ?? null,
    message: String(e?.message ?? e),
    broker: e?.broker ?? null,
    topic: e?.topic ?? null,
    partition: e?.partition ?? null,
  };
}
