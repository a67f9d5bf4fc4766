// Module worker: runs the wasm decoder, and for live mode the Kafka client, off the page's thread. Every
// result goes to the page in the package's transferable form (toTransferable: columns and byte buffers
// transferred, no record objects) with the per-record columns of chunks.js's prepareChunk.
//
// The messages, both ways, are typed in shared/decode-protocol.js (…Request in, …Answer out):
// files ('init', 'decode', 'probe'), a live tail of one topic at a time ('live-*': `id` names it),
// a scan ('scan-*', worker-scan.js) and the cluster's reads beside a tail (groups, configs,
// brokers, offsets of chosen topics: 'cluster-*', worker-cluster.js).
// A tail posts at most one 'live-records' every POST_INTERVAL_MS and none while the page has not
// acknowledged the last one, so the page takes records in small steps however fast they come; what
// waits meanwhile is capped like the page's store (the oldest fetch responses are dropped first).
// `values`: the page's value settings (worker-values.js), or null; with them each result carries
// the table's text of every decoded key and value.

import { columnsOf, prepareChunk } from '../../shared/chunks.js';
import { clusterRequest } from './worker-cluster.js';
import { packTopics } from '../../shared/topic-listing.js';
import { attachPreviews, valueDecoderFor } from './worker-values.js';
import { PageScan } from './worker-scan.js';

/**
 * @typedef {import('../../../pkg/web.mjs').Int64} Int64
 * @typedef {import('../../../pkg/web.mjs').DecodeOptions} DecodeOptions
 * @typedef {import('../../../pkg/web.mjs').FetchOptions} FetchOptions
 * @typedef {import('../../shared/chunks.js').Package} Package
 * @typedef {import('../../shared/chunks.js').ChunkData} ChunkData
 * @typedef {import('../../shared/chunks.js').Columns} Columns
 * @typedef {import('../../shared/decode-protocol.js').PageDecodeOptions} PageDecodeOptions
 * @typedef {import('../../shared/decode-protocol.js').WorkerError} WorkerError
 * @typedef {import('../../shared/decode-protocol.js').WorkerRequest} WorkerRequest
 * @typedef {import('../../shared/decode-protocol.js').DecodeRequest} DecodeRequest
 * @typedef {import('../../shared/decode-protocol.js').LiveStartRequest} LiveStartRequest
 * @typedef {import('../../shared/decode-protocol.js').ClusterRequest} ClusterRequest
 * @typedef {import('../../shared/decode-protocol.js').ReadyAnswer} ReadyAnswer
 * @typedef {import('../../shared/decode-protocol.js').StateAnswer} StateAnswer
 * @typedef {import('../../shared/decode-protocol.js').ResultAnswer} ResultAnswer
 * @typedef {import('../../shared/decode-protocol.js').ProbeAnswer} ProbeAnswer
 * @typedef {import('../../shared/decode-protocol.js').ErrorAnswer} ErrorAnswer
 * @typedef {import('../../shared/decode-protocol.js').LiveTopicsAnswer} LiveTopicsAnswer
 * @typedef {import('../../shared/decode-protocol.js').LiveStartedAnswer} LiveStartedAnswer
 * @typedef {import('../../shared/decode-protocol.js').LiveRecordsAnswer} LiveRecordsAnswer
 * @typedef {import('../../shared/decode-protocol.js').LiveStateAnswer} LiveStateAnswer
 * @typedef {import('../../shared/decode-protocol.js').ClusterAnswer} ClusterAnswer
 */

const POST_INTERVAL_MS = 100;
// Retries of a failed request before the tail stops with the error (the client's default, 10 with a
// growing backoff, would keep the page silent for half a minute when a broker is gone).
const LIVE_RETRIES = 3;

/** @type {Promise<Package> | null} */
let decoder = null;
// The last input, kept so that changing an option re-decodes without reading the file again.
/** @type {Uint8Array | null} */
let input = null;
/** @type {Tail | null} */
let tail = null;
/** @type {PageScan | null} */
let scan = null;

// Messages are handled concurrently (the handler is async), so the first load is shared.
function loadDecoder() {
  decoder ??= import(new URL('../../../pkg/web.mjs', import.meta.url).href).then(async (mod) => {
    await (mod.init ?? mod.default)();
    return mod;
  });
  return decoder;
}

/** @param {MessageEvent<WorkerRequest>} event */
self.onmessage = async ({ data: msg }) => {
  try {
    const api = await loadDecoder();
    switch (msg.type) {
      case 'init':
        self.postMessage(/** @type {ReadyAnswer} */ ({ type: 'ready', protocol: api.protocolInfo() }));
        break;
      case 'decode': {
        if (msg.buffer) input = new Uint8Array(msg.buffer, 0, msg.length);
        const { data, transfer, cols } = decodeInput(api, msg);
        const values = valueDecoderFor(api, msg.values);
        if (values) {
          self.postMessage(/** @type {StateAnswer} */ ({ type: 'state', id: msg.id, phase: 'values' }));
          await attachPreviews(values, cols, data);
        }
        self.postMessage(/** @type {ResultAnswer} */ ({ type: 'result', id: msg.id, data }), transfer);
        break;
      }
      case 'probe':
        self.postMessage(/** @type {ProbeAnswer} */ ({ type: 'probe', id: msg.id, versions: probeVersions(api, msg.header) }));
        break;
      case 'live-topics': {
        const { brokers, topics } = await listTopics(api, msg.relay);
        const { listing, transfer } = packTopics(topics);
        self.postMessage(/** @type {LiveTopicsAnswer} */ ({ type: 'live-topics', id: msg.id, brokers, listing }), transfer);
        break;
      }
      case 'live-start':
        tail?.stop();
        tail = new Tail(api, msg);
        await tail.run();
        break;
      case 'scan-start':
        scan?.control('scan-stop');
        scan = new PageScan(api, msg, (m, transfer) => self.postMessage(m, transfer));
        await scan.run();
        break;
      default:
        if (msg.type.startsWith('cluster-')) {
          // only the cluster's requests are named so
          self.postMessage(
            /** @type {ClusterAnswer} */ ({ type: msg.type, id: msg.id, result: await clusterRequest(api, /** @type {ClusterRequest} */ (msg)) }),
          );
          break;
        }
        if (tail?.id === msg.id) tail.control(msg.type);
        if (scan?.id === msg.id) scan.control(msg.type);
    }
  } catch (err) {
    self.postMessage(/** @type {ErrorAnswer} */ ({ type: 'error', id: msg.id, error: describeError(err) }));
  }
};

// KafkaDecodeError's message already names the topic, partition and batch where it knows them;
// KafkaClientError's names the broker, and the relay's reason when the relay refused.
/**
 * @param {any} err whatever was thrown: the package's errors, an Error, or any value
 * @returns {WorkerError}
 */
function describeError(err) {
  return {
    code: err?.code ?? null,
    offset: err?.offset ?? null,
    broker: err?.broker ?? null,
    errorName: err?.errorName ?? null,
    hint: err?.hint ?? null,
    message: String(err?.message ?? err),
  };
}

/**
 * The package's decode options of the page's: a frame's with its api version and header.
 * @template {'frame' | 'recordset' | 'live'} K
 * @param {K} kind
 * @param {PageDecodeOptions} options
 * @param {'number' | 'bigint'} int64
 * @returns {K extends 'frame' ? FetchOptions : DecodeOptions}
 */
function decodeOptions(kind, options, int64) {
  /** @type {DecodeOptions & Partial<Pick<FetchOptions, 'apiVersion' | 'header'>>} */
  const out = {
    isolationLevel: options.isolationLevel,
    crc: options.crc,
    int64,
    // Always decoded so the page can show them and find abort markers; hiding them is a page filter.
    includeControlRecords: true,
    // An inspection page shows what decodes and the error where it happened, not one error.
    onError: 'partition',
  };
  if (kind === 'frame') {
    out.apiVersion = options.apiVersion;
    out.header = options.header;
  }
  if (options.maxDecompressedBytes) out.maxDecompressedBytes = options.maxDecompressedBytes;
  return /** @type {K extends 'frame' ? FetchOptions : DecodeOptions} */ (out);
}

/**
 * Decodes with 64-bit values as numbers, or as BigInts when one is beyond 2^53.
 * @template R
 * @param {(int64: 'number' | 'bigint') => R} decode
 * @returns {{ result: R, int64: 'number' | 'bigint' }}
 */
function decodeExact(decode) {
  try {
    return { result: decode('number'), int64: 'number' };
  } catch (err) {
    // The decoder refuses to round beyond 2^53 (RangeError): decode again losslessly.
    if (!(err instanceof RangeError)) throw err;
    return { result: decode('bigint'), int64: 'bigint' };
  }
}

/**
 * The result in transferable form, with the page's per-record columns; partitions numbered by `partIndex`.
 * @param {Package} api
 * @param {import('../../../pkg/web.mjs').FetchResponse<Int64> | import('../../../pkg/web.mjs').RecordSet<Int64>} result
 * @param {Parameters<typeof prepareChunk>[2]} partIndex
 * @param {Map<number, number> | null} [limits] of each partition, how many of its first records the page takes
 * @returns {{ data: ChunkData, transfer: ArrayBuffer[], cols: Columns }}
 */
function forPage(api, result, partIndex, limits = null) {
  const { data, transfer } = api.toTransferable(result);
  const cols = columnsOf(api, data);
  transfer.push(...prepareChunk(cols, data, partIndex, limits));
  return { data, transfer, cols };
}

/**
 * @param {Package} api
 * @param {DecodeRequest} msg
 */
function decodeInput(api, msg) {
  if (!input) throw new Error('nothing to decode: open a file first');
  const { kind, options, id } = msg;
  self.postMessage(/** @type {StateAnswer} */ ({ type: 'state', id, phase: 'decoding', total: input.length }));
  const started = performance.now();
  const { result, int64 } = decodeExact((int64) =>
    kind === 'frame' ? api.decodeFetchResponse(input, decodeOptions(kind, options, int64)) : api.decodeRecordSet(input, decodeOptions(kind, options, int64)),
  );
  const decodeMs = performance.now() - started;
  let partitions = 0; // in response order
  const { data, transfer, cols } = forPage(api, result, () => partitions++);
  data.stats = { decodeMs, collectMs: performance.now() - started - decodeMs, int64, inputBytes: input.length };
  return { data, transfer, cols };
}

/**
 * Which fetch api versions decode the current input without an error.
 * @param {Package} api
 * @param {boolean} header
 */
function probeVersions(api, header) {
  if (!input) return [];
  const { min, max } = api.protocolInfo().fetchResponseVersions;
  const versions = Array.from({ length: max - min + 1 }, (_, i) => min + i);
  return versions.filter((apiVersion) => {
    try {
      api.decodeFetchResponse(input, { apiVersion, header, crc: 'skip', includeControlRecords: true, int64: 'bigint' });
      return true;
    } catch {
      return false;
    }
  });
}

// ---- live -----------------------------------------------------------------------------------------

// Past this many topics the listing asks for no offsets: the side list asks for those of the rows
// in view ('cluster-offsets'), instead of two ListOffsets per topic of the whole cluster at once.
const OFFSETS_UP_TO = 1000;

/**
 * Every topic with its partitions and, in a cluster of up to OFFSETS_UP_TO topics, their earliest and latest offsets.
 * @param {Package} api
 * @param {string} relay
 */
async function listTopics(api, relay) {
  const client = new api.KafkaClient({ relay, retries: 1 });
  try {
    const md = await client.metadata();
    const withOffsets = md.topics.length <= OFFSETS_UP_TO;
    const topics = await Promise.all(
      md.topics
        .filter((t) => t.topic !== null)
        .map(async (t) => {
          const partitions = t.partitions.map((p) => ({
            partition: p.partition,
            leader: p.leader,
            errorName: p.errorCode ? p.errorName : null,
            earliest: /** @type {bigint | null} */ (null),
            latest: /** @type {bigint | null} */ (null),
          }));
          let error = t.errorCode ? t.errorName : null;
          if (!error && partitions.length && withOffsets) {
            try {
              const [earliest, latest] = await Promise.all(['earliest', 'latest'].map((at) => client.listOffsets(t.topic, { at, int64: 'bigint' })));
              for (const p of partitions) {
                p.earliest = earliest.get(p.partition)?.offset ?? null;
                p.latest = latest.get(p.partition)?.offset ?? null;
              }
            } catch (err) {
              error = err.message; // one topic without offsets does not hide the others
            }
          }
          return { topic: t.topic, isInternal: t.isInternal, error, partitions };
        }),
    );
    topics.sort((a, b) => a.topic.localeCompare(b.topic));
    return { brokers: md.brokers.map((b) => `${b.host}:${b.port}`), topics };
  } finally {
    client.close();
  }
}

/**
 * One live tail: the package's client consumes the topic, decoding each fetch response once with
 * the page's options, and hands the result to onResponse, from where it moves to the page in
 * transferable form (no record object is built here).
 */
class Tail {
  /**
   * @param {Package} api
   * @param {LiveStartRequest} msg
   */
  constructor(api, msg) {
    this.api = api;
    this.id = msg.id;
    this.msg = msg;
    this.client = new api.KafkaClient({ relay: msg.relay, retries: LIVE_RETRIES });
    this.values = valueDecoderFor(api, msg.values);
    /** @type {(ReturnType<typeof forPage> & { count: number, counts: Record<string, number>, ready: boolean })[]} */
    this.pending = []; // { data, transfer, count, ready } not yet posted, in order; ready once its values are decoded
    this.pendingCount = 0;
    this.dropped = 0; // records dropped here while the page was behind
    /** @type {Record<string, number>} */
    this.droppedBy = {}; // the same, per partition
    this.acknowledged = true;
    this.lastPost = 0;
    this.timer = 0;
    this.fetching = false; // a first fetch response has come
    this.paused = false;
    /** @type {((value: unknown) => void) | null} */
    this.unpause = null; // resolves the wait of a paused tail
    this.stopped = false;
  }

  async run() {
    const { topic, from, until, options } = this.msg;
    try {
      const md = await this.client.metadata([topic]);
      const t = md.topics.find((x) => x.topic === topic);
      if (!t || t.errorCode) {
        throw Object.assign(new Error(`topic ${topic} does not exist: ${t ? t.errorName : 'not in the metadata'} (broker ${md.broker})`), {
          code: 'UNKNOWN_TOPIC',
        });
      }
      const partitions = this.msg.partitions ?? t.partitions.map((p) => p.partition);
      const missing = partitions.filter((p) => !t.partitions.some((x) => x.partition === p));
      if (missing.length) {
        throw Object.assign(new Error(`topic ${topic} has no partition ${missing.join(', ')} (it has ${t.partitions.length})`), { code: 'UNKNOWN_TOPIC' });
      }
      const partIndex = new Map(partitions.map((p, i) => [p, i]));
      self.postMessage(/** @type {LiveStartedAnswer} */ ({ type: 'live-started', id: this.id, topic, partitions }));
      const consumer = this.client.consume({
        topic,
        partitions,
        from,
        isolationLevel: options.isolationLevel,
        untilEnd: until === 'end',
        until: until && until !== 'end' ? until : undefined,
        // The page's decode options, with 64-bit values as BigInts (exact whatever comes; the
        // iterator would stop at a value beyond 2^53 as a number) and no lenient mode: a response
        // that fails to decode is an error the page shows, and the tail stops.
        decode: { ...decodeOptions('live', options, 'bigint'), onError: 'throw' },
        onResponse: ({ response, taken }) => this.received(response, partIndex, taken),
      });
      while (!this.stopped) {
        if (this.paused)
          await new Promise((resolve) => {
            this.unpause = resolve;
          });
        if (this.stopped) break;
        if ((await consumer.next()).done) {
          await this.finish();
          break;
        }
      }
    } catch (err) {
      if (this.stopped) return; // closing the client fails what was in flight
      this.stop();
      throw err;
    }
  }

  /**
   * A fetch response decoded by the client, queued for the page (of each partition, the records the pass takes).
   * @param {import('../../../pkg/web.mjs').FetchResponse<Int64>} result
   * @param {Map<number, number>} partIndex the page's index of each partition
   * @param {Map<number, number>} taken
   */
  received(result, partIndex, taken) {
    if (this.stopped) return;
    if (!this.fetching) {
      // the first answer: the relay and the brokers are there
      this.fetching = true;
      if (!this.paused) self.postMessage(/** @type {LiveStateAnswer} */ ({ type: 'live-state', id: this.id, phase: 'tailing' }));
    }
    /** @type {Record<string, number>} */
    const counts = {};
    for (const t of result.topics) {
      for (const p of t.partitions) {
        const n = Math.min(p.recordCount, taken?.get(p.partition) ?? Infinity);
        if (n) counts[p.partition] = (counts[p.partition] ?? 0) + n;
      }
    }
    const count = Object.values(counts).reduce((a, b) => a + b, 0);
    if (!count) return; // a long poll that ended empty
    const entry = { ...forPage(this.api, result, (_, partition) => partIndex.get(partition), taken), count, counts, ready: !this.values };
    this.pending.push(entry);
    this.pendingCount += count;
    if (this.values) {
      attachPreviews(this.values, entry.cols, entry.data).then(() => {
        entry.ready = true;
        this.post();
      });
    }
    // Capped like the page: what the page could not take in yet gives way to newer records.
    while (this.pendingCount - this.pending[0].count >= this.msg.cap) {
      const oldest = this.pending.shift();
      this.pendingCount -= oldest.count;
      this.dropped += oldest.count;
      for (const [p, n] of Object.entries(oldest.counts)) this.droppedBy[p] = (this.droppedBy[p] ?? 0) + n;
    }
    this.post();
  }

  /** Posts what is pending when the page is ready for it and the interval has passed. */
  post() {
    if (this.stopped || this.paused || !this.acknowledged || !this.pending[0]?.ready || this.timer) return;
    const wait = this.lastPost + POST_INTERVAL_MS - performance.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = 0;
        this.post();
      }, wait);
      return;
    }
    // in order: up to the first whose values are still being decoded
    const waiting = this.pending.findIndex((c) => !c.ready);
    const chunks = this.pending.splice(0, waiting < 0 ? this.pending.length : waiting);
    self.postMessage(
      /** @type {LiveRecordsAnswer} */ ({
        type: 'live-records',
        id: this.id,
        chunks: chunks.map((c) => c.data),
        dropped: this.dropped,
        droppedBy: this.droppedBy,
      }),
      chunks.flatMap((c) => c.transfer),
    );
    this.pendingCount -= chunks.reduce((sum, c) => sum + c.count, 0);
    this.dropped = 0;
    this.droppedBy = {};
    if (!this.pending.length) this.flushed?.();
    this.acknowledged = false;
    this.lastPost = performance.now();
  }

  /** The pass reached its end (`until`): what waits goes to the page, then the tail ends. */
  async finish() {
    if (this.pending.length)
      await new Promise((resolve) => {
        this.flushed = resolve;
      });
    if (this.stopped) return;
    this.stopped = true;
    this.client.close();
    if (tail === this) tail = null;
    self.postMessage(/** @type {LiveStateAnswer} */ ({ type: 'live-state', id: this.id, phase: 'ended' }));
  }

  /** @param {string} type any message's of this id: the tail acts on its own ('live-ack', 'live-pause', ...) */
  control(type) {
    if (type === 'live-ack') {
      this.acknowledged = true;
      this.post();
    } else if (type === 'live-pause' && !this.stopped) {
      this.paused = true;
      self.postMessage(/** @type {LiveStateAnswer} */ ({ type: 'live-state', id: this.id, phase: 'paused' }));
    } else if (type === 'live-resume' && !this.stopped) {
      this.paused = false;
      this.unpause?.();
      self.postMessage(/** @type {LiveStateAnswer} */ ({ type: 'live-state', id: this.id, phase: 'tailing' }));
      this.post();
    } else if (type === 'live-stop') {
      this.stop();
      self.postMessage(/** @type {LiveStateAnswer} */ ({ type: 'live-state', id: this.id, phase: 'stopped' }));
    }
  }

  stop() {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    this.pending = [];
    this.unpause?.();
    this.client.close();
    if (tail === this) tail = null;
  }
}
