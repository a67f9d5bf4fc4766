// KafkaClient: an inspection reader for live topics. It reads partitions from offsets: metadata,
// earliest/latest/by-time offsets, single fetches, and an async iterator that consumes partitions
// from chosen positions, routing each partition to its leader and recovering from leader moves and
// broker disconnects. No consumer group, no commits, no produce.
//
// The Rust core encodes every request and decodes every response (client/protocol.mjs, and
// FetchDecoder for fetch responses); this module owns sockets, timeouts, retries and positions.

import { FetchDecoder, fetchPositionsOf, int64Converter, KafkaDecodeError } from '../api.mjs';
import { abortable, anySignal, checkSignal, sleep, throwIfAborted } from './abort.mjs';
import { BrokerConnection } from './connection.mjs';
import { ConsumePass } from './consume.mjs';
import { Scan } from '../scan/scan.mjs';
import { backoff, Retrier } from './retry.mjs';
import { KafkaClientError } from './errors.mjs';
import { addressName } from './address.mjs';
import { encode, fetchTopicIdsFrom } from './protocol.mjs';
import { toMillis } from './start.mjs';
import { decodeThreadPool, resolveClientOptions } from './options.mjs';
import { waitFor } from './wait-for.mjs';
import { brokers, describeConfigs } from './cluster.mjs';
import { describeGroup, listGroups } from './groups.mjs';
import { waitForLag } from './wait-for-lag.mjs';
/** @import { DescribeGroupOptions, KafkaClient as Declared, ListOffsetsOptions } from '../index.d.ts' */
/** @typedef {{ signal?: AbortSignal }} SignalOption the options of a call that takes only a signal */

// ListOffsets timestamps
const LATEST = -1n;
const EARLIEST = -2n;

/** ListOffsets' timestamp for 'earliest', 'latest' or a time. */
const kafkaTimestamp = (at) => (at === 'latest' ? LATEST : at === 'earliest' ? EARLIEST : BigInt(toMillis(at)));

// The longest pause between two tries of a cluster not reached yet (connectRetryMs): a broker that
// is starting is found within a second of listening.
const CONNECT_RETRY_MAX_PAUSE_MS = 1000;

export class KafkaClient {
  #options;
  #bootstrap;
  #connections = new Map(); // 'host:port' -> BrokerConnection
  #brokers = new Map(); // nodeId -> { host, port, rack }
  #topics = new Map(); // name -> { topicId, partitions: Map(partition -> { leader, leaderEpoch }) }
  #decoder = new FetchDecoder();
  #threads = null; // the decode threads (decodeThreads), started with the first fetch
  #closed = false;
  // aborted by close(): every wait of every operation (backoffs, consume rounds) ends with it
  #closing = new AbortController();

  /**
   * options: bootstrap ('host:port,host:port' or an array; optional with a relay), relay (the URL,
   * ws:// or wss://, of a `kafka-fetch-decoder relay`: the way browsers reach brokers), webSocket (a
   * WebSocket class where the runtime has none), clientId, tls (true or node:tls options
   * such as { ca, cert, key, servername, rejectUnauthorized }), sasl ({ mechanism: 'plain' |
   * 'scram-sha-256' | 'scram-sha-512', username, password }), requestTimeoutMs (30000),
   * connectTimeoutMs (10000), connectRetryMs (0: how long to keep trying to reach a cluster that
   * does not answer yet, a broker still starting; refused, silent or unreachable bootstrap brokers
   * are tried again with a growing pause of at most 1 s), maxFrameBytes (100 MiB), retries (10),
   * retryBackoffMs (100), transport,
   * decodeThreads (Node: decode fetch responses on this many worker threads, each with its own wasm
   * instance, while this thread reads sockets and hands out records; default 0: on this thread).
   */
  constructor(options = {}) {
    ({ bootstrap: this.#bootstrap, connection: this.#options } = resolveClientOptions(options));
    this.#link.options = this.#options;
    this.#admin.options = this.#options;
    this.#given = options;
  }

  // the options as given: a scan's workers make their own clients with them
  #given;

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

  /** The signal of one operation: the caller's (checked) and the client's closing, either ends it. */
  #operation(signal, where) {
    const given = checkSignal(signal, where);
    throwIfAborted(given);
    return given ? anySignal(given, this.#closing.signal) : { signal: this.#closing.signal, dispose() {} };
  }

  /** Sends a request to any broker that answers: the known ones first, then the bootstrap list. */
  async #anyBroker(api, build, signal) {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      this.#check();
      const candidates = [...this.#brokers.values(), ...this.#bootstrap];
      const failures = [];
      for (const address of candidates) {
        const c = this.#connection(address);
        try {
          return { connection: c, ...(await c.request(api, build, signal)) };
        } catch (e) {
          if (!(e instanceof KafkaClientError) || !['CONNECTION', 'TIMEOUT', 'TLS'].includes(e.code)) throw e;
          failures.push(e);
        }
      }
      // Before any broker has answered, the bootstrap list is wrong or the cluster is down: that is
      // the user's to fix, not something to retry, unless connectRetryMs says to wait for it. Once
      // the cluster is known, it is retried.
      const code = failures.every((e) => e.code === 'TLS') ? 'TLS' : this.#brokers.size ? 'CONNECTION' : 'BOOTSTRAP';
      const left = this.#options.connectRetryMs - (Date.now() - started);
      if (code === 'BOOTSTRAP' && left > 0) {
        await sleep(Math.min(backoff(this.#options.retryBackoffMs, attempt), CONNECT_RETRY_MAX_PAUSE_MS, left), signal);
        continue;
      }
      const why = [...new Set(failures.map((e) => e.message))].join('; ');
      const waited = code === 'BOOTSTRAP' && attempt > 1 ? ` (tried ${attempt} times in ${Date.now() - started} ms)` : '';
      throw new KafkaClientError(code, `no broker answered${waited}: ${why}`, { broker: this.#bootstrap.map(addressName).join(',') });
    }
  }

  /**
   * The cluster's brokers and the named topics' partitions (every topic when `topics` is omitted):
   * { clusterId, controllerId, brokers: [{ nodeId, host, port, rack }], topics: [{ topic, topicId,
   * errorCode, errorName, isInternal, partitions: [{ partition, leader, leaderEpoch, replicas, isr,
   * errorCode, errorName, offlineReplicas }] }] }. `signal` (an AbortSignal) abandons the request.
   */
  async metadata(topics = null, /** @type {SignalOption} */ { signal } = {}) {
    const op = this.#operation(signal, 'metadata');
    try {
      return await abortable(this.#metadata(topics, op.signal), op.signal);
    } finally {
      op.dispose();
    }
  }

  async #metadata(topics, signal) {
    const names = topics === null || topics === undefined ? null : [].concat(topics);
    const { connection, version, frame } = await this.#anyBroker('Metadata', (v, id) => encode.metadata(v, id, this.#options.clientId, names), signal);
    const md = connection.decode('Metadata', version, frame);
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
        partitions: t.partitions
          .map((p) => ({
            partition: p.partition,
            leader: p.leaderId,
            leaderEpoch: p.leaderEpoch ?? -1,
            replicas: p.replicaNodes,
            isr: p.isrNodes,
            offlineReplicas: p.offlineReplicas ?? [],
            errorCode: p.errorCode,
            errorName: p.errorName,
          }))
          .sort((a, b) => a.partition - b.partition),
      })),
    };
  }

  /** The topic's metadata, fetched when missing or `refresh`; an unknown topic is an error. */
  async #topic(topic, refresh = false, signal = this.#closing.signal) {
    if (refresh || !this.#topics.has(topic)) {
      const md = await this.#metadata([topic], signal);
      const t = md.topics.find((x) => x.topic === topic);
      if (!t || t.errorCode !== 0) {
        const why = t ? `${t.errorName} (${t.errorCode})` : 'not in the metadata';
        throw new KafkaClientError('UNKNOWN_TOPIC', `topic ${topic}: ${why} (broker ${md.broker})`, {
          broker: md.broker,
          topic,
          errorCode: t?.errorCode ?? null,
          errorName: t?.errorName ?? null,
        });
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

  /** Runs `fn(attempt)` until it succeeds or its failures may not be retried (retry.mjs); an abort of `signal` ends the waits. */
  async #withRetries(what, fn, signal = this.#closing.signal) {
    const retrier = new Retrier(this.#options);
    for (let attempt = 0; ; attempt++) {
      this.#check();
      throwIfAborted(signal);
      try {
        return await fn(attempt);
      } catch (e) {
        await retrier.failed(e, signal);
      }
    }
  }

  // ---- offsets -----------------------------------------------------------------------------------

  /**
   * Offsets of `topic`'s partitions (all when `partitions` is omitted) at `at`: 'earliest',
   * 'latest', or a time (Date, ms number, or ISO-8601 string: the first offset whose timestamp is
   * at or after it). Resolves with a Map partition -> { offset, timestamp }, numbers or with
   * `int64: 'bigint'` BigInts, as records' int64 values; a time after the last record (or a broker
   * that looks no time up) gives offset -1. `signal` (an AbortSignal) abandons the lookup.
   */
  async listOffsets(
    topic,
    /** @type {ListOffsetsOptions} */ { partitions, at = 'latest', isolationLevel = 'read_uncommitted', int64 = 'number', signal } = {},
  ) {
    if (int64 !== 'number' && int64 !== 'bigint')
      throw new KafkaClientError('INVALID_ARGUMENT', `listOffsets: int64 must be 'number' or 'bigint', got '${int64}'`);
    const timestamp = kafkaTimestamp(at);
    const op = this.#operation(signal, 'listOffsets');
    try {
      const found = await abortable(this.#listOffsets(topic, partitions, timestamp, isolationLevel, op.signal), op.signal);
      if (int64 === 'bigint') return found;
      const number = int64Converter(false);
      return new Map([...found].map(([p, o]) => [p, { offset: number(o.offset), timestamp: number(o.timestamp) }]));
    } finally {
      op.dispose();
    }
  }

  /** listOffsets with BigInts, `timestamp` being Kafka's (-1 latest, -2 earliest, or ms). */
  async #listOffsets(topic, partitions, timestamp, isolationLevel, signal) {
    return this.#withRetries(
      `ListOffsets ${topic}`,
      async (attempt) => {
        const meta = await this.#topic(topic, attempt > 0, signal);
        const chosen = partitions ?? [...meta.partitions.keys()];
        const byLeader = this.#groupByLeader(topic, chosen);
        const out = new Map();
        await Promise.all(
          [...byLeader.values()].map(async ({ address, parts }) => {
            const c = this.#connection(address);
            const { version, frame } = await c.request(
              'ListOffsets',
              (v, id) =>
                encode.listOffsets(v, id, this.#options.clientId, {
                  readCommitted: isolationLevel === 'read_committed',
                  timeoutMs: this.#options.requestTimeoutMs,
                  partitions: parts.map((p) => ({ topic, partition: p.partition, leaderEpoch: p.leaderEpoch, timestamp })),
                }),
              signal,
            );
            const res = c.decode('ListOffsets', version, frame);
            for (const t of res.topics) {
              for (const p of t.partitions) {
                if (p.errorCode !== 0) throw c.brokerError(`ListOffsets ${topic}/${p.partition}`, p.errorCode, { topic, partition: p.partition });
                out.set(p.partition, { offset: BigInt(p.offset), timestamp: BigInt(p.timestamp) });
              }
            }
          }),
        );
        return out;
      },
      signal,
    );
  }

  /** Partitions grouped by their leader's address; an unknown leader is a retriable error. */
  #groupByLeader(topic, partitions) {
    const groups = new Map();
    for (const partition of partitions) {
      const leader = this.#leader(topic, partition);
      if (!leader) {
        throw new KafkaClientError('BROKER_ERROR', `topic ${topic} partition ${partition} has no leader now: LEADER_NOT_AVAILABLE (5)`, {
          topic,
          partition,
          errorCode: 5,
          errorName: 'LEADER_NOT_AVAILABLE',
        });
      }
      const key = addressName(leader.address);
      if (!groups.has(key)) groups.set(key, { address: leader.address, nodeId: leader.nodeId, parts: [] });
      groups.get(key).parts.push({ partition, leaderEpoch: leader.leaderEpoch });
    }
    return groups;
  }

  // ---- fetching ----------------------------------------------------------------------------------

  /**
   * One Fetch of `topic`'s `partitions` ([{ partition, offset, maxBytes? }]) from their leaders.
   * Resolves with one entry per leader: { broker, brokerId, apiVersion, frame, response } where `response` is
   * the decoded FetchResponse (decode options from `decode`); `raw: true` keeps `frame`. `signal`
   * (an AbortSignal) abandons it.
   */
  async fetch(
    topic,
    partitions,
    /** @type {Parameters<Declared['fetch']>[2]} */ {
      maxWaitMs = 0,
      minBytes = 1,
      maxBytes = 50 * 1024 * 1024,
      isolationLevel = 'read_uncommitted',
      decode = {},
      raw = false,
      signal,
    } = {},
  ) {
    const op = this.#operation(signal, 'fetch');
    try {
      const answers = await abortable(this.#fetchFrames(topic, partitions, { maxWaitMs, minBytes, maxBytes, isolationLevel, signal: op.signal }), op.signal);
      const decodeOptions = { isolationLevel, decode, raw };
      return await abortable(
        Promise.all(
          answers.map((answer) => (this.#options.decodeThreads ? this.#decodeOnThread(answer, decodeOptions) : this.#decodeAnswer(answer, decodeOptions))),
        ),
        op.signal,
      );
    } finally {
      op.dispose();
    }
  }

  /** Sends one Fetch per leader of `partitions`; resolves with the raw answers (not yet decoded). */
  async #fetchFrames(topic, partitions, { maxWaitMs, minBytes, maxBytes, isolationLevel, signal }) {
    // with the metadata known and the connections open, every request is written before this
    // returns its promise (see BrokerConnection.request)
    const meta = this.#topics.get(topic) ?? (await this.#topic(topic, false, signal));
    const byLeader = this.#groupByLeader(
      topic,
      partitions.map((p) => p.partition),
    );
    const positions = new Map(partitions.map((p) => [p.partition, p]));
    return Promise.all(
      [...byLeader.values()].map(async ({ address, nodeId, parts }) => {
        const connection = this.#connection(address);
        const request = {
          maxWaitMs,
          minBytes,
          maxBytes,
          readCommitted: isolationLevel === 'read_committed',
          partitions: parts.map((p) => ({
            topic,
            topicId: meta.topicId,
            partition: p.partition,
            leaderEpoch: p.leaderEpoch,
            offset: BigInt(positions.get(p.partition).offset),
            maxBytes: positions.get(p.partition).maxBytes ?? 1024 * 1024,
          })),
        };
        const { version, frame } = await connection.request(
          'Fetch',
          (v, id) => {
            // fetch names topics by id from some version: without one (old metadata), stay below it
            const fetchVersion = meta.topicId ? v : Math.min(v, fetchTopicIdsFrom() - 1);
            request.version = fetchVersion;
            return encode.fetch(fetchVersion, id, this.#options.clientId, request);
          },
          signal,
        );
        return { connection, brokerId: nodeId, topic, topicId: meta.topicId, apiVersion: request.version ?? version, frame, request };
      }),
    );
  }

  /** Decodes one raw Fetch answer; a response-level error code is a BROKER_ERROR. */
  #decodeAnswer(answer, decodeOptions) {
    const response = fromBroker(answer, () => this.#decoder.decodeFetchResponse(answer.frame, fetchDecodeOptions(answer, decodeOptions)));
    return this.#decoded(answer, decodeOptions, response);
  }

  /** #decodeAnswer on one of the decode threads. */
  async #decodeOnThread(answer, decodeOptions) {
    this.#threads ??= decodeThreadPool()(this.#options.decodeThreads);
    // a transient result could not leave its thread: results from threads are always kept
    const decoding = this.#threads.decode(answer.frame, { ...fetchDecodeOptions(answer, decodeOptions), transient: false }, decodeOptions.raw);
    const response = await decoding.catch((e) =>
      fromBroker(answer, () => {
        throw e;
      }),
    );
    return this.#decoded(answer, decodeOptions, response);
  }

  #decoded({ connection, brokerId, topic, apiVersion, frame, request }, { raw }, response) {
    if (response.errorCode) throw connection.brokerError(`Fetch ${topic}`, response.errorCode, { topic });
    return { broker: connection.name, brokerId, apiVersion, frame: raw ? frame : undefined, request, response };
  }

  /**
   * Consumes `topic` from chosen positions: an async iterator of { topic, partition, records,
   * recordCount, highWatermark, lastStableOffset, nextOffset, broker, brokerId } in offset order per
   * partition, each record once, none below the start, no control records. `records` is built when
   * first read and kept by the chunk until the next chunk is asked for (client/consume.mjs).
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
   * `records` then throws, saying they moved). signal: an AbortSignal; its abort ends the iterator
   * with the signal's reason. close() ends it too, quietly: the loop over it just ends.
   */
  consume(options) {
    return new ConsumePass(this.#link, options).run();
  }

  /**
   * Scans whole topics on worker threads (each with its own connections and decoder): an async
   * iterator of { topic, partition, records } matches, with the coverage, aggregates and latest
   * records per key once it ends (scan/scan.mjs). Options: topics, partitions, from, until (default
   * 'end'), key (and keyPruning), where, grep, grepIn, values, limit, aggregate, latestPerKey,
   * workers, rangeRecords, plan, shard, resume, isolationLevel, crc, records, signal.
   */
  scan(options) {
    this.#check();
    const { transport, webSocket, decodeThreads, ...given } = this.#given;
    if (transport || webSocket)
      throw new KafkaClientError(
        'INVALID_ARGUMENT',
        'scan makes a client in each worker: a client with its own transport or WebSocket class cannot be copied there',
      );
    return new Scan(this, given, options);
  }

  /**
   * The first record of `topic` that `match(record, chunk)` accepts (any record without `match`),
   * read from `from` (default 'earliest'): resolves with { topic, partition, record }, or rejects
   * with TIMEOUT after `timeoutMs` (default 30000). For tests: wait until a record the code under
   * test writes is there. Other options are consume's (partitions, values, decode, signal, ...).
   */
  waitFor(options) {
    return waitFor(this, options);
  }

  // What a consume pass asks of its client (client/consume.mjs).
  #link = {
    options: null, // set in the constructor
    closing: this.#closing.signal,
    closed: () => this.#closed,
    check: () => this.#check(),
    topic: (name, refresh, signal) => this.#topic(name, refresh, signal),
    withRetries: (what, fn, signal) => this.#withRetries(what, fn, signal),
    listOffsets: (topic, query, signal) => this.#listOffsets(topic, query.partitions, kafkaTimestamp(query.at), query.isolationLevel, signal),
    fetchFrames: (topic, partitions, request) => this.#fetchFrames(topic, partitions, request),
    positionsOf: (answer, decodeOptions) => this.#positionsOf(answer, decodeOptions),
    decodeAnswer: (answer, decodeOptions) => this.#decodeAnswer(answer, decodeOptions),
    decodeOnThread: (answer, decodeOptions) => this.#decodeOnThread(answer, decodeOptions),
  };

  /**
   * Where each partition of a raw Fetch answer continues, read from its batch headers, or from
   * its decode (kept in `decoded`) when only that can tell; a response-level error code is a
   * BROKER_ERROR.
   */
  #positionsOf(answer, decodeOptions) {
    const scanned = fromBroker(answer, () => fetchPositionsOf(answer.frame, answer.apiVersion));
    if (scanned === null) {
      const decoded = this.#decodeAnswer(answer, decodeOptions);
      return { partitions: decoded.response.topics.flatMap((t) => t.partitions), decoded };
    }
    if (scanned.errorCode) throw answer.connection.brokerError(`Fetch ${answer.topic}`, scanned.errorCode, { topic: answer.topic });
    return { partitions: scanned.partitions, decoded: null };
  }

  // ---- the cluster beside the records: groups, configs, brokers (read, never written) ------------

  /** Every consumer group: [{ groupId, protocolType, state, type, coordinator }] (client/groups.mjs). */
  listGroups(/** @type {SignalOption} */ { signal } = {}) {
    return this.#run('listGroups', signal, (s) => listGroups(this.#admin, s));
  }

  /**
   * One group: its state, members and, per partition, committed offset, end offset, lag in records
   * and in time (client/groups.mjs). options: lagTime (true), topics, signal.
   */
  describeGroup(groupId, /** @type {DescribeGroupOptions} */ { lagTime = true, topics = [], signal } = {}) {
    if (typeof groupId !== 'string' || groupId === '') throw new KafkaClientError('INVALID_ARGUMENT', 'describeGroup: give a group id (a string)');
    return this.#run('describeGroup', signal, (s) => describeGroup(this.#admin, groupId, { lagTime, topics: [].concat(topics), signal: s }));
  }

  /** Resolves once a group's lag is at most `maxLag` (client/wait-for-lag.mjs): for tests. */
  waitForLag(options) {
    return waitForLag(this, options);
  }

  /** The configuration of a topic or a broker: { topic } or { broker } (client/cluster.mjs). */
  configs(/** @type {Partial<Parameters<Declared['configs']>[0]>} */ options = {}) {
    return this.#run('configs', options.signal, (s) => describeConfigs(this.#admin, { ...options, signal: s }));
  }

  /** The cluster's brokers: { clusterId, controllerId, brokers, via } (client/cluster.mjs). */
  brokers(/** @type {SignalOption} */ { signal } = {}) {
    return this.#run('brokers', signal, (s) => brokers(this.#admin, s));
  }

  /** `fn(signal)` as one operation: abandoned by `signal` or close(). */
  async #run(where, signal, fn) {
    const op = this.#operation(signal, where);
    try {
      return await abortable(fn(op.signal), op.signal);
    } finally {
      op.dispose();
    }
  }

  // What the cluster's reads ask of their client (client/groups.mjs, client/cluster.mjs).
  #admin = {
    options: null, // set in the constructor
    anyBroker: (api, build, signal) => this.#anyBroker(api, build, signal),
    connectionTo: (address) => this.#connection(address),
    metadata: (topics, signal) => this.#metadata(topics, signal),
    topic: (name, signal) => this.#topic(name, false, signal),
    listOffsets: (topic, partitions, at, signal) => this.#listOffsets(topic, partitions, kafkaTimestamp(at), 'read_uncommitted', signal),
    fetch: (topic, partitions, options) => this.fetch(topic, partitions, options),
    withRetries: (what, fn, signal) => this.#withRetries(what, fn, signal),
  };

  /**
   * Closes every connection; later calls fail with CLOSED. Consume passes under way end quietly
   * (their loops end), other operations in flight fail with CLOSED.
   */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort(new KafkaClientError('CLOSED', 'the client was closed'));
    for (const c of this.#connections.values()) c.close();
    this.#connections.clear();
    this.#threads?.close();
  }
}

/**
 * `read()` of one Fetch answer, a decoding error naming the broker and the request it answered:
 * the bytes came from there, and a garbage answer otherwise said neither.
 */
function fromBroker({ connection, apiVersion, topic, topicId }, read) {
  try {
    return read();
  } catch (e) {
    if (!(e instanceof KafkaDecodeError) || e.broker) throw e;
    // responses from v13 name topics by id: the name is what the reader knows them by
    const message = topicId ? e.message.replaceAll(`topic ${topicId}`, `topic ${topic}`) : e.message;
    throw new KafkaDecodeError({
      ...e.toJSON(),
      message: `broker ${connection.name} answered Fetch v${apiVersion} of ${topic}: ${message}`,
      broker: connection.name,
    });
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
