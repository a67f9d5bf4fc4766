// A consume pass: the partitions of a topic read from chosen positions, a cursor each
// (cursor.mjs), in rounds. One round asks every leader for its partitions from their cursors'
// positions. The fetcher takes a round's answers as soon as they are in, moves the cursors on by
// what the batch headers say (no decode needed), and asks for the next round at once, up to
// `ahead` rounds before the records handed out: the brokers work while this side decodes and the
// caller reads. The reader decodes each round in turn and hands its records out, a chunk per
// partition. With decode threads, each response starts decoding as soon as it is in.
//
// A round that moves no partition on is not followed at once by the next: a broker answers an
// empty Fetch after its max wait, and one that answers at once is waited for as if it had. A
// partition left where it was for STALLED_ROUNDS rounds while its broker says there is more ends
// the pass with NO_PROGRESS (about 10 s with the default max wait), naming broker and partition.

import { recordsOf } from '../api.mjs';
import { ValueDecoder } from '../values/decoder.mjs';
import { anySignal, checkSignal, onAbort, reasonOf, sleep, throwIfAborted } from './abort.mjs';
import { errorNameOf } from './connection.mjs';
import { PartitionCursor } from './cursor.mjs';
import { KafkaClientError } from './errors.mjs';
import { isRetriable, Retrier } from './retry.mjs';
import { endPosition, startPosition } from './start.mjs';

const CONSUME_OPTIONS = [
  'topic',
  'partitions',
  'from',
  'untilEnd',
  'until',
  'maxRecords',
  'isolationLevel',
  'offsetReset',
  'maxWaitMs',
  'partitionMaxBytes',
  'fetchMaxBytes',
  'decode',
  'onResponse',
  'onWait',
  'values',
  'signal',
];

/** @type {Omit<import('../index.d.ts').ConsumeOptions, 'topic'>} */
const CONSUME_DEFAULTS = {
  partitions: undefined,
  from: 'earliest',
  until: null,
  untilEnd: false,
  maxRecords: Infinity,
  isolationLevel: 'read_uncommitted',
  offsetReset: 'error',
  maxWaitMs: 500,
  partitionMaxBytes: 1024 * 1024,
  fetchMaxBytes: 50 * 1024 * 1024,
  decode: {},
  onResponse: null,
  onWait: null,
  values: null,
  signal: undefined,
};

// Rounds in a row that may leave a partition where it was while its broker says there is more.
const STALLED_ROUNDS = 20;

/**
 * The consume options, checked, with their defaults; `values` made a ValueDecoder.
 * @typedef {Omit<import('../index.d.ts').ConsumeOptions, 'values'> & { values: ValueDecoder | null }} ConsumeSettings
 * @returns {ConsumeSettings}
 */
function consumeOptions(options) {
  for (const name of Object.keys(options ?? {})) {
    if (!CONSUME_OPTIONS.includes(name))
      throw new KafkaClientError('INVALID_ARGUMENT', `unknown consume option '${name}'; valid: ${CONSUME_OPTIONS.join(', ')}`);
  }
  const o = /** @type {ConsumeSettings} */ ({ ...CONSUME_DEFAULTS });
  // an option given as undefined takes its default
  for (const [name, value] of Object.entries(options ?? {})) if (value !== undefined) o[name] = value;
  if (typeof o.topic !== 'string' || !o.topic) throw new KafkaClientError('INVALID_ARGUMENT', 'consume needs a topic');
  if (!['error', 'earliest', 'latest'].includes(o.offsetReset))
    throw new KafkaClientError('INVALID_ARGUMENT', `offsetReset must be 'error', 'earliest' or 'latest'`);
  // the records' keys and values decoded too: a ValueDecoder, or its options
  if (o.values !== null && !(o.values instanceof ValueDecoder)) {
    try {
      o.values = new ValueDecoder({ int64: o.decode.int64 ?? 'number', ...options.values });
    } catch (e) {
      throw new KafkaClientError('INVALID_ARGUMENT', e.message.replace(/^kafka-fetch-decoder: /, ''), { cause: e });
    }
  }
  return o;
}

/**
 * One pass of KafkaClient.consume. `link` is what it asks of its client: { options (the client's
 * connection options), closing (a signal close() aborts), closed(), check() (throws once closed),
 * topic(name, refresh, signal), withRetries(what, fn, signal), listOffsets(topic, query, signal)
 * (BigInts), fetchFrames(topic, partitions, request), positionsOf(answer, decodeOptions),
 * decodeAnswer(answer, decodeOptions), decodeOnThread(answer, decodeOptions) }.
 */
export class ConsumePass {
  constructor(link, options) {
    this.link = link;
    this.given = options;
    /** The options with their defaults (checked when the pass starts, as its first step). */
    this.o = null;
    /** partition -> PartitionCursor */
    this.cursors = new Map();
    this.decodeOptions = null;
    this.ahead = link.options.decodeThreads + 1;
    /** Rounds fetched and not yet handed out: { answers, positions, span } in order, or { error }. */
    this.rounds = [];
    /** Offsets those rounds move the cursors past (at least the records they hold). */
    this.pendingSpan = 0n;
    this.emitted = 0;
    this.asked = 0;
    /** How the pass's fetch rounds retry (a partition's own errors are its cursor's). */
    this.retrier = new Retrier(link.options);
    this.fetching = true;
    this.stopped = false;
    // the reader waits for a round, the fetcher for room: each for a call of wake()
    this.waiting = { reader: null, fetcher: null };
    // With decode threads, a response without compressed batches decodes faster on this thread than
    // its copy to a thread and back costs; told by the last response decoded that held batches
    // (topics rarely mix codecs, and a wrong guess costs one response).
    this.decodeHere = false;
    /** The pass's signal: the caller's and the client's closing; it ends every wait of the pass. */
    this.signal = null;
  }

  /**
   * The chunks of the pass, in order (KafkaClient.consume). The client's close() ends them quietly;
   * the caller's signal with its reason.
   */
  async *run() {
    // the options and the start are checked before any request
    this.o = consumeOptions(this.given);
    const given = checkSignal(this.o.signal, 'consume');
    throwIfAborted(given);
    this.link.check();
    const { signal, dispose } = given ? anySignal(given, this.link.closing) : { signal: this.link.closing, dispose() {} };
    this.signal = signal;
    // an abort wakes a reader waiting for a round: it then throws the reason
    const stop = onAbort(signal, () => {
      this.stopped = true;
      this.#wake('reader');
      this.#wake('fetcher');
    });
    try {
      yield* this.#chunks();
    } catch (e) {
      if (given?.aborted) throw reasonOf(given);
      if (this.link.closed()) return;
      throw e;
    } finally {
      stop();
      dispose();
    }
  }

  async *#chunks() {
    const start = startPosition(this.o.from);
    const until = endPosition(this.o.until);
    const { topic, partitions, untilEnd, isolationLevel, partitionMaxBytes, decode, onResponse } = this.o;
    // results are kept, never transient: the client decodes while the caller reads (a response
    // with legacy messages as it comes in, to learn where it ends), which would end a transient one
    this.decodeOptions = { isolationLevel, decode: { ...decode, transient: false }, raw: onResponse !== null };
    const meta = await this.link.withRetries(`Metadata ${topic}`, () => this.link.topic(topic, false, this.signal), this.signal);
    const chosen = partitions ?? [...meta.partitions.keys()].sort((a, b) => a - b);
    for (const p of chosen) {
      if (!meta.partitions.has(p))
        throw new KafkaClientError('UNKNOWN_TOPIC', `topic ${topic} has no partition ${p} (it has ${meta.partitions.size})`, { topic, partition: p });
    }
    const query = (at) => this.link.listOffsets(topic, { partitions: chosen, at, isolationLevel }, this.signal);
    const starts = await startOffsets(query, chosen, start);
    const ends = until?.time === undefined ? null : await timeOffsets(query, chosen, until.time);
    const readCommitted = isolationLevel === 'read_committed';
    for (const p of chosen) {
      this.cursors.set(
        p,
        new PartitionCursor(topic, p, {
          offset: starts.get(p),
          maxBytes: partitionMaxBytes,
          stopAtEnd: untilEnd || Boolean(until?.end),
          readCommitted,
          until: until?.offset ?? ends?.get(p) ?? null,
          untilTime: until?.time ?? null,
        }),
      );
    }
    this.#fetcher();
    try {
      while (this.emitted < this.o.maxRecords) {
        throwIfAborted(this.signal);
        while (!this.rounds.length && this.fetching && !this.signal.aborted) await this.#waitFor('reader');
        throwIfAborted(this.signal);
        if (!this.rounds.length) break;
        const round = this.rounds.shift();
        if (round.error) throw round.error;
        // room for the next round: it is asked for while this one decodes (its span still counts
        // towards a record limit until its records are counted). The await lets the fetcher write
        // that request before the decode below holds the thread.
        this.#wake('fetcher');
        await null;
        const chunks = await this.#chunksOf(round);
        this.pendingSpan -= round.span;
        this.#wake('fetcher');
        for (const chunk of handOut(chunks)) {
          // close() or an abort while the caller held the last chunk: none after it
          if (this.signal.aborted) break;
          if (this.o.values) await this.o.values.attach(chunk.records);
          yield chunk;
        }
      }
    } finally {
      // the caller stopped, or the end: the fetcher asks for nothing more
      this.stopped = true;
      this.#wake('fetcher');
    }
  }

  #waitFor(who) {
    return new Promise((resolve) => {
      this.waiting[who] = resolve;
    });
  }

  #wake(who) {
    const resolve = this.waiting[who];
    this.waiting[who] = null;
    resolve?.();
  }

  /**
   * The next round's Fetch of every partition not done yet (with decode threads, decoding as
   * answers arrive), or null; `wait` is the max wait it asks the brokers for.
   */
  #ask() {
    const live = [...this.cursors.values()].filter((c) => !c.done);
    if (!live.length) return null;
    const { topic, maxWaitMs, fetchMaxBytes, isolationLevel } = this.o;
    // A broker fills a response with the partitions in the order asked, up to its byte limit: the
    // order turns each round (as KIP-74 asks of clients), or the last partitions of a topic larger
    // than a response wait until the first are read to their end (and the pass ends NO_PROGRESS)
    const first = this.asked % live.length;
    const order = [...live.slice(first), ...live.slice(0, first)];
    // the first round asks for no wait: its answers tell where each partition ends
    const wait = this.asked++ === 0 ? 0 : maxWaitMs;
    const asked = this.link.fetchFrames(
      topic,
      order.map((c) => c.request()),
      { maxWaitMs: wait, minBytes: 1, maxBytes: fetchMaxBytes, isolationLevel, signal: this.signal },
    );
    return { wait, answers: this.#decodingAhead(asked) };
  }

  /** With decode threads, each answer's decode starts as soon as it is in. */
  #decodingAhead(asked) {
    if (!this.link.options.decodeThreads) return asked;
    return asked.then((answers) => {
      for (const answer of answers) {
        // positions first: the frame may move to the thread
        answer.positions = this.link.positionsOf(answer, this.decodeOptions);
        if (answer.positions.decoded || this.decodeHere) continue;
        answer.decoding = this.link.decodeOnThread(answer, this.decodeOptions);
        answer.decoding.catch(() => {}); // handled when read; the caller may stop before that
      }
      return answers;
    });
  }

  /** Fetches rounds ahead of the reader until every cursor is done, the caller stops, or an error. */
  async #fetcher() {
    try {
      for (;;) {
        // with a record limit, a round is asked for only if what is fetched may fall short of it
        while (!this.stopped && (this.rounds.length >= this.ahead || this.emitted + Number(this.pendingSpan) >= this.o.maxRecords)) {
          if (!this.rounds.length) return;
          await this.#waitFor('fetcher');
        }
        if (this.stopped) return;
        const next = this.#ask();
        if (next === null) return;
        const askedAt = Date.now();
        let round;
        try {
          const answers = await next.answers;
          if (this.stopped) return;
          round = await this.#take(answers);
          this.retrier.succeeded();
        } catch (e) {
          if (this.stopped) return;
          await this.#recover(e);
          continue;
        }
        this.rounds.push(round);
        this.pendingSpan += round.span;
        this.#wake('reader');
        // nothing moved on: say which partitions the pass waits on, and wait out the max wait a
        // broker that answered at once did not
        if (!round.progressed) this.#waiting();
        const early = next.wait - (Date.now() - askedAt);
        if (!round.progressed && early > 0) await sleep(early, this.signal);
      }
    } catch (e) {
      this.rounds.push({ error: e });
    } finally {
      this.fetching = false;
      this.#wake('reader');
    }
  }

  /**
   * Moves the cursors on by a round's answers (their batch headers); the round as the reader takes
   * it. A cursor left where it was for too long ends the pass (NO_PROGRESS).
   */
  async #take(answers) {
    const positions = answers.map((answer) => answer.positions ?? this.link.positionsOf(answer, this.decodeOptions));
    let span = 0n;
    let progressed = false;
    const answered = new Set();
    for (const [k, { partitions }] of positions.entries()) {
      for (const p of partitions) {
        const cursor = this.cursors.get(p.partition);
        if (!cursor) continue;
        answered.add(cursor);
        if (p.errorCode === 0) {
          span += cursor.advance(p, this.link.options.maxFrameBytes);
          progressed ||= cursor.progressed;
          continue;
        }
        const broker = answers[k].connection.name;
        const next = cursor.onError({ errorCode: p.errorCode, errorName: p.errorName ?? errorNameOf(p.errorCode) }, broker, {
          ...this.o,
          ...this.link.options,
        });
        if (next.reset) {
          const offsets = await this.link.listOffsets(
            this.o.topic,
            { partitions: [p.partition], at: next.reset, isolationLevel: this.o.isolationLevel },
            this.signal,
          );
          cursor.offset = offsets.get(p.partition).offset;
        } else {
          await sleep(next.retryAfterMs, this.signal);
          await this.link.topic(this.o.topic, true, this.signal).catch(() => {});
        }
      }
    }
    for (const [k, answer] of answers.entries()) {
      for (const asked of answer.request.partitions) {
        const cursor = this.cursors.get(asked.partition);
        if (!cursor || cursor.done) continue;
        if (!answered.has(cursor)) cursor.unanswered();
        cursor.checkProgress(answers[k].connection.name, STALLED_ROUNDS);
      }
    }
    return { answers, positions, span, progressed };
  }

  /** onWait({ topic, partitions }) with the partitions at the broker's end and not at their own, if any. */
  #waiting() {
    const partitions = [...this.cursors.values()].filter((c) => c.waiting).map((c) => c.partition);
    if (partitions.length) this.o.onWait?.({ topic: this.o.topic, partitions });
  }

  /** After a failed fetch round: back off and learn the metadata again, or give up with the error (retry.mjs). */
  async #recover(error) {
    await this.retrier.failed(error, this.signal);
    try {
      await this.link.topic(this.o.topic, true, this.signal);
    } catch (e) {
      if (!isRetriable(e)) throw e;
    }
  }

  /**
   * A round's records, cut into one chunk per partition (made as handOut hands it out). The round's
   * answers are dropped from it here, so that what stays referenced while its chunks are handed out
   * is only those chunks.
   */
  async #chunksOf(round) {
    const { answers, positions } = round;
    round.answers = round.positions = null;
    const { topic, onResponse } = this.o;
    const chunks = [];
    for (const [k, answer] of answers.entries()) {
      const decoded = positions[k].decoded ?? (answer.decoding ? await answer.decoding : this.link.decodeAnswer(answer, this.decodeOptions));
      const { broker, brokerId, apiVersion, frame, request, response } = decoded;
      if (this.link.options.decodeThreads) this.decodeHere = onlyUncompressed(response) ?? this.decodeHere;
      // how many of each partition's records the pass hands out (the rest lie past its end or limit)
      const taken = new Map();
      for (const t of response.topics) {
        for (const p of t.partitions) {
          const cursor = this.cursors.get(p.partition);
          if (!cursor || p.errorCode !== 0) continue;
          // Records are counted and cut here without being built: a caller that only wants the
          // response (onResponse, toTransferable) never pays for record objects.
          const take = Math.min(cursor.recordsBefore(p, p.recordCount), this.o.maxRecords - this.emitted);
          taken.set(p.partition, take);
          if (take === 0) continue;
          this.emitted += take;
          chunks.push({
            set: p,
            fields: {
              topic,
              partition: p.partition,
              recordCount: take,
              broker,
              brokerId,
              highWatermark: p.highWatermark,
              lastStableOffset: p.lastStableOffset,
              logStartOffset: p.logStartOffset,
              nextOffset: p.nextOffset,
            },
          });
        }
      }
      // after this response's positions are read: the callback may move the result away
      onResponse?.({ broker, apiVersion, frame, request, response, taken });
    }
    return chunks;
  }
}

/**
 * Each partition's first offset, from a startPosition(); `query(at)` looks the partitions' offsets
 * up (BigInts).
 */
async function startOffsets(query, partitions, start) {
  if (start.at) {
    const offsets = await query(start.at);
    return new Map(partitions.map((p) => [p, offsets.get(p).offset]));
  }
  if (start.offset !== undefined) return new Map(partitions.map((p) => [p, start.offset]));
  if (start.last !== undefined) {
    // the last N offsets, not before the first one the partition still has
    const [earliest, latest] = [await query('earliest'), await query('latest')];
    return new Map(
      partitions.map((p) => {
        const from = latest.get(p).offset - start.last;
        return [p, from > earliest.get(p).offset ? from : earliest.get(p).offset];
      }),
    );
  }
  // a time: the first offset at or after it; none (a time after the last record) means the end
  const byTime = await timeOffsets(query, partitions, start.time);
  const latest = await query('latest');
  return new Map(partitions.map((p) => [p, byTime.get(p) ?? latest.get(p).offset]));
}

/** The first offset of each partition stamped at or after `time`, or null where the broker found none. */
async function timeOffsets(query, partitions, time) {
  const byTime = await query({ time });
  // none found is offset -1 with timestamp -1 (some brokers answer offset 0 with timestamp -1)
  const found = ({ offset, timestamp }) => offset >= 0n && timestamp >= 0n;
  return new Map(partitions.map((p) => [p, found(byTime.get(p)) ? byTime.get(p).offset : null]));
}

/**
 * Yields the chunks of a round, each made as it is handed out and forgotten here, so that the
 * records of a chunk the caller has read (and not kept) can be collected young.
 */
function* handOut(chunks) {
  for (let i = 0; i < chunks.length; i++) {
    const { set, fields } = chunks[i];
    chunks[i] = null;
    const chunk = makeChunk(fields, set);
    yield chunk;
    // the caller has moved on: the chunk lets its records go (read again, they are built anew),
    // keeping only their decoded keys and values (consume's values, or the caller's own attach)
    const c = chunk[CHUNK];
    c.decoded = decodedSides(c.records);
    c.records = undefined;
  }
}

/** The decodedKey and decodedValue of `records`, or null when none has them (or they were never built). */
function decodedSides(records) {
  if (!records?.some((r) => r.decodedKey !== undefined || r.decodedValue !== undefined)) return null;
  return { keys: records.map((r) => r.decodedKey), values: records.map((r) => r.decodedValue) };
}

// A chunk's records are built on its first `records` read and kept by the chunk until the caller
// asks for the next one; not for longer, and not by the record set. Young records hung from an
// old object are copied by every young collection until a full one, and a chunk stays referenced
// from old objects after its turn: the suspended generators that handed it out (ours, and the
// caller's `for await`). So is the record set, made when its round was decoded. Measured on an
// lz4 topic from a local broker: a pass spent 200-260 ms of 850-950 collecting; 35-80 of 560-700
// with this (kept by the chunk for good: 110-170 ms).
const CHUNK = Symbol('kafka-fetch-decoder.chunk');
const CHUNK_RECORDS = {
  enumerable: true,
  configurable: true,
  get() {
    const c = this[CHUNK];
    if (c.records === undefined) {
      c.records = recordsOf(c.set, this.recordCount);
      // built again after the chunk's turn: equal records, their decoded sides included
      if (c.decoded) {
        c.records.forEach((r, i) => {
          if (c.decoded.keys[i] !== undefined) r.decodedKey = c.decoded.keys[i];
          if (c.decoded.values[i] !== undefined) r.decodedValue = c.decoded.values[i];
        });
      }
    }
    return c.records;
  },
};

/** A consume chunk's record set and how many of its records are the chunk's, or null for anything else. */
export function chunkSource(value) {
  const c = value !== null && typeof value === 'object' ? value[CHUNK] : undefined;
  return c ? { set: c.set, count: value.recordCount } : null;
}

function makeChunk(fields, set) {
  const chunk = { ...fields };
  Object.defineProperty(chunk, CHUNK, { value: { set, records: undefined, decoded: null } });
  return Object.defineProperty(chunk, 'records', CHUNK_RECORDS);
}

/** Whether a response's batches are all uncompressed (null: it has none). */
function onlyUncompressed(response) {
  let batches = 0;
  for (const t of response.topics) {
    for (const p of t.partitions) {
      for (const b of p.batches) {
        if (b.compression !== 'none') return false;
        batches++;
      }
    }
  }
  return batches ? true : null;
}
