// KafkaClient: an inspection reader for live topics. It reads partitions from offsets: metadata,
// earliest/latest/by-time offsets, single fetches, and an async iterator that consumes partitions
// from chosen positions, routing each partition to its leader and recovering from leader moves and
// broker disconnects. No consumer group, no commits, no produce.
//
// The Rust core encodes every request and decodes every response (client/protocol.mjs, and
// FetchDecoder for fetch responses); this module owns sockets, timeouts, retries and positions.

import { FetchDecoder, fetchPositionsOf, recordsOf } from '../api.mjs';
import { BrokerConnection, errorNameOf } from './connection.mjs';
import { KafkaClientError } from './errors.mjs';
import { addressName, parseAddress } from './address.mjs';
import { DEFAULT_MAX_FRAME_BYTES } from './frames.mjs';
import { API, decodeResponse, encode } from './protocol.mjs';
import { SASL_MECHANISMS } from './sasl.mjs';
import { webSocketTransport } from './transport-websocket.mjs';

// ListOffsets timestamps
const LATEST = -1n;
const EARLIEST = -2n;

// Partition errors that a metadata refresh and a retry can cure (as the Java consumer treats them).
const REFRESH = new Set([3, 5, 6, 9, 13, 56, 74, 75, 78, 100, 103]);
const OFFSET_OUT_OF_RANGE = 1;

// How to reach brokers without a relay, the WebSocket class where the runtime has none, and how to
// decode on other threads: the Node entry sets them (TCP/TLS sockets, the ws package,
// worker_threads); browsers have WebSocket and need a relay.
let directTransport = null;
let loadFallbackWebSocket = null;
let decodePool = null;
export function setNodeDefaults({ transport, loadWebSocket, decodeThreads }) {
  directTransport = transport;
  loadFallbackWebSocket = loadWebSocket;
  decodePool = decodeThreads;
}

/** How the client opens WebSockets: the caller's class, else Node's default (loaded when first needed), else the runtime's. */
function webSocketOf(options) {
  if (options.webSocket != null) return { WebSocket: options.webSocket };
  if (loadFallbackWebSocket) return { loadWebSocket: loadFallbackWebSocket };
  return { WebSocket: globalThis.WebSocket };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function option(options, name, check, fallback) {
  const v = options[name];
  if (v === undefined) return fallback;
  if (!check(v)) throw new KafkaClientError('INVALID_ARGUMENT', `option ${name} is not valid: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  return v;
}

const positiveInt = (v) => Number.isInteger(v) && v > 0;

const CLIENT_OPTIONS = ['bootstrap', 'relay', 'webSocket', 'clientId', 'tls', 'sasl', 'requestTimeoutMs', 'connectTimeoutMs', 'maxFrameBytes', 'retries', 'retryBackoffMs', 'transport', 'decodeThreads'];

// Through a relay without a bootstrap list, the relay picks one of its own bootstrap brokers.
const RELAY_BOOTSTRAP = { host: 'the relay\'s bootstrap broker', port: 0 };

const CONSUME_OPTIONS = ['topic', 'partitions', 'from', 'untilEnd', 'maxRecords', 'isolationLevel', 'offsetReset', 'maxWaitMs',
  'partitionMaxBytes', 'fetchMaxBytes', 'decode', 'onResponse'];

/**
 * Checks a client's options and resolves them into the bootstrap addresses and what every broker
 * connection needs (the relay resolves its own the same way).
 */
export function resolveClientOptions(options = {}) {
  for (const name of Object.keys(options)) {
    if (!CLIENT_OPTIONS.includes(name)) throw new KafkaClientError('INVALID_ARGUMENT', `unknown client option '${name}'; valid: ${CLIENT_OPTIONS.join(', ')}`);
  }
  const list = Array.isArray(options.bootstrap) ? options.bootstrap : String(options.bootstrap ?? '').split(',').filter(Boolean);
  if (!list.length && !options.relay) throw new KafkaClientError('INVALID_ARGUMENT', 'option bootstrap (HOST:PORT[,HOST:PORT...]) is required');
  const bootstrap = list.length ? list.map(parseAddress) : [RELAY_BOOTSTRAP];
  if (options.relay && (options.tls || options.sasl)) {
    throw new KafkaClientError('INVALID_ARGUMENT', 'through a relay, TLS and SASL to the brokers are the relay\'s options (credentials stay on the relay)');
  }
  let sasl = null;
  if (options.sasl) {
    const mechanism = String(options.sasl.mechanism ?? '').toUpperCase();
    if (!SASL_MECHANISMS.includes(mechanism)) throw new KafkaClientError('INVALID_ARGUMENT', `sasl.mechanism must be one of ${SASL_MECHANISMS.map((m) => m.toLowerCase()).join(', ')}`);
    if (typeof options.sasl.username !== 'string' || typeof options.sasl.password !== 'string') {
      throw new KafkaClientError('INVALID_ARGUMENT', 'sasl needs a username and a password (strings)');
    }
    sasl = { mechanism, username: options.sasl.username, password: options.sasl.password };
  }
  let transport;
  try {
    transport = options.transport
      ?? (options.relay ? webSocketTransport(options.relay, webSocketOf(options)) : directTransport);
  } catch (e) {
    throw new KafkaClientError('INVALID_ARGUMENT', e.message.replace(/^kafka-fetch-decoder: /, ''), { cause: e });
  }
  if (!transport) throw new KafkaClientError('INVALID_ARGUMENT', 'no transport: in browsers, give the relay\'s URL (option relay)');
  const connection = {
    transport,
    clientId: option(options, 'clientId', (v) => typeof v === 'string', 'kafka-fetch-decoder'),
    tls: options.tls === true ? {} : options.tls || null,
    sasl,
    requestTimeoutMs: option(options, 'requestTimeoutMs', positiveInt, 30_000),
    connectTimeoutMs: option(options, 'connectTimeoutMs', positiveInt, 10_000),
    maxFrameBytes: option(options, 'maxFrameBytes', positiveInt, DEFAULT_MAX_FRAME_BYTES),
    retries: option(options, 'retries', (v) => Number.isInteger(v) && v >= 0, 10),
    retryBackoffMs: option(options, 'retryBackoffMs', positiveInt, 100),
    decodeThreads: option(options, 'decodeThreads', (v) => Number.isInteger(v) && v >= 0 && v <= 64, 0),
  };
  if (connection.decodeThreads > 0 && !decodePool) {
    throw new KafkaClientError('INVALID_ARGUMENT', 'option decodeThreads needs Node (worker_threads); in browsers, run the client in a worker');
  }
  return { bootstrap, connection };
}

export class KafkaClient {
  #options;
  #bootstrap;
  #connections = new Map(); // 'host:port' -> BrokerConnection
  #brokers = new Map(); // nodeId -> { host, port, rack }
  #topics = new Map(); // name -> { topicId, partitions: Map(partition -> { leader, leaderEpoch }) }
  #decoder = new FetchDecoder();
  #threads = null; // the decode threads (decodeThreads), started with the first fetch
  #closed = false;

  /**
   * options: bootstrap ('host:port,host:port' or an array; optional with a relay), relay (the URL,
   * ws:// or wss://, of a `kafka-fetch-decoder relay`: the way browsers reach brokers), webSocket (a
   * WebSocket class where the runtime has none), clientId, tls (true or node:tls options
   * such as { ca, cert, key, servername, rejectUnauthorized }), sasl ({ mechanism: 'plain' |
   * 'scram-sha-256' | 'scram-sha-512', username, password }), requestTimeoutMs (30000),
   * connectTimeoutMs (10000), maxFrameBytes (100 MiB), retries (10), retryBackoffMs (100), transport,
   * decodeThreads (Node: decode fetch responses on this many worker threads, each with its own wasm
   * instance, while this thread reads sockets and hands out records; default 0: on this thread).
   */
  constructor(options = {}) {
    ({ bootstrap: this.#bootstrap, connection: this.#options } = resolveClientOptions(options));
  }

  // ---- connections and metadata ----------------------------------------------------------------

  #connection(address) {
    const key = addressName(address);
    let c = this.#connections.get(key);
    if (!c) {
      c = new BrokerConnection(address, this.#options);
      this.#connections.set(key, c);
    }
    return c;
  }

  #check() {
    if (this.#closed) throw new KafkaClientError('CLOSED', 'the client was closed');
  }

  /** Sends a request to any broker that answers: the known ones first, then the bootstrap list. */
  async #anyBroker(apiKey, build) {
    this.#check();
    const candidates = [...this.#brokers.values(), ...this.#bootstrap];
    const failures = [];
    for (const address of candidates) {
      const c = this.#connection(address);
      try {
        return { connection: c, ...(await c.request(apiKey, build)) };
      } catch (e) {
        if (!(e instanceof KafkaClientError) || !['CONNECTION', 'TIMEOUT', 'TLS'].includes(e.code)) throw e;
        failures.push(e);
      }
    }
    // Before any broker has answered, the bootstrap list is wrong or the cluster is down: that is
    // the user's to fix, not something to retry. Once the cluster is known, it is retried.
    const code = failures.every((e) => e.code === 'TLS') ? 'TLS' : this.#brokers.size ? 'CONNECTION' : 'BOOTSTRAP';
    const why = [...new Set(failures.map((e) => e.message))].join('; ');
    throw new KafkaClientError(code, `no broker answered: ${why}`, { broker: this.#bootstrap.map(addressName).join(',') });
  }

  /**
   * The cluster's brokers and the named topics' partitions (every topic when `topics` is omitted):
   * { clusterId, controllerId, brokers: [{ nodeId, host, port, rack }], topics: [{ topic, topicId,
   * errorCode, errorName, isInternal, partitions: [{ partition, leader, leaderEpoch, replicas, isr,
   * errorCode, errorName }] }] }.
   */
  async metadata(topics = null) {
    const names = topics === null ? null : [].concat(topics);
    const { connection, version, frame } = await this.#anyBroker(API.METADATA, (v, id) => encode.metadata(v, id, this.#options.clientId, names));
    const md = decodeResponse(API.METADATA, version, frame);
    for (const b of md.brokers) this.#brokers.set(b.nodeId, { host: b.host, port: b.port, rack: b.rack ?? null });
    for (const t of md.topics) {
      if (t.errorCode !== 0 || t.topic == null) continue;
      this.#topics.set(t.topic, {
        topicId: t.topicId ?? null,
        partitions: new Map(t.partitions.map((p) => [p.partition, { leader: p.leaderId, leaderEpoch: p.leaderEpoch ?? -1 }])),
      });
    }
    return {
      clusterId: md.clusterId ?? null,
      controllerId: md.controllerId ?? null,
      broker: connection.name,
      brokers: md.brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack ?? null })),
      topics: md.topics.map((t) => ({
        topic: t.topic,
        topicId: t.topicId ?? null,
        errorCode: t.errorCode,
        errorName: t.errorName,
        isInternal: t.isInternal ?? false,
        partitions: t.partitions.map((p) => ({
          partition: p.partition,
          leader: p.leaderId,
          leaderEpoch: p.leaderEpoch ?? -1,
          replicas: p.replicaNodes,
          isr: p.isrNodes,
          errorCode: p.errorCode,
          errorName: p.errorName,
        })).sort((a, b) => a.partition - b.partition),
      })),
    };
  }

  /** The topic's metadata, fetched when missing or `refresh`; an unknown topic is an error. */
  async #topic(topic, refresh = false) {
    if (refresh || !this.#topics.has(topic)) {
      const md = await this.metadata([topic]);
      const t = md.topics.find((x) => x.topic === topic);
      if (!t || t.errorCode !== 0) {
        const why = t ? `${t.errorName} (${t.errorCode})` : 'not in the metadata';
        throw new KafkaClientError('UNKNOWN_TOPIC', `topic ${topic}: ${why} (broker ${md.broker})`, { broker: md.broker, topic, errorCode: t?.errorCode ?? null, errorName: t?.errorName ?? null });
      }
    }
    return this.#topics.get(topic);
  }

  #leader(topic, partition) {
    const p = this.#topics.get(topic)?.partitions.get(partition);
    if (!p) throw new KafkaClientError('UNKNOWN_TOPIC', `topic ${topic} has no partition ${partition}`, { topic, partition });
    const address = this.#brokers.get(p.leader);
    return address ? { address, leaderEpoch: p.leaderEpoch, nodeId: p.leader } : null;
  }

  /** Runs `fn` until it succeeds, refreshing metadata between tries, with growing backoff. */
  async #withRetries(what, fn) {
    for (let attempt = 0; ; attempt++) {
      this.#check();
      try {
        return await fn(attempt);
      } catch (e) {
        const retriable = e instanceof KafkaClientError && (['CONNECTION', 'TIMEOUT'].includes(e.code) || (e.code === 'BROKER_ERROR' && REFRESH.has(e.errorCode)));
        if (!retriable || attempt >= this.#options.retries) throw e;
        await sleep(Math.min(this.#options.retryBackoffMs * 2 ** attempt, 5000));
      }
    }
  }

  // ---- offsets -----------------------------------------------------------------------------------

  /**
   * Offsets of `topic`'s partitions (all when `partitions` is omitted) at `at`: 'earliest',
   * 'latest', or a time (Date, ms number, or ISO-8601 string: the first offset whose timestamp is
   * at or after it). Resolves with a Map partition -> { offset: bigint, timestamp: bigint }; a time
   * after the last record gives offset -1n.
   */
  async listOffsets(topic, { partitions, at = 'latest', isolationLevel = 'read_uncommitted' } = {}) {
    const timestamp = at === 'latest' ? LATEST : at === 'earliest' ? EARLIEST : BigInt(toMillis(at));
    return this.#withRetries(`ListOffsets ${topic}`, async (attempt) => {
      const meta = await this.#topic(topic, attempt > 0);
      const chosen = partitions ?? [...meta.partitions.keys()];
      const byLeader = this.#groupByLeader(topic, chosen);
      const out = new Map();
      await Promise.all([...byLeader.values()].map(async ({ address, parts }) => {
        const c = this.#connection(address);
        const { version, frame } = await c.request(API.LIST_OFFSETS, (v, id) => encode.listOffsets(v, id, this.#options.clientId, {
          readCommitted: isolationLevel === 'read_committed',
          timeoutMs: this.#options.requestTimeoutMs,
          partitions: parts.map((p) => ({ topic, partition: p.partition, leaderEpoch: p.leaderEpoch, timestamp })),
        }));
        const res = decodeResponse(API.LIST_OFFSETS, version, frame);
        for (const t of res.topics) {
          for (const p of t.partitions) {
            if (p.errorCode !== 0) throw c.brokerError(`ListOffsets ${topic}/${p.partition}`, p.errorCode, { topic, partition: p.partition });
            out.set(p.partition, { offset: BigInt(p.offset), timestamp: BigInt(p.timestamp) });
          }
        }
      }));
      return out;
    });
  }

  /** Partitions grouped by their leader's address; an unknown leader is a retriable error. */
  #groupByLeader(topic, partitions) {
    const groups = new Map();
    for (const partition of partitions) {
      const leader = this.#leader(topic, partition);
      if (!leader) {
        throw new KafkaClientError('BROKER_ERROR', `topic ${topic} partition ${partition} has no leader now: LEADER_NOT_AVAILABLE (5)`, { topic, partition, errorCode: 5, errorName: 'LEADER_NOT_AVAILABLE' });
      }
      const key = addressName(leader.address);
      if (!groups.has(key)) groups.set(key, { address: leader.address, parts: [] });
      groups.get(key).parts.push({ partition, leaderEpoch: leader.leaderEpoch });
    }
    return groups;
  }

  // ---- fetching ----------------------------------------------------------------------------------

  /**
   * One Fetch of `topic`'s `partitions` ([{ partition, offset, maxBytes? }]) from their leaders.
   * Resolves with one entry per leader: { broker, apiVersion, frame, response } where `response` is
   * the decoded FetchResponse (decode options from `decode`); `raw: true` keeps `frame`.
   */
  async fetch(topic, partitions, { maxWaitMs = 0, minBytes = 1, maxBytes = 50 * 1024 * 1024, isolationLevel = 'read_uncommitted', decode = {}, raw = false } = {}) {
    const answers = await this.#fetchFrames(topic, partitions, { maxWaitMs, minBytes, maxBytes, isolationLevel });
    const decodeOptions = { isolationLevel, decode, raw };
    return Promise.all(answers.map((answer) => (this.#options.decodeThreads ? this.#decodeOnThread(answer, decodeOptions) : this.#decodeAnswer(answer, decodeOptions))));
  }

  /** Sends one Fetch per leader of `partitions`; resolves with the raw answers (not yet decoded). */
  async #fetchFrames(topic, partitions, { maxWaitMs, minBytes, maxBytes, isolationLevel }) {
    // with the metadata known and the connections open, every request is written before this
    // returns its promise (see BrokerConnection.request)
    const meta = this.#topics.get(topic) ?? (await this.#topic(topic));
    const byLeader = this.#groupByLeader(topic, partitions.map((p) => p.partition));
    const positions = new Map(partitions.map((p) => [p.partition, p]));
    return Promise.all([...byLeader.values()].map(async ({ address, parts }) => {
      const connection = this.#connection(address);
      const request = {
        maxWaitMs, minBytes, maxBytes, readCommitted: isolationLevel === 'read_committed',
        partitions: parts.map((p) => ({
          topic, topicId: meta.topicId, partition: p.partition, leaderEpoch: p.leaderEpoch,
          offset: BigInt(positions.get(p.partition).offset), maxBytes: positions.get(p.partition).maxBytes ?? 1024 * 1024,
        })),
      };
      const { version, frame } = await connection.request(API.FETCH, (v, id) => {
        // fetch v13+ names topics by id: without one (old metadata), stay at v12
        const fetchVersion = meta.topicId ? v : Math.min(v, 12);
        request.version = fetchVersion;
        return encode.fetch(fetchVersion, id, this.#options.clientId, request);
      });
      return { connection, topic, topicId: meta.topicId, apiVersion: request.version ?? version, frame, request };
    }));
  }

  /** Decodes one raw Fetch answer; a response-level error code is a BROKER_ERROR. */
  #decodeAnswer(answer, decodeOptions) {
    return this.#decoded(answer, decodeOptions, this.#decoder.decodeFetchResponse(answer.frame, fetchDecodeOptions(answer, decodeOptions)));
  }

  /** #decodeAnswer on one of the decode threads. */
  async #decodeOnThread(answer, decodeOptions) {
    this.#threads ??= decodePool(this.#options.decodeThreads);
    // a transient result could not leave its thread: results from threads are always kept
    const response = await this.#threads.decode(answer.frame, { ...fetchDecodeOptions(answer, decodeOptions), transient: false }, decodeOptions.raw);
    return this.#decoded(answer, decodeOptions, response);
  }

  #decoded({ connection, topic, apiVersion, frame, request }, { raw }, response) {
    if (response.errorCode) throw connection.brokerError(`Fetch ${topic}`, response.errorCode, { topic });
    return { broker: connection.name, apiVersion, frame: raw ? frame : undefined, request, response };
  }

  /**
   * Consumes `topic` from chosen positions: an async iterator of { topic, partition, records,
   * recordCount, highWatermark, lastStableOffset, nextOffset, broker } in offset order per
   * partition, each record once, none below the start, no control records. `records` is built when
   * first read and kept by the chunk until the next chunk is asked for (see makeChunk).
   *
   * options: partitions (all when omitted), from ('earliest' | 'latest' | an offset | a time: Date,
   * ms since the epoch as { time: ms }, or an ISO-8601 string; default 'earliest'), untilEnd (stop
   * at the end offsets seen at the start: the high watermark, or the last stable offset under
   * read_committed, of each partition's first fetch response; records at or past it are left out),
   * maxRecords, isolationLevel, offsetReset ('error' (default), 'earliest' or
   * 'latest' when an offset is out of range), maxWaitMs (500), partitionMaxBytes (1 MiB; grown when
   * one batch is larger), fetchMaxBytes (50 MiB), decode (decoder options: crc, int64, ...),
   * onResponse({ broker, apiVersion, frame, request, response }) for every fetch response: its raw
   * frame and its decoded result, before its records are handed out. The callback may keep the
   * result, or move it (toTransferable: consume has read what it needs from it; reading the chunks'
   * `records` then throws, saying they moved).
   */
  async *consume(options) {
    for (const name of Object.keys(options ?? {})) {
      if (!CONSUME_OPTIONS.includes(name)) throw new KafkaClientError('INVALID_ARGUMENT', `unknown consume option '${name}'; valid: ${CONSUME_OPTIONS.join(', ')}`);
    }
    const {
      topic, partitions, from = 'earliest', untilEnd = false, maxRecords = Infinity, isolationLevel = 'read_uncommitted',
      offsetReset = 'error', maxWaitMs = 500, partitionMaxBytes = 1024 * 1024, fetchMaxBytes = 50 * 1024 * 1024, decode = {}, onResponse = null,
    } = options;
    if (typeof topic !== 'string' || !topic) throw new KafkaClientError('INVALID_ARGUMENT', 'consume needs a topic');
    if (!['error', 'earliest', 'latest'].includes(offsetReset)) throw new KafkaClientError('INVALID_ARGUMENT', `offsetReset must be 'error', 'earliest' or 'latest'`);
    const start = startPosition(from); // checked before any request
    const meta = await this.#withRetries(`Metadata ${topic}`, () => this.#topic(topic));
    const chosen = partitions ?? [...meta.partitions.keys()].sort((a, b) => a - b);
    for (const p of chosen) {
      if (!meta.partitions.has(p)) throw new KafkaClientError('UNKNOWN_TOPIC', `topic ${topic} has no partition ${p} (it has ${meta.partitions.size})`, { topic, partition: p });
    }
    // per partition: the next offset to read, the end (untilEnd: learnt from the first response
    // that answers for the partition), the partition byte limit, failures in a row
    const state = new Map();
    const starts = await this.#startOffsets(topic, chosen, start, isolationLevel);
    for (const p of chosen) state.set(p, { offset: starts.get(p), end: null, maxBytes: partitionMaxBytes, failures: 0 });
    const active = () => [...state.entries()].filter(([, s]) => !untilEnd || s.end === null || s.offset < s.end).map(([p]) => p);
    // One round asks every leader for its partitions from their current positions. A fetcher reads
    // where each partition continues as soon as a round's answers are in (from the batch headers),
    // and asks for the next round at once, up to `ahead` rounds before the records handed out: the
    // brokers work while this side decodes and the caller reads. With decode threads, each response
    // also starts decoding as soon as it is in, several at once.
    const ahead = this.#options.decodeThreads + 1;
    // results are kept, never transient: the client decodes while the caller reads (a response
    // with legacy messages as it comes in, to learn where it ends), which would end a transient one
    const decodeOptions = { isolationLevel, decode: { ...decode, transient: false }, raw: onResponse !== null };
    let round = 0;
    // With decode threads, a response without compressed batches decodes faster on this thread than
    // its copy to a thread and back costs; told by the last response decoded that held batches
    // (topics rarely mix codecs, and a wrong guess costs one response).
    let decodeHere = false;
    const ask = () => {
      const live = active();
      if (!live.length) return null;
      const asked = this.#fetchFrames(topic, live.map((p) => ({ partition: p, offset: state.get(p).offset, maxBytes: state.get(p).maxBytes })), {
        maxWaitMs: round++ === 0 ? 0 : maxWaitMs, minBytes: 1, maxBytes: fetchMaxBytes, isolationLevel,
      });
      if (!this.#options.decodeThreads) return asked;
      return asked.then((answers) => {
        for (const answer of answers) {
          // positions first: the frame may move to the thread
          answer.positions = this.#positionsOf(answer, decodeOptions);
          if (answer.positions.decoded || decodeHere) continue;
          answer.decoding = this.#decodeOnThread(answer, decodeOptions);
          answer.decoding.catch(() => {}); // handled when read; the caller may stop before that
        }
        return answers;
      });
    };
    // rounds fetched and not yet handed out: { answers, positions, span } in order, or { error }
    const rounds = [];
    let pendingSpan = 0n; // records those rounds move past (at least the records they hold)
    let emitted = 0;
    let fetching = true;
    let stopped = false;
    // the reader waits for a round, the fetcher for room: each for a call of wake()
    const waiting = { reader: null, fetcher: null };
    const waitFor = (who) => new Promise((resolve) => { waiting[who] = resolve; });
    const wake = (who) => {
      const resolve = waiting[who];
      waiting[who] = null;
      resolve?.();
    };
    const fetcher = async () => {
      try {
        for (;;) {
          // with a record limit, a round is asked for only if what is fetched may fall short of it
          while (!stopped && (rounds.length >= ahead || emitted + Number(pendingSpan) >= maxRecords)) {
            if (!rounds.length) return;
            await waitFor('fetcher');
          }
          if (stopped) return;
          const next = ask();
          if (next === null) return;
          let answers;
          let positions;
          let span = 0n;
          try {
            answers = await next;
            if (stopped) return;
            positions = answers.map((answer) => answer.positions ?? this.#positionsOf(answer, decodeOptions));
            for (const [k, { partitions }] of positions.entries()) {
              for (const p of partitions) {
                const s = state.get(p.partition);
                if (!s) continue;
                if (p.errorCode !== 0) {
                  await this.#onPartitionError(p, topic, s, answers[k].connection.name, offsetReset, isolationLevel);
                  continue;
                }
                s.failures = 0;
                if (untilEnd && s.end === null) {
                  const lso = p.lastStableOffset === null ? -1n : BigInt(p.lastStableOffset);
                  s.end = isolationLevel === 'read_committed' && lso >= 0n ? lso : BigInt(p.highWatermark);
                }
                if (p.nextOffset !== null) {
                  // forwards only: batches that all end below the position asked for (not what a
                  // broker should send) bring no record at or past it, and must not move it back
                  const next = BigInt(p.nextOffset);
                  if (next > s.offset) {
                    span += next - s.offset;
                    s.offset = next;
                  }
                } else if (p.partial) {
                  // one batch larger than the partition limit: ask for more next time
                  s.maxBytes = Math.min(s.maxBytes * 2, this.#options.maxFrameBytes);
                }
              }
            }
          } catch (e) {
            if (stopped) return;
            await this.#recover(e, topic, state);
            continue;
          }
          rounds.push({ answers, positions, span });
          pendingSpan += span;
          wake('reader');
        }
      } catch (e) {
        rounds.push({ error: e });
      } finally {
        fetching = false;
        wake('reader');
      }
    };
    // A round's records, cut into one chunk per partition (made as handOut hands it out). The
    // round's answers are dropped from it here, so that what stays referenced while its chunks are
    // handed out is only those chunks.
    const chunksOf = async (round) => {
      const { answers, positions } = round;
      round.answers = round.positions = null;
      const chunks = [];
      for (const [k, answer] of answers.entries()) {
        const decoded = positions[k].decoded ?? (answer.decoding ? await answer.decoding : this.#decodeAnswer(answer, decodeOptions));
        const { broker, apiVersion, frame, request, response } = decoded;
        if (this.#options.decodeThreads) decodeHere = onlyUncompressed(response) ?? decodeHere;
        for (const t of response.topics) {
          for (const p of t.partitions) {
            const s = state.get(p.partition);
            if (!s || p.errorCode !== 0) continue;
            // Records are counted and cut here without being built: a caller that only wants the
            // response (onResponse, toTransferable) never pays for record objects.
            const count = p.recordCount;
            let take = count;
            if (untilEnd && count && BigInt(p.record(count - 1).offset) >= s.end) take = firstAtOrAfter(p, s.end);
            take = Math.min(take, maxRecords - emitted);
            if (take === 0) continue;
            emitted += take;
            chunks.push({
              set: p,
              fields: {
                topic, partition: p.partition, recordCount: take, broker,
                highWatermark: p.highWatermark, lastStableOffset: p.lastStableOffset, logStartOffset: p.logStartOffset, nextOffset: p.nextOffset,
              },
            });
          }
        }
        // after this response's positions are read: the callback may move the result away
        onResponse?.({ broker, apiVersion, frame, request, response });
      }
      return chunks;
    };
    fetcher();
    try {
      while (emitted < maxRecords) {
        while (!rounds.length && fetching) await waitFor('reader');
        if (!rounds.length) break;
        const round = rounds.shift();
        if (round.error) throw round.error;
        // room for the next round: it is asked for while this one decodes (its span still counts
        // towards a record limit until its records are counted). The await lets the fetcher write
        // that request before the decode below holds the thread.
        wake('fetcher');
        await null;
        const chunks = await chunksOf(round);
        pendingSpan -= round.span;
        wake('fetcher');
        yield* handOut(chunks);
      }
    } finally {
      // the caller stopped, or the end: the fetcher asks for nothing more
      stopped = true;
      wake('fetcher');
    }
  }

  /**
   * Where each partition of a raw Fetch answer continues, read from its batch headers, or from
   * its decode (kept in `decoded`) when only that can tell; a response-level error code is a
   * BROKER_ERROR.
   */
  #positionsOf(answer, decodeOptions) {
    const scanned = fetchPositionsOf(answer.frame, answer.apiVersion);
    if (scanned === null) {
      const decoded = this.#decodeAnswer(answer, decodeOptions);
      return { partitions: decoded.response.topics.flatMap((t) => t.partitions), decoded };
    }
    if (scanned.errorCode) throw answer.connection.brokerError(`Fetch ${answer.topic}`, scanned.errorCode, { topic: answer.topic });
    return { partitions: scanned.partitions, decoded: null };
  }

  /** Each partition's first offset, from a startPosition(). */
  async #startOffsets(topic, partitions, start, isolationLevel) {
    if (start.at) {
      const offsets = await this.listOffsets(topic, { partitions, at: start.at, isolationLevel });
      return new Map(partitions.map((p) => [p, offsets.get(p).offset]));
    }
    if (start.offset !== undefined) return new Map(partitions.map((p) => [p, start.offset]));
    // a time: the first offset at or after it; none (a time after the last record) means the end
    const byTime = await this.listOffsets(topic, { partitions, at: { time: start.time }, isolationLevel });
    const latest = await this.listOffsets(topic, { partitions, at: 'latest', isolationLevel });
    // none found is offset -1 with timestamp -1 (some brokers answer offset 0 with timestamp -1)
    const found = ({ offset, timestamp }) => offset >= 0n && timestamp >= 0n;
    return new Map(partitions.map((p) => [p, found(byTime.get(p)) ? byTime.get(p).offset : latest.get(p).offset]));
  }

  /** After a failed fetch round: refresh metadata and back off, or give up with the error. */
  async #recover(error, topic, state) {
    const retriable = error instanceof KafkaClientError && (['CONNECTION', 'TIMEOUT'].includes(error.code) || (error.code === 'BROKER_ERROR' && REFRESH.has(error.errorCode)));
    const worst = Math.max(...[...state.values()].map((s) => ++s.failures));
    if (!retriable || worst > this.#options.retries) throw error;
    await sleep(Math.min(this.#options.retryBackoffMs * 2 ** (worst - 1), 5000));
    try {
      await this.#topic(topic, true);
    } catch (e) {
      if (!(e instanceof KafkaClientError) || !['CONNECTION', 'TIMEOUT'].includes(e.code)) throw e;
    }
  }

  async #onPartitionError(p, topic, s, broker, offsetReset, isolationLevel) {
    const name = p.errorName ?? errorNameOf(p.errorCode);
    const where = `${topic}/${p.partition} at broker ${broker}`;
    if (p.errorCode === OFFSET_OUT_OF_RANGE) {
      if (offsetReset === 'error') {
        throw new KafkaClientError('OFFSET_OUT_OF_RANGE', `offset ${s.offset} is out of range for ${where}: OFFSET_OUT_OF_RANGE (1)`, { broker, topic, partition: p.partition, errorCode: 1, errorName: name });
      }
      s.offset = (await this.listOffsets(topic, { partitions: [p.partition], at: offsetReset, isolationLevel })).get(p.partition).offset;
      return;
    }
    if (!REFRESH.has(p.errorCode) || ++s.failures > this.#options.retries) {
      throw new KafkaClientError('BROKER_ERROR', `fetching ${where} failed: ${name} (${p.errorCode})`, { broker, topic, partition: p.partition, errorCode: p.errorCode, errorName: name });
    }
    // a leader moved or is not ready: learn where it is now, and try again after a pause
    await sleep(Math.min(this.#options.retryBackoffMs * 2 ** (s.failures - 1), 5000));
    await this.#topic(topic, true).catch(() => {});
  }

  /** Closes every connection; later calls fail. */
  close() {
    this.#closed = true;
    for (const c of this.#connections.values()) c.close();
    this.#connections.clear();
    this.#threads?.close();
  }
}

/** decodeFetchResponse options for one raw Fetch answer: its version, offsets and topic ids. */
function fetchDecodeOptions({ topic, topicId, apiVersion, request }, { isolationLevel, decode }) {
  return {
    crc: 'verify',
    ...decode,
    apiVersion,
    isolationLevel,
    fetchOffsets: { [topic]: Object.fromEntries(request.partitions.map((p) => [p.partition, p.offset])) },
    topicNames: topicId ? { [topicId]: topic } : undefined,
  };
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
    // the caller has moved on: the chunk lets its records go (read again, they are built anew)
    chunk[CHUNK].records = undefined;
  }
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
    c.records ??= recordsOf(c.set, this.recordCount);
    return c.records;
  },
};

function makeChunk(fields, set) {
  const chunk = { ...fields };
  Object.defineProperty(chunk, CHUNK, { value: { set, records: undefined } });
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

/** The index of the first record of `set` at or after `offset` (offsets increase within a set). */
function firstAtOrAfter(set, offset) {
  let lo = 0;
  let hi = set.recordCount;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (BigInt(set.record(mid).offset) < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Kafka's offsets are signed 64-bit integers
const MAX_OFFSET = 2n ** 63n - 1n;

/**
 * consume's `from` as { at: 'earliest' | 'latest' }, { offset: bigint } or { time: ms }: an integer
 * (number, bigint or digits) is an offset; a Date, { time: ms } or an ISO-8601 string is a time.
 */
function startPosition(from) {
  if (from === 'earliest' || from === 'latest') return { at: from };
  if (typeof from === 'bigint' || (typeof from === 'number' && Number.isSafeInteger(from)) || (typeof from === 'string' && /^\d+$/.test(from))) {
    const offset = BigInt(from);
    if (offset >= 0n && offset <= MAX_OFFSET) return { offset };
  }
  if (typeof from !== 'number') {
    try {
      return { time: toMillis(from) };
    } catch {
      // the message below names every form
    }
  }
  throw new KafkaClientError('INVALID_ARGUMENT', `from is 'earliest', 'latest', an offset (0 to 2^63-1) or a time (a Date, { time: ms } or an ISO-8601 string), got ${typeof from === 'string' ? `'${from}'` : String(from)}`);
}

/** Milliseconds since the epoch from a Date, { time: ms }, a number of ms, or an ISO-8601 string. */
export function toMillis(at) {
  if (at instanceof Date) return at.getTime();
  if (typeof at === 'object' && at !== null && Number.isFinite(at.time)) return at.time;
  if (typeof at === 'number' && Number.isFinite(at)) return at;
  if (typeof at === 'string') {
    const ms = Date.parse(at);
    if (Number.isFinite(ms)) return ms;
  }
  throw new KafkaClientError('INVALID_ARGUMENT', `a time is a Date, { time: ms } or an ISO-8601 string, got '${at}'`);
}
