// Types of kafka-fetch-decoder, shared by its entries: the build writes them as node.d.cts (require),
// node.d.mts (Node import) and web.d.mts (browsers and bundlers), each with the default export its
// entry really has. int64 values are `number` by default and `bigint` with `int64: 'bigint'`.

export type Int64 = number | bigint;

/**
 * Bytes: a Buffer in Node (a Uint8Array subclass), a Uint8Array elsewhere. Declared Buffer where the
 * Node types are loaded (@types/node), Uint8Array where they are not, so neither needs the other.
 */
export type Bytes = typeof globalThis extends { Buffer: { isBuffer(obj: any): obj is infer B extends Uint8Array } } ? B : Uint8Array;

export interface DecodeOptions {
  /** Checksums: 'verify' (default) throws CRC_MISMATCH, 'report' sets `batch.crcValid = false`, 'skip' does not compute them. */
  crc?: 'verify' | 'report' | 'skip';
  /** 'read_committed' drops records of aborted transactions (needs the partition's abortedTransactions). */
  isolationLevel?: 'read_uncommitted' | 'read_committed';
  /** 'number' (default; a value beyond 2^53 throws RangeError) or 'bigint' for every int64. */
  int64?: 'number' | 'bigint';
  /** Largest decompressed size of one batch, in bytes (default 64 MiB). */
  maxDecompressedBytes?: number;
  /** Largest decompressed size of all batches of one call together (default 256 MiB, at most 2 GiB - 1). */
  maxDecompressedBytesPerCall?: number;
  /**
   * 'throw' (default): an error fails the call. 'partition': a partition that fails keeps the
   * records decoded before the error and carries it in `error`; a response cut short keeps its
   * complete partitions (the response's `error`).
   */
  onError?: 'throw' | 'partition';
  /** Keep control records (transaction markers) in `records` (default false). */
  includeControlRecords?: boolean;
  /**
   * The fastest path (default false): records read their fields straight from wasm memory, valid
   * only until the next call of any decoder; reading them later throws. Copy what you keep.
   */
  transient?: boolean;
  /** Also write the records as Arrow arrays in the call (kafka-fetch-decoder/arrow's toArrow then does no work per record). */
  arrow?: boolean;
}

export interface FetchOptions extends DecodeOptions {
  /** The FetchResponse version the frame was sent with (0 to 18). */
  apiVersion: number;
  /** true (default): the frame starts with the response header (correlation id); false: body only. */
  header?: boolean;
  /**
   * Per topic (name or id) and partition, the offset the fetch asked for: records below it that a
   * batch starting earlier carries are left out of `records`.
   */
  fetchOffsets?: Record<string, Record<number, Int64>> | Map<string, Map<number, Int64> | Record<number, Int64>>;
  /** Names for topic ids (v13+ responses carry ids only), keyed by UUID or by the base64url form Kafka's tools print. */
  topicNames?: Record<string, string> | Map<string, string>;
}

export interface RecordSetOptions extends DecodeOptions {
  /** Records below this offset (in a batch that starts earlier) are left out of `records`. */
  fetchOffset?: Int64;
}

/**
 * `O` with none of the keys `Shape` lacks: a misspelt option is a type error. Options whose type is
 * inferred (for the int64 type they give) are not checked for unknown keys otherwise.
 */
export type Exact<O, Shape> = O & { [K in Exclude<keyof O, keyof Shape>]: never };

/** consume's and waitFor's options, checked as Exact, the decoder and value options inside too. */
export type ExactConsume<O, Shape> = Exact<O, Shape> & {
  decode?: Exact<NonNullable<O extends { decode?: infer D } ? D : never>, DecodeOptions>;
  values?: NonNullable<O extends { values?: infer V } ? V : never> extends ValueDecoder
    ? ValueDecoder
    : Exact<NonNullable<O extends { values?: infer V } ? V : never>, ValueDecoderOptions>;
};

/** The int64 type a call returns: bigint for `int64: 'bigint'`, number for 'number' or none, both when it can be either. */
export type Int64Of<O> = O extends { int64?: infer M } ? (M extends 'bigint' ? bigint : M extends 'number' | undefined ? number : number | bigint) : number;

export type Compression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
export type TimestampType = 'NO_TIMESTAMP' | 'CREATE_TIME' | 'LOG_APPEND_TIME';
export type ControlType = 'ABORT' | 'COMMIT' | 'LEADER_CHANGE' | 'SNAPSHOT_HEADER' | 'SNAPSHOT_FOOTER' | 'KRAFT_VERSION' | 'KRAFT_VOTERS' | 'UNKNOWN';

/** One record batch (magic 2) or legacy message (magic 0/1); shared by all of its records. */
export interface Batch<T extends Int64 = number> {
  baseOffset: T;
  lastOffset: T;
  partitionLeaderEpoch: number;
  producerId: T;
  producerEpoch: number;
  baseSequence: number;
  isTransactional: boolean;
  isControl: boolean;
  /** Its records belong to an aborted transaction (the Java consumer's read_committed rule). */
  isAborted: boolean;
  /** Attribute bit 6: baseTimestamp is the delete horizon of a compacted batch. */
  hasDeleteHorizon: boolean;
  compression: Compression;
  timestampType: TimestampType;
  magic: number;
  /** false: checksum mismatch (crc 'report'); null: not checked (crc 'skip'). */
  crcValid: boolean | null;
  baseTimestamp: T;
  maxTimestamp: T;
  /** Records the batch header declares. */
  recordCount: number;
  /** Bytes of the batch on the wire. */
  sizeInBytes: number;
  /** Bytes of its records after decompression. */
  uncompressedSize: number;
  /** Byte position of the batch in the input. */
  position: number;
}

export interface Header {
  key: string;
  value: Bytes | null;
}

/** A record; its fields are its own properties (ordinary data for structured clone and postMessage). */
export declare class KafkaRecord<T extends Int64 = number> {
  private constructor();
  readonly offset: T;
  /** Milliseconds since the epoch (-1 for magic 0 messages). */
  readonly timestamp: T;
  /** Views onto the input frame (uncompressed batches) or onto the call's copy of the decompressed bytes. */
  readonly key: Bytes | null;
  readonly value: Bytes | null;
  /** In wire order, duplicate keys kept. */
  readonly headers: readonly Header[];
  /** The record's batch, one object shared by the records of a batch. */
  readonly batch: Batch<T>;
  readonly leaderEpoch: number;
  readonly isControl: boolean;
  /** 'ABORT', 'COMMIT', ... for control records, else null. */
  readonly controlType: ControlType | null;
  /** The key as UTF-8 text (null for a null key). */
  keyText(): string | null;
  /** The value as UTF-8 text (null for a null value). */
  valueText(): string | null;
  /** The value parsed as JSON (null for a null value). */
  valueJson(): unknown;
  /** The last value of header `key` (null for a null value), undefined when there is none. */
  header(key: string): Bytes | null | undefined;
  /** Every value of header `key`, in wire order. */
  headerValues(key: string): (Bytes | null)[];
  /** A plain object with every field and its own copies of the bytes. */
  toObject(): {
    offset: T;
    timestamp: T;
    key: Bytes | null;
    value: Bytes | null;
    headers: Header[];
    batch: Batch<T>;
    leaderEpoch: number;
    isControl: boolean;
    controlType: ControlType | null;
  };
  /** The JSON form: int64 as numbers (BigInts as strings), bytes as base64 (null for null), no batch. */
  toJSON(): RecordJson;
  /** The key decoded, once a ValueDecoder attached it (`attach`, or consume's `values`). */
  decodedKey?: DecodedSide<T>;
  /** The value decoded, once a ValueDecoder attached it. */
  decodedValue?: DecodedSide<T>;
}

export interface RecordJson {
  offset: number | string;
  timestamp: number | string;
  key: string | null;
  value: string | null;
  headers: { key: string; value: string | null }[];
  leaderEpoch: number;
  isControl?: true;
  controlType?: ControlType;
}

/** A decoding error as data (the fields of KafkaDecodeError). */
export interface DecodeErrorInfo {
  code: DecodeErrorCode;
  offset: number;
  message: string;
  topic: string | null;
  partition: number | null;
  batchOffset: string | null;
  hint: string | null;
}

/** A partition's records, or a bare record set's. */
export interface RecordSet<T extends Int64 = number> {
  /** Built the first time it is read. */
  readonly records: KafkaRecord<T>[];
  batches: Batch<T>[];
  /** The input ends with an incomplete batch, which was ignored. */
  partial: boolean;
  /** Last complete batch's last offset + 1, or null when no batch is complete. */
  nextOffset: T | null;
  /** With onError 'partition': the error that ended this record set early, else null. */
  error: DecodeErrorInfo | null;
  /** The number of records, without building them. */
  readonly recordCount: number;
  /** Record `i` (0-based), built on its own. */
  record(i: number): KafkaRecord<T>;
}

export interface AbortedTransaction<T extends Int64 = number> {
  producerId: T;
  firstOffset: T;
}

export interface FetchPartition<T extends Int64 = number> extends RecordSet<T> {
  partition: number;
  errorCode: number;
  /** The Kafka name of errorCode ('NONE', 'NOT_LEADER_OR_FOLLOWER', ...). */
  errorName: string;
  highWatermark: T;
  /** null where the version lacks the field (v0-3). */
  lastStableOffset: T | null;
  /** null before v5. */
  logStartOffset: T | null;
  /** null before v4, or when the broker sent a null list. */
  abortedTransactions: AbortedTransaction<T>[] | null;
  /** null before v11. */
  preferredReadReplica: number | null;
  divergingEpoch: { epoch: number; endOffset: T } | null;
  currentLeader: { leaderId: number; leaderEpoch: number } | null;
  snapshotId: { endOffset: T; epoch: number } | null;
}

export interface FetchTopic<T extends Int64 = number> {
  /** Topic name (v0-12, or from the topicNames option), else null. */
  topic: string | null;
  /** Topic id as a UUID string (v13+), else null. */
  topicId: string | null;
  partitions: FetchPartition<T>[];
}

export interface FetchResponse<T extends Int64 = number> {
  /** null when decoded with `header: false`. */
  correlationId: number | null;
  throttleTimeMs: number | null;
  errorCode: number | null;
  errorName: string | null;
  sessionId: number | null;
  topics: FetchTopic<T>[];
  nodeEndpoints: { nodeId: number; host: string; port: number; rack: string | null }[];
  /** Bytes after the last field, ignored as Java does (usually a wrong api version, or a capture glued to the next frame). */
  trailingBytes: number;
  /** What the frame most likely is, when bytes were left over or it was cut short. */
  hint: string | null;
  /** With onError 'partition': the error that cut the response short, else null. */
  error: DecodeErrorInfo | null;
}

export type Input = Uint8Array | ArrayBuffer | ArrayBufferView;

export declare function decodeFetchResponse<const O extends FetchOptions>(frame: Input, options: Exact<O, FetchOptions>): FetchResponse<Int64Of<O>>;
export declare function decodeRecordSet<const O extends RecordSetOptions = {}>(bytes: Input, options?: Exact<O, RecordSetOptions>): RecordSet<Int64Of<O>>;

/** A decoder. All decoders share one wasm-side decoder; creating many costs nothing. */
export declare class FetchDecoder {
  constructor();
  decodeFetchResponse<const O extends FetchOptions>(frame: Input, options: Exact<O, FetchOptions>): FetchResponse<Int64Of<O>>;
  decodeRecordSet<const O extends RecordSetOptions = {}>(bytes: Input, options?: Exact<O, RecordSetOptions>): RecordSet<Int64Of<O>>;
  /** Ends this decoder: later calls throw. */
  free(): void;
}

/** The message toTransferable makes of a result: structured-clone data, opaque apart from its kind. */
export interface TransferableData<K extends 'response' | 'recordSet' = 'response' | 'recordSet'> {
  kafkaFetchDecoder: 1;
  kind: K;
}

/** What toTransferable returns: `postMessage(data, transfer)`, then `fromTransferable(data)` on the other side. */
export interface Transferable<K extends 'response' | 'recordSet' = 'response' | 'recordSet'> {
  data: TransferableData<K>;
  transfer: ArrayBuffer[];
}

/** A whole result as one message plus the buffers to transfer (the result is unusable here afterwards). */
export declare function toTransferable(result: FetchResponse<Int64>): Transferable<'response'>;
export declare function toTransferable(result: RecordSet<Int64>): Transferable<'recordSet'>;
export declare function toTransferable(result: FetchResponse<Int64> | RecordSet<Int64>): Transferable;
/**
 * Rebuilds a result sent with toTransferable (works without loading the wasm module). Message data
 * typed `any` (a MessageEvent's) is taken for a fetch response; T is bigint for results decoded with
 * `int64: 'bigint'`.
 */
export declare function fromTransferable<T extends Int64 = number>(data: TransferableData<'response'>): FetchResponse<T>;
export declare function fromTransferable<T extends Int64 = number>(data: TransferableData<'recordSet'>): RecordSet<T>;
export declare function fromTransferable<T extends Int64 = number>(data: TransferableData): FetchResponse<T> | RecordSet<T>;

/** One record set's records in a RecordColumns: positions `start` to `end - 1`. */
export interface RecordColumnsSet<T extends Int64 = number> {
  /** The topic's name (null for a bare record set, or a topic id the call could not name). */
  topic: string | null;
  topicId?: string | null;
  /** null for a bare record set. */
  partition: number | null;
  set: RecordSet<T>;
  start: number;
  end: number;
}

/**
 * A result's records as columns, by position (the call's own arrays: nothing is built per record
 * until asked). Positions outside every set's range are records a batch carried from before the
 * fetch offset.
 */
export declare class RecordColumns<T extends Int64 = number> {
  readonly sets: RecordColumnsSet<T>[];
  /** How many positions there are. */
  readonly length: number;
  readonly offsets: T extends bigint ? BigInt64Array : Float64Array;
  readonly timestamps: T extends bigint ? BigInt64Array : Float64Array;
  /** Each position's batch, as an index into `batches`. */
  readonly batchIndex: Uint32Array;
  readonly batches: Batch<T>[];
  /** The key's bytes (null for a null key). */
  key(i: number): Bytes | null;
  /** The value's bytes (null for a null value). */
  value(i: number): Bytes | null;
  /** The key's length in bytes, -1 for a null key. */
  keyLength(i: number): number;
  /** The value's length in bytes, -1 for a null value. */
  valueLength(i: number): number;
  headerCount(i: number): number;
  /** The headers in wire order, duplicates kept. */
  headers(i: number): Header[];
  /** The bytes of the headers: their keys' UTF-8 and their values. */
  headerBytes(i: number): number;
  /** A control record's type, null for a data record. */
  controlType(i: number): ControlType | null;
  /** The record at position `i` as an ordinary object. */
  record(i: number): KafkaRecord<T>;
}

/**
 * The records of a result (of decodeFetchResponse, decodeRecordSet or fromTransferable) as columns,
 * for reading many records without an object each. A transient result's are valid until the next call.
 */
export declare function recordColumns<T extends Int64>(result: FetchResponse<T> | RecordSet<T>): RecordColumns<T>;

/** What recordJson, csvRow and jsonWithDecoded read of a record: a KafkaRecord, or an object with its fields. */
export type RecordFields<T extends Int64 = Int64> = Pick<
  KafkaRecord<T>,
  'offset' | 'timestamp' | 'key' | 'value' | 'headers' | 'leaderEpoch' | 'isControl' | 'controlType' | 'decodedKey' | 'decodedValue'
> & {
  batch: Pick<Batch<T>, 'compression' | 'isAborted' | 'crcValid'>;
};
/** How recordJson and csvRow write bytes: base64 (default), hex, or UTF-8 text (bytes that are not: { base64 }). */
export type ByteEncoding = 'base64' | 'hex' | 'utf8';
/** The object of a record's JSON line, as the CLI's --json writes it (int64 values as strings). */
export declare function recordJson(
  topic: string | null,
  partition: number | string | null,
  record: RecordFields,
  encoding?: ByteEncoding,
): Record<string, unknown>;
/** recordJson's object with the decoded key and value in place of their bytes (and their formats), as `--json --values` writes it. */
export declare function jsonWithDecoded(json: Record<string, unknown>, record: RecordFields): Record<string, unknown>;
/** The CSV header line of csvRow (with the decoded sides' format columns when `decoded`). */
export declare function csvHeader(decoded: boolean): string;
/** A record as a CSV line, as the CLI's --format csv writes it (cells a spreadsheet would run as formulas get a leading '). */
export declare function csvRow(
  topic: string | null,
  partition: number | string | null,
  record: RecordFields,
  encoding: ByteEncoding | undefined,
  decoded: boolean,
  keepFormulas?: boolean,
): string;

/** The Kafka name of an error code: 'NOT_LEADER_OR_FOLLOWER' for 6. */
export declare function errorName(code: number): string;

/** What this build knows of Kafka's protocol (a copy; read from the wasm module). */
export interface ProtocolInfo {
  /** The FetchResponse versions the decoder reads. */
  fetchResponseVersions: { min: number; max: number };
  /** The first Fetch version that names topics by id instead of by name. */
  fetchTopicIdsFrom: number;
  /** The apis the live client speaks, with the versions it speaks of each; `read`: the relay forwards it. */
  apis: { apiKey: number; api: string; minVersion: number; maxVersion: number; firstFlexibleVersion: number | null; read: boolean }[];
  /** Kafka's request names by api key ('Produce' at 0). */
  apiNames: string[];
  /** Kafka's error names by code ({ '-1': 'UNKNOWN_SERVER_ERROR', '0': 'NONE', ... }). */
  errorNames: Record<string, string>;
}

/** What this build knows of Kafka's protocol: versions, api names, error names. */
export declare function protocolInfo(): ProtocolInfo;

export type DecodeErrorCode =
  'TRUNCATED' | 'CORRUPT' | 'CRC_MISMATCH' | 'UNSUPPORTED_VERSION' | 'UNSUPPORTED_COMPRESSION' | 'DECOMPRESSION_LIMIT' | 'INVALID_ARGUMENT' | 'OUT_OF_MEMORY';

export declare class KafkaDecodeError extends Error {
  readonly code: DecodeErrorCode;
  /** Byte position in the input. */
  readonly offset: number;
  readonly topic: string | null;
  readonly partition: number | null;
  readonly batchOffset: string | null;
  /** What the input most likely is when it does not decode as asked (another api version, the size prefix, ...). */
  readonly hint: string | null;
  /** The live client's: the broker ('host:port') whose Fetch answer it was; null for bytes given to a decode call. */
  readonly broker: string | null;
  toJSON(): DecodeErrorInfo & { name: 'KafkaDecodeError'; broker: string | null };
}

/** The module's WebAssembly.Memory (to watch it stop growing); a new one after a failure inside wasm, which starts the module over. */
export declare function wasmMemory(): WebAssembly.Memory;

/** What init() takes: where the .wasm is (URL or path string), its response, its bytes, or the compiled module. */
export type InitInput = string | URL | Request | Response | BufferSource | WebAssembly.Module;

// ---- live reading --------------------------------------------------------------------------------

export interface KafkaClientOptions {
  /** 'host:port,host:port' or an array of 'host:port'; optional with a relay (it has its own). */
  bootstrap?: string | string[];
  clientId?: string;
  /** Node: true, or node:tls options ({ ca, cert, key, servername, rejectUnauthorized }). */
  tls?: boolean | Record<string, unknown>;
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  /** How long a broker may take to answer (default 30000). */
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  /**
   * How long to keep trying to reach a cluster that does not answer yet (a broker still starting):
   * refused, silent or unreachable bootstrap brokers are tried again with a growing pause of at most
   * 1 s. Default 0: fail at once.
   */
  connectRetryMs?: number;
  /** The largest response frame accepted (default 100 MiB). */
  maxFrameBytes?: number;
  /** Retries of a failed request or fetch, with growing backoff (default 10). */
  retries?: number;
  retryBackoffMs?: number;
  /** The relay's WebSocket URL (`kafka-fetch-decoder relay` or `ui`): how browsers reach brokers. */
  relay?: string;
  /** A WebSocket class, where the runtime has none (Node uses the ws package). */
  webSocket?: unknown;
  /** How to reach brokers (default: TCP/TLS in Node, the relay in browsers). */
  transport?: unknown;
  /**
   * Node: decode fetch responses on this many worker threads (each with its own wasm instance, shared
   * by the process's clients) while the calling thread reads sockets and hands out records; results
   * are kept, never transient. Default 0: on the calling thread. Browsers: run the client in a worker.
   */
  decodeThreads?: number;
}

export type OffsetSpec = 'earliest' | 'latest' | number | bigint | string | Date | { time: number } | { last: number | bigint };

export interface ConsumeOptions {
  topic: string;
  /** Default: every partition. */
  partitions?: number[];
  /** 'earliest' (default), 'latest', an offset, { last: N } or -N (the last N offsets of each partition), or a time (the first record at or after it). */
  from?: OffsetSpec;
  /** Stop at the end offsets seen at the start (high watermarks; last stable offsets under read_committed). */
  untilEnd?: boolean;
  /**
   * Where each partition ends, records at or past it left out: 'end' (as untilEnd), an offset, or a
   * time (a Date, { time: ms } or an ISO-8601 string: the first record stamped at or after it ends
   * its partition; a partition without one ends at the end it has once the time has come).
   */
  until?: 'end' | number | bigint | string | Date | { time: number };
  maxRecords?: number;
  isolationLevel?: 'read_uncommitted' | 'read_committed';
  /** What an out-of-range offset does: 'error' (default), or start again at 'earliest' / 'latest'. */
  offsetReset?: 'error' | 'earliest' | 'latest';
  maxWaitMs?: number;
  /** Per partition and fetch (default 1 MiB; grown when one batch is larger). */
  partitionMaxBytes?: number;
  fetchMaxBytes?: number;
  /** Decoder options for the fetch responses (crc, int64, maxDecompressedBytes, ...); `transient` does not apply: consume's results are always kept. */
  decode?: DecodeOptions;
  /** Every fetch response as received (the raw frame, e.g. to save a capture) and as decoded (which the callback may keep, or move with toTransferable: reading the chunks' records then throws, saying they moved); `taken`: how many of each partition's first records the pass hands out (the others lie past `untilEnd`, `until` or `maxRecords`). */
  onResponse?: (response: {
    broker: string;
    apiVersion: number;
    frame: Uint8Array;
    request: unknown;
    response: FetchResponse<Int64>;
    taken: Map<number, number>;
  }) => void;
  /** After a fetch round that brought nothing: the partitions the pass waits on (at the broker's end, not at their own). */
  onWait?: (waiting: { topic: string; partitions: number[] }) => void;
  /** Decode keys and values too: each record handed out has decodedKey and decodedValue (a ValueDecoder, or its options; int64 follows `decode`). */
  values?: ValueDecoder | ValueDecoderOptions;
  /** Its abort ends the iterator with the signal's reason (close() ends it too, quietly: the loop just ends). */
  signal?: AbortSignal;
}

export interface WaitForOptions extends Omit<ConsumeOptions, 'from'> {
  /** Whether a record is the one awaited (default: any record). */
  match?: (record: KafkaRecord<Int64>, chunk: ConsumedChunk<Int64>) => boolean | Promise<boolean>;
  /** Rejects with TIMEOUT after this long (default 30000). */
  timeoutMs?: number;
  /** Where to start reading (default 'earliest'). */
  from?: OffsetSpec;
}

export interface ConsumedChunk<T extends Int64 = Int64> {
  topic: string;
  partition: number;
  /**
   * In offset order; none below the start, no control records. Built when first read and kept by
   * the chunk until the iterator moves on: read after that, they are built again (equal records,
   * new objects, with the decoded keys and values they had), so keep the array itself if you need it later.
   */
  readonly records: KafkaRecord<T>[];
  /** How many records `records` holds (without building them). */
  recordCount: number;
  /** The broker the records came from: 'host:port', and its node id. */
  broker: string;
  brokerId: number;
  highWatermark: T;
  lastStableOffset: T | null;
  logStartOffset: T | null;
  nextOffset: T | null;
}

export interface TopicMetadata {
  topic: string | null;
  topicId: string | null;
  errorCode: number;
  errorName: string;
  isInternal: boolean;
  partitions: {
    partition: number;
    leader: number;
    leaderEpoch: number;
    replicas: number[];
    isr: number[];
    offlineReplicas: number[];
    errorCode: number;
    errorName: string;
  }[];
}

export type ScanStop = 'end' | 'limit' | 'time' | 'pruned' | 'error' | 'interrupted';
export type ScanAggregate = 'count' | 'per-minute' | 'per-hour' | 'distinct-keys' | 'top-keys' | 'sizes';

/** What a DistinctKeys counter says: exact while there are at most 10,000 keys, then a HyperLogLog estimate. */
export type DistinctKeysResult = { keys: number; exact: true } | { keys: number; exact: false; standardError: number };

/** A DistinctKeys counter's state as plain data (structured-clonable), for another counter's merge(). */
export interface DistinctKeysPartial {
  exact: string[] | null;
  registers: Uint8Array;
}

/**
 * Counts distinct keys (the scan's 'distinct-keys' aggregate): exactly while there are at most
 * 10,000, then by HyperLogLog (2^14 registers, 0.81% standard error) over Kafka's murmur2 of the
 * key's bytes. Counters made apart (one per worker) merge into what one counter would say.
 */
export declare class DistinctKeys {
  /** Counts a key (its bytes are read, not kept). */
  add(key: Uint8Array): void;
  /** This counter's state, for another counter's merge (postMessage carries it). */
  partial(): DistinctKeysPartial;
  /** Takes in another counter's partial(). */
  merge(partial: DistinctKeysPartial): void;
  result(): DistinctKeysResult;
}

/** A scan's ranges: [from, to) offsets per partition, cut to a bounded size (JSON; offsets as numbers). */
export interface ScanPlan {
  format: 'kafka-fetch-decoder/scan-plan';
  version: 1;
  topics: string[];
  isolationLevel: 'read_uncommitted' | 'read_committed';
  key: { base64: string } | null;
  keyPruning: boolean;
  rangeRecords: number;
  ranges: { topic: string; partition: number; from: number | bigint; to: number | bigint; bound: 'end' | 'offset' | 'time' | 'range'; pruned?: true }[];
}

/** What a scan covered: per range, [from, next) read completely, and why it stopped. */
export interface ScanCoverage {
  complete: boolean;
  partitions: {
    topic: string;
    partition: number;
    from: number;
    to: number;
    next: number;
    records: number;
    matches: number;
    stop: ScanStop;
    bound?: string;
    error?: { code: string | null; message: string };
  }[];
  scan: { format: 'kafka-fetch-decoder/scan-coverage'; version: 1; [k: string]: unknown };
}

export interface ScanOptions {
  /** The topics to scan (or a plan, or a coverage to resume). */
  topics?: string | string[];
  topic?: string;
  /** Partitions to read (default all). */
  partitions?: number[];
  /** Where each partition starts: as consume's `from` (default 'earliest'). */
  from?: OffsetSpec;
  /** Where each partition ends: 'end' (default: the end offsets seen at the start), an offset or a time. */
  until?: 'end' | number | bigint | string | Date | { time: number };
  isolationLevel?: 'read_uncommitted' | 'read_committed';
  /** Only records with this key (text: its UTF-8 bytes), read from the partition Kafka's default partitioner puts it in. */
  key?: string | Uint8Array;
  /** false: read every partition for `key` (a topic written with another partitioner). */
  keyPruning?: boolean;
  /** Offsets per range when planning (default 100000). */
  rangeRecords?: number;
  /** A plan made before (its JSON text or object), instead of planning now. */
  plan?: ScanPlan | string;
  /** A share of the plan: 'I/N' or { index, count }, 0-based. */
  shard?: string | { index: number; count: number };
  /** A coverage to continue exactly where it stopped (its JSON text or object). */
  resume?: ScanCoverage | string;
  /** Records whose key, value or a header holds this text, or match /REGEX/FLAGS. */
  grep?: string;
  /** Where grep looks: key, value, headers or header:NAME, comma-separated. */
  grepIn?: string;
  /** The Where language: a field path compared with a value, e.g. 'value.customer.id == 42'. */
  where?: string;
  /** A Where test that throws stops the scan (default: no match). */
  strict?: boolean;
  /** How keys and values decode (ValueDecoder's options; plain data: they go to the workers). */
  values?: ValueDecoderOptions;
  crc?: 'verify' | 'report' | 'skip';
  /** The records' int64 values: 'number' (default) or 'bigint'. */
  int64?: 'number' | 'bigint';
  /** Stop after this many matches (the coverage says where: resume continues after them). */
  limit?: number;
  /** Aggregates over the matches, made in the workers. */
  aggregate?: ScanAggregate[];
  /** The latest record per key (a tombstone removes it), as of a time or of the scan. */
  latestPerKey?: true | { asOf?: number | string | Date };
  /** Worker threads (default: the cores available). */
  workers?: number;
  /** How matches come back: 'records' (default: KafkaRecords), 'arrow' (a chunk's matches as Arrow IPC bytes), 'none' (aggregates only). */
  output?: 'records' | 'arrow' | 'none';
  /** Plain data handed to every worker's session (a worker module of one's own reads it: runScanWorker). */
  workerData?: unknown;
  /** Called now and then (at most every 250 ms) with the coverage so far. */
  onProgress?: (coverage: ScanCoverage) => void;
  /** Browsers: starts one scan worker, e.g. () => new Worker(new URL('kafka-fetch-decoder/scan-worker', import.meta.url), { type: 'module' }). Node uses worker threads. */
  startWorker?: () => Worker;
  /** Its abort stops the scan: ranges stop where they are ('interrupted'), the coverage says where. */
  signal?: AbortSignal;
}

/** A scan's matches of one partition, in offset order: records, or (output 'arrow') an Arrow IPC table. */
export type ScanMatches<T extends Int64 = Int64> =
  { topic: string; partition: number; records: KafkaRecord<T>[] } | { topic: string; partition: number; ipc: Uint8Array };

/** A scan under way: its matches as an async iterator, then its coverage, aggregates and latest records. */
export interface Scan<T extends Int64 = Int64> extends AsyncIterable<ScanMatches<T>> {
  /** The plan run (once made; null when resuming a coverage). */
  readonly plan: ScanPlan | null;
  /** By name, once the scan ended (null without `aggregate`). */
  readonly aggregates: Record<string, unknown> | null;
  /** The latest record per key, once the scan ended (latestPerKey). */
  readonly latest: { topic: string; partition: number; record: KafkaRecord<T> }[] | null;
  /** Resolves when the scan ends (rejects with its error). */
  readonly done: Promise<{
    coverage: ScanCoverage;
    aggregates: Record<string, unknown> | null;
    latest: { topic: string; partition: number; record: KafkaRecord<T> }[] | null;
  }>;
  /** The coverage so far. */
  coverage(): ScanCoverage | null;
  [Symbol.asyncIterator](): AsyncIterator<ScanMatches<T>>;
}

/** A record as the Where language reads it: key and value as data (decoded, else JSON, else text), headers by name. */
export interface RecordView {
  topic: string | null;
  partition: number | null;
  offset: number | bigint;
  timestamp: number;
  key: unknown;
  value: unknown;
  headers: Record<string, string | { base64: string } | null>;
  headerList: { key: string; value: string | { base64: string } | null }[];
}

/**
 * Parses a Where expression ('value.customer.id == 42 && headers.region ~ "eu"'); throws an Error
 * saying where it is wrong. `skip(raw)`, when there, is true of a record (its raw key and value
 * bytes) that cannot match when keys and values are read as JSON or text: no need to read it.
 */
export declare function parseWhere(
  source: string,
): ((record: RecordView) => boolean) & { skip: ((raw: { key: Uint8Array | null; value: Uint8Array | null }) => boolean) | null };

/**
 * An inspection reader for live topics: partitions from offsets, no consumer group, no commits, no
 * produce; it reads the cluster beside them (groups and their lag, configs, brokers) without joining
 * or altering anything.
 */
export declare class KafkaClient {
  constructor(options: KafkaClientOptions);
  /** Brokers and topics (every topic when omitted); `signal` abandons the request. */
  metadata(
    topics?: string | string[] | null,
    options?: { signal?: AbortSignal },
  ): Promise<{
    clusterId: string | null;
    controllerId: number | null;
    broker: string;
    brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
    topics: TopicMetadata[];
  }>;
  /**
   * Offsets at 'earliest', 'latest' or a time, per partition: numbers, or BigInts with int64:
   * 'bigint' (as records' int64 values). A time no record is stamped at or after gives offset -1.
   */
  listOffsets<const O extends ListOffsetsOptions = {}>(
    topic: string,
    options?: Exact<O, ListOffsetsOptions>,
  ): Promise<Map<number, { offset: Int64Of<O>; timestamp: Int64Of<O> }>>;
  /** One Fetch of the given partitions from their leaders: one entry per leader. */
  fetch(
    topic: string,
    partitions: { partition: number; offset: number | bigint; maxBytes?: number }[],
    options?: {
      maxWaitMs?: number;
      minBytes?: number;
      maxBytes?: number;
      isolationLevel?: 'read_uncommitted' | 'read_committed';
      decode?: DecodeOptions;
      raw?: boolean;
      signal?: AbortSignal;
    },
  ): Promise<{ broker: string; brokerId: number; apiVersion: number; frame?: Uint8Array; request: unknown; response: FetchResponse<Int64> }[]>;
  /** Consumes partitions from chosen positions. */
  consume<const O extends ConsumeOptions>(options: ExactConsume<O, ConsumeOptions>): AsyncIterableIterator<ConsumedChunk<Int64Of<O['decode']>>>;
  /**
   * The first record `match` accepts, read from `from` (default 'earliest'); rejects with TIMEOUT
   * after `timeoutMs` (default 30000), NOT_FOUND when the pass ends first (until, untilEnd). For tests:
   * `await client.waitFor({ topic: 'orders', match: (r) => r.keyText() === id })`.
   */
  waitFor<const O extends WaitForOptions>(
    options: ExactConsume<O, WaitForOptions>,
  ): Promise<{ topic: string; partition: number; record: KafkaRecord<Int64Of<O['decode']>> }>;
  /** Every consumer group of the cluster (ListGroups at each broker), sorted by id. */
  listGroups(options?: { signal?: AbortSignal }): Promise<ListedGroup[]>;
  /**
   * One group at its coordinator: state, members and, per partition, committed offset, end offset
   * (ListOffsets latest) and lag, in records and in time. Read, never joined.
   */
  describeGroup(groupId: string, options?: DescribeGroupOptions): Promise<GroupDescription>;
  /**
   * Resolves once the group's lag (summed over its partitions; with `topics`, over every
   * partition of them, a partition without a committed offset lagging by all its records) is at
   * most `maxLag`; rejects with TIMEOUT after `timeoutMs` (default 30000), saying the lag last
   * seen. For tests: `await client.waitForLag({ group: 'billing', topics: ['orders'] })`.
   */
  waitForLag(options: WaitForLagOptions): Promise<GroupDescription & { lag: number }>;
  /** The configuration of a topic or of a broker (asked of that broker). */
  configs(
    options: ({ topic: string; broker?: undefined } | { broker: number | string; topic?: undefined }) & {
      synonyms?: boolean;
      documentation?: boolean;
      signal?: AbortSignal;
    },
  ): Promise<ResourceConfig>;
  /** The cluster's brokers: DescribeCluster where the broker offers it, else Metadata. */
  brokers(options?: {
    signal?: AbortSignal;
  }): Promise<{
    clusterId: string | null;
    controllerId: number | null;
    brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
    via: 'DescribeCluster' | 'Metadata';
  }>;
  /** Scans whole topics on worker threads (Node): matches, coverage, aggregates; plans, shards and resume. */
  scan<const O extends ScanOptions>(options: O): Scan<Int64Of<O>>;
  /** Closes the connections: consume loops under way end (quietly), other calls in flight and later fail with CLOSED. */
  close(): void;
}

export interface ListedGroup {
  groupId: string;
  /** 'consumer' for consumers' groups; '' for a group that only commits offsets. */
  protocolType: string;
  /** From ListGroups v4 ('Stable', 'Empty', ...); null before. */
  state: string | null;
  /** From ListGroups v5: 'classic' | 'consumer' | 'share'; null before. */
  type: string | null;
  /** The node id of the broker that listed it (its coordinator). */
  coordinator: number;
}

export interface DescribeGroupOptions {
  /** Measure the lag in time too: one Fetch of the first record not consumed of each lagging partition (default true). */
  lagTime?: boolean;
  /** Every partition of these topics and no other, their offsets asked for by partition. */
  topics?: string | string[];
  signal?: AbortSignal;
}

export interface GroupMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rackId: string | null;
  /** A KIP-848 member's epoch; null in a classic group. */
  memberEpoch: number | null;
  /** The topics it subscribes to (a classic member's, decoded from the consumer protocol); null when unknown. */
  subscription: { topics: string[]; topicRegex: string | null } | null;
  assignment: { topic: string; partition: number }[];
  /** A KIP-848 member's target assignment; null in a classic group. */
  targetAssignment: { topic: string; partition: number }[] | null;
  /** Why its bytes did not decode as the consumer protocol's, if they did not. */
  decodeError?: string;
}

export interface GroupPartition {
  topic: string;
  partition: number;
  /** The next offset the group reads; null when it committed none. */
  committedOffset: number | null;
  metadata: string | null;
  /** ListOffsets latest (null when the topic is gone). */
  endOffset: number | null;
  /** endOffset - committedOffset; null without either. */
  lag: number | null;
  /** How long the first record not consumed has waited (0 at no lag); null where it cannot be read. */
  lagMs: number | null;
  /** The member it is assigned to, if known. */
  memberId: string | null;
  clientId: string | null;
  clientHost: string | null;
}

export interface GroupDescription {
  groupId: string;
  /** 'consumer' (KIP-848, ConsumerGroupDescribe) or 'classic' (DescribeGroups); null when the broker offers neither. */
  type: 'classic' | 'consumer' | null;
  state: string | null;
  protocolType: string | null;
  /** The assignor. */
  protocol: string | null;
  coordinator: { nodeId: number; host: string; port: number };
  /** null when the coordinator describes no group (it offers neither api). */
  members: GroupMember[] | null;
  partitions: GroupPartition[];
  /** The sum of the partitions' lag. */
  totalLag: number;
}

export interface WaitForLagOptions {
  group: string;
  /** Default 0. */
  maxLag?: number;
  /** Count every partition of these topics (name what the group reads, so that a group that has not committed yet is not taken as caught up). */
  topics?: string[];
  /** Default 30000. */
  timeoutMs?: number;
  /** Default 500. */
  intervalMs?: number;
  signal?: AbortSignal;
}

export interface ResourceConfig {
  resourceType: 'TOPIC' | 'BROKER' | string;
  resourceName: string;
  configs: {
    name: string;
    /** null when sensitive. */
    value: string | null;
    /** Kafka's name: 'DYNAMIC_TOPIC_CONFIG', 'STATIC_BROKER_CONFIG', 'DEFAULT_CONFIG', ... */
    source: string;
    isDefault: boolean;
    isSensitive: boolean;
    readOnly: boolean;
    /** 'BOOLEAN', 'STRING', 'INT', 'LONG', ... (from DescribeConfigs v3); null before. */
    type: string | null;
    documentation: string | null;
    synonyms: { name: string; value: string | null; source: string }[];
  }[];
}

export interface ListOffsetsOptions {
  partitions?: number[];
  at?: 'earliest' | 'latest' | number | string | Date | { time: number };
  isolationLevel?: 'read_uncommitted' | 'read_committed';
  /** 'number' (default; an error beyond 2^53) or 'bigint'. */
  int64?: 'number' | 'bigint';
  signal?: AbortSignal;
}

export type KafkaClientErrorCode =
  | 'BOOTSTRAP'
  | 'CONNECTION'
  | 'TLS'
  | 'TIMEOUT'
  | 'AUTHENTICATION'
  | 'BROKER_ERROR'
  | 'UNKNOWN_TOPIC'
  | 'OFFSET_OUT_OF_RANGE'
  | 'FRAME_TOO_LARGE'
  | 'PROTOCOL'
  | 'NOT_KAFKA'
  | 'NO_PROGRESS'
  | 'UNSUPPORTED_VERSION'
  | 'CLOSED'
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'ORIGIN_REFUSED';

export declare class KafkaClientError extends Error {
  readonly code: KafkaClientErrorCode;
  /** 'host:port' of the broker it happened with. */
  readonly broker: string | null;
  readonly topic: string | null;
  readonly partition: number | null;
  /** A broker's error code and its Kafka name. */
  readonly errorCode: number | null;
  readonly errorName: string | null;
  /** Its fields as data (JSON.stringify leaves an Error's out). */
  toJSON(): {
    name: 'KafkaClientError';
    code: KafkaClientErrorCode;
    message: string;
    broker: string | null;
    topic: string | null;
    partition: number | null;
    errorCode: number | null;
    errorName: string | null;
  };
}

/** Splits a byte stream into Kafka's size-prefixed frames. */
export declare class FrameSplitter {
  constructor(options?: { maxFrameBytes?: number });
  /** Bytes held towards the next frame. */
  readonly pending: number;
  /** Feeds a chunk; returns the frames it completed (each without its size prefix). */
  push(chunk: Uint8Array): Uint8Array[];
}

/** The client side of a SCRAM exchange (RFC 5802), as the client uses it. */
export declare function scramClient(
  mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512',
  credentials: { username: string; password: string },
  nonce?: string,
): {
  first(): Uint8Array;
  final(serverFirst: Uint8Array): Promise<Uint8Array>;
  verify(serverFinal: Uint8Array): void;
};

/** How a key or value is read: `auto` tries the registry's schema (framed bytes), then JSON, then UTF-8 text, then a MessagePack map or array (the bytes whole), then Protobuf without a schema, and keeps the bytes. */
export type ValueFormat = 'auto' | 'avro' | 'protobuf' | 'json-schema' | 'json' | 'text' | 'msgpack' | 'protobuf-raw' | 'bytes';
export declare const VALUE_FORMATS: readonly ValueFormat[];

/** Why a side did not decode (LIMIT: past a bound of the value layer: the value, or its schema's references). */
export type ValueErrorCode = 'FRAMING' | 'REGISTRY' | 'SCHEMA' | 'NO_SCHEMA' | 'UNLOADED' | 'DECODE' | 'LIMIT';

/** A key or value as data, and what it was read as. */
export interface DecodedSide<T extends Int64 = number> {
  /** What it decoded as: 'bytes' when nothing did (then `error` or `tried` says why), 'null' for a null key or value. */
  format: 'avro' | 'protobuf' | 'json-schema' | 'json' | 'text' | 'msgpack' | 'protobuf-raw' | 'bytes' | 'null';
  /**
   * The data: Avro and Protobuf values as plain objects, JSON as parsed, text as a string, bytes as
   * bytes, 'protobuf-raw' as ProtobufRawField[]. 64-bit integers are T.
   */
  value: unknown;
  /** The schema id the bytes or headers carried (Confluent's 4-byte id, or Apicurio's global id). */
  schemaId?: number;
  /** The GUID a magic byte 1 carried. */
  guid?: string;
  registry?: 'confluent' | 'apicurio';
  /** Protobuf: the message type's full name, and the indexes that chose it. */
  messageType?: string;
  messageIndexes?: number[];
  /** format 'text': the first byte that is not UTF-8 (shown as U+FFFD). */
  invalidUtf8At?: number;
  /** Why a format asked for failed (the bytes are kept in `value`), or under auto, why a registry or schema there to use failed. */
  error?: string;
  errorCode?: ValueErrorCode;
  /** format auto: each decoder tried before the one that won, and why it did not apply. */
  tried?: { format: 'registry' | 'json' | 'text' | 'protobuf-raw'; code: ValueErrorCode; error: string }[];
}

/**
 * A field of Protobuf read without a schema (as protoc --decode_raw reads it): `type` is the wire
 * type ('varint', 'fixed64', 'fixed32', 'group') or, for a length-delimited field, what its bytes
 * are: a 'message' where they parse as one (10 levels deep at most), else a 'string' where they are
 * UTF-8, else 'bytes'. Integers are unsigned: numbers, BigInts past 2^53 (or with int64 'bigint').
 */
export type ProtobufRawField =
  | { field: number; type: 'varint' | 'fixed64' | 'fixed32'; value: number | bigint }
  | { field: number; type: 'message' | 'group'; value: ProtobufRawField[] }
  | { field: number; type: 'string'; value: string }
  | { field: number; type: 'bytes'; value: Uint8Array };

/** A schema given locally, for payloads without a registry's framing. */
export type LocalSchema = { avro: unknown } | { protobuf: { source: string; type: string; references?: { name: string; schema: string }[] } };

export interface RegistryOptions {
  /** The registry's base URL (http:// or https://). */
  url: string;
  username?: string;
  password?: string;
  /** A bearer token (instead of username and password). */
  token?: string;
  /** Per request (default 10 s). */
  timeoutMs?: number;
  /** An answer larger than this is refused (default 16 MiB). */
  maxResponseBytes?: number;
  /** Requests at once; the others wait their turn (default 8). */
  maxConcurrent?: number;
  /** The fetch to use (default the runtime's). */
  fetch?: typeof globalThis.fetch;
}

export interface ValueDecoderOptions {
  key?: ValueFormat;
  value?: ValueFormat;
  registry?: RegistryClient | RegistryOptions | null;
  keySchema?: LocalSchema | null;
  valueSchema?: LocalSchema | null;
  /** 64-bit integers in decoded values: 'number' (default; an error beyond 2^53) or 'bigint'. */
  int64?: 'number' | 'bigint';
  /** Values in their JSON form (as the CLI prints them): Protobuf by the proto3 JSON mapping, bytes as base64, 64-bit integers as strings. */
  json?: boolean;
}

/** Decodes records' keys and values by format and schema; one compiled decoder per schema id, shared by its records. */
export declare class ValueDecoder {
  constructor(options?: ValueDecoderOptions);
  /** The registry it asks (its `registry` option as a client), or null: e.g. `versionsOf` a schema id. */
  readonly registry: RegistryClient | null;
  /** Loads and compiles the schemas `records` refer to (never rejects: a failure stays with its id). */
  prepare(records: readonly Pick<KafkaRecord<Int64>, 'key' | 'value' | 'headers'>[]): Promise<void>;
  /** Sets decodedKey and decodedValue on each record; resolves with `records`. */
  attach<R extends KafkaRecord<Int64>>(records: R[]): Promise<R[]>;
  /** One record's key and value, its schemas loaded first. */
  decode(record: Pick<KafkaRecord<Int64>, 'key' | 'value' | 'headers'>): Promise<{ key: DecodedSide<Int64>; value: DecodedSide<Int64> }>;
  /** The same with the schemas loaded so far (after prepare): no waiting. */
  decodeLoaded(record: Pick<KafkaRecord<Int64>, 'key' | 'value' | 'headers'>): { key: DecodedSide<Int64>; value: DecodedSide<Int64> };
  decodeSide(record: Pick<KafkaRecord<Int64>, 'key' | 'value' | 'headers'>, side: 'key' | 'value'): DecodedSide<Int64>;
}

/** A Schema Registry (Confluent REST) client: GET only, one request per id, cached. */
export declare class RegistryClient {
  constructor(options: RegistryOptions);
  schemaById(id: number): Promise<RegistrySchema>;
  schemaByGuid(guid: string): Promise<RegistrySchema>;
  /** The subjects and versions an id is registered under. */
  versionsOf(id: number): Promise<{ subject: string; version: number }[]>;
}

export interface RegistrySchema {
  id?: number;
  guid?: string;
  schemaType: 'AVRO' | 'PROTOBUF' | 'JSON';
  schema: string;
  references: (Omit<RegistrySchema, 'id' | 'guid'> & { name: string; subject: string; version: number })[];
}

export declare class RegistryError extends Error {
  /** The HTTP status, when the registry answered. */
  readonly status: number | null;
  readonly url: string | null;
  /** 'LIMIT' when the schema's references go past a bound (256 distinct, 32 deep), else 'REGISTRY'. */
  readonly code: 'REGISTRY' | 'LIMIT';
}

/** A decoded value in JSON's terms: bytes as base64, BigInts as decimal strings, non-finite numbers as null. */
export declare function jsonForm(value: unknown): unknown;

/** The message types of a .proto file's text (nested ones too), by full name, in the order declared: the names a LocalSchema's `type` takes. */
export declare function protobufMessageTypes(source: string): Promise<string[]>;
