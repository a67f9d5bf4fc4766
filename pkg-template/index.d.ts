// Types of kafka-fetch-decoder. `Int64` is `number` by default and `bigint` with `int64: 'bigint'`.

export type Int64 = number | bigint;

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
   * The fastest path (default false): records read their columns and decompressed bytes straight
   * from the decoder's wasm memory instead of copies, so they are valid only until the next call on
   * the same decoder (the plain functions share one). Copy what you keep.
   */
  transient?: boolean;
}

export interface FetchOptions extends DecodeOptions {
  /** The FetchResponse version the frame was sent with (0 to 18). */
  apiVersion: number;
  /** true (default): the frame starts with the response header (correlation id); false: body only. */
  header?: boolean;
}

export type Compression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
export type TimestampType = 'NO_TIMESTAMP' | 'CREATE_TIME' | 'LOG_APPEND_TIME';
export type ControlType =
  | 'ABORT' | 'COMMIT' | 'LEADER_CHANGE' | 'SNAPSHOT_HEADER' | 'SNAPSHOT_FOOTER' | 'KRAFT_VERSION' | 'KRAFT_VOTERS' | 'UNKNOWN';

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
  value: Uint8Array | null;
}

export interface KafkaRecord<T extends Int64 = number> {
  readonly offset: T;
  /** Milliseconds since the epoch (-1 for magic 0 messages). */
  readonly timestamp: T;
  /** Views onto the input frame (uncompressed batches) or onto a copy of the decompressed bytes. */
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  /** In wire order, duplicate keys kept. */
  readonly headers: readonly Header[];
  readonly batch: Batch<T>;
  readonly leaderEpoch: number;
  readonly isControl: boolean;
  readonly controlType: ControlType | null;
  toObject(): {
    offset: T; timestamp: T; key: Uint8Array | null; value: Uint8Array | null; headers: readonly Header[];
    batch: Batch<T>; leaderEpoch: number; isControl: boolean; controlType: ControlType | null;
  };
}

export interface RecordSet<T extends Int64 = number> {
  records: KafkaRecord<T>[];
  batches: Batch<T>[];
  /** The input ends with an incomplete batch, which was ignored. */
  partial: boolean;
  /** Last complete batch's last offset + 1, or null when no batch is complete. */
  nextOffset: T | null;
  /** With onError 'partition': the error that ended this record set early, else null. */
  error: DecodeErrorInfo | null;
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

export interface AbortedTransaction<T extends Int64 = number> {
  producerId: T;
  firstOffset: T;
}

export interface FetchPartition<T extends Int64 = number> extends RecordSet<T> {
  partition: number;
  errorCode: number;
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
  /** Topic name (v0-12), else null. */
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

type Out<O> = O extends { int64: 'bigint' } ? bigint : number;

export function decodeFetchResponse<O extends FetchOptions>(frame: Uint8Array | ArrayBuffer | ArrayBufferView, options: O): FetchResponse<Out<O>>;
export function decodeRecordSet<O extends DecodeOptions>(bytes: Uint8Array | ArrayBuffer | ArrayBufferView, options?: O): RecordSet<Out<O>>;

/** A reusable decoder owning its wasm-side buffers (the plain functions share one). */
export class FetchDecoder {
  constructor();
  decodeFetchResponse<O extends FetchOptions>(frame: Uint8Array | ArrayBuffer | ArrayBufferView, options: O): FetchResponse<Out<O>>;
  decodeRecordSet<O extends DecodeOptions>(bytes: Uint8Array | ArrayBuffer | ArrayBufferView, options?: O): RecordSet<Out<O>>;
  /** Releases its wasm memory; the decoder cannot be used afterwards. */
  free(): void;
}

export type DecodeErrorCode =
  | 'TRUNCATED' | 'CORRUPT' | 'CRC_MISMATCH' | 'UNSUPPORTED_VERSION' | 'UNSUPPORTED_COMPRESSION' | 'DECOMPRESSION_LIMIT'
  | 'INVALID_ARGUMENT' | 'OUT_OF_MEMORY';

export class KafkaDecodeError extends Error {
  readonly code: DecodeErrorCode;
  /** Byte position in the input. */
  readonly offset: number;
  readonly topic: string | null;
  readonly partition: number | null;
  readonly batchOffset: string | null;
  /** What the input most likely is when it does not decode as asked (another api version, the size prefix, ...). */
  readonly hint: string | null;
}

/** Browsers and bundlers: load the wasm module once before decoding. In Node it resolves at once. */
export function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<unknown>;
export default init;

/** The module's WebAssembly.Memory (to watch it stop growing). */
export function wasmMemory(): WebAssembly.Memory;
