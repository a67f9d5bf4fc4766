// The JS side of kafka-fetch-decoder: option parsing, one call into wasm per response, and record
// objects built from the columns that call returns (see src/wasm.rs for the other half).
//
// Records are small objects over shared columns (their only fields are the columns and an index):
// a field is read from the columns when it is asked for, so no work is done for fields nobody
// reads, and nothing per record outlives a read. Keys, values and headers are views onto bytes that
// no later call touches, so every read gives the same bytes (a new view object each time; compare
// contents, not identity). All records of one batch share one batch object.
//
// This file is ESM; the build writes a CommonJS copy (api.cjs) by rewriting its last line.

/**
 * Thrown for malformed input: `code` says what kind, `offset` where (byte position), `hint` what
 * the input most likely is when it does not decode as asked (another api version, ...).
 */
class KafkaDecodeError extends Error {
  constructor(info) {
    super(info.message);
    this.name = 'KafkaDecodeError';
    this.code = info.code;
    this.offset = info.offset;
    this.topic = info.topic ?? null;
    this.partition = info.partition ?? null;
    this.batchOffset = info.batchOffset ?? null;
    this.hint = info.hint ?? null;
  }
}

let wasm = null;
// The JS/wasm contract (src/contract.rs): column types, batch fields, enum names, option bits.
let contract = null;

/** Connects the generated wasm bindings (Node: at load; browsers: after `init()`). */
function attach(bindings) {
  wasm = bindings;
  contract = JSON.parse(bindings.contract());
}

const DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_DECOMPRESSED_BYTES_PER_CALL = 256 * 1024 * 1024;
// Byte positions reach JS as 32-bit signed integers: no call's bytes pass 2 GiB.
const MAX_ADDRESSABLE_BYTES = 2 ** 31 - 1;
const NO_HEADERS = Object.freeze([]);

const oneOf = (...allowed) => (v) => allowed.includes(v) || `one of ${allowed.map((a) => `'${a}'`).join(', ')}`;
const isBoolean = (v) => typeof v === 'boolean' || 'true or false';
const byteCount = (v) => (Number.isInteger(v) && v >= 0 && v <= MAX_ADDRESSABLE_BYTES) || `an integer from 0 to ${MAX_ADDRESSABLE_BYTES} (2 GiB - 1)`;

// Every option, with the check of its value. Record-set calls take all but the frame ones.
const OPTIONS = {
  apiVersion: (v) => (Number.isInteger(v) && v >= 0) || 'the FetchResponse version, an integer (0 to 18)',
  header: isBoolean,
  isolationLevel: oneOf('read_uncommitted', 'read_committed'),
  crc: oneOf('verify', 'report', 'skip'),
  int64: oneOf('number', 'bigint'),
  maxDecompressedBytes: byteCount,
  maxDecompressedBytesPerCall: byteCount,
  includeControlRecords: isBoolean,
  onError: oneOf('throw', 'partition'),
  transient: isBoolean,
};
const FRAME_ONLY = ['apiVersion', 'header'];

function parseOptions(options, recordSet) {
  if (options != null && (typeof options !== 'object' || Array.isArray(options))) {
    throw new TypeError('kafka-fetch-decoder: options must be an object');
  }
  const o = options ?? {};
  const valid = Object.keys(OPTIONS).filter((k) => !recordSet || !FRAME_ONLY.includes(k));
  for (const [name, value] of Object.entries(o)) {
    if (!valid.includes(name)) {
      const where = recordSet && FRAME_ONLY.includes(name) ? ' (it is for decodeFetchResponse)' : '';
      throw new TypeError(`kafka-fetch-decoder: unknown option '${name}'${where}; valid options: ${valid.join(', ')}`);
    }
    const ok = value === undefined || OPTIONS[name](value);
    if (ok !== true) {
      const got = typeof value === 'string' ? `'${value}'` : String(value);
      throw new TypeError(`kafka-fetch-decoder: option ${name} must be ${ok}, got ${got}`);
    }
  }
  if (!recordSet && o.apiVersion === undefined) {
    throw new TypeError('kafka-fetch-decoder: options.apiVersion (the FetchResponse version, 0 to 18) is required');
  }
  const bit = contract.flags;
  let flags = 0;
  if (o.header !== false) flags |= bit.header;
  if (o.isolationLevel === 'read_committed') flags |= bit.readCommitted;
  if (o.crc === 'report') flags |= bit.crcReport;
  if (o.crc === 'skip') flags |= bit.crcSkip;
  if (o.includeControlRecords === true) flags |= bit.includeControl;
  if (o.int64 === 'bigint') flags |= bit.bigint;
  if (o.onError === 'partition') flags |= bit.onErrorPartition;
  return {
    apiVersion: o.apiVersion ?? 0,
    flags,
    max: o.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES,
    maxPerCall: o.maxDecompressedBytesPerCall ?? DEFAULT_MAX_DECOMPRESSED_BYTES_PER_CALL,
    bigint: o.int64 === 'bigint',
    transient: o.transient === true,
  };
}

function toBytes(input) {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError('input must be a Uint8Array, Buffer, ArrayBuffer or typed array');
}

// int64 values in the metadata arrive as decimal strings.
function int64Converter(bigint) {
  if (bigint) return (s) => (s == null ? null : BigInt(s));
  return (s) => {
    if (s == null) return null;
    const n = Number(s);
    if (!Number.isSafeInteger(n)) throw new RangeError(`${s} is beyond 2^53 and cannot be a JS number exactly; use int64: 'bigint'`);
    return n;
  };
}

/**
 * The output of one call: the columns, the bytes they point into, and the batches. Normally the
 * columns and decompressed bytes are copied out of wasm memory, so they outlive later calls; with
 * `transient` they are views into it, valid only until the decoder's next call (no copies at all).
 */
class Columns {
  constructor(input, meta, bigint, transient) {
    const buffer = wasm.wasmMemory().buffer;
    // A view of each column of the contract, by name, into wasm memory.
    const views = {};
    for (const [name, type] of Object.entries(contract.columns)) {
      const [ptr, len] = meta.cols[name];
      views[name] = columnView(buffer, type, ptr, len, bigint);
    }
    const own = (view) => (transient ? view : view.slice());
    this.inputBuffer = input.buffer;
    this.inputOffset = input.byteOffset;
    this.inputLength = meta.inputLength;
    this.offsets = own(views.offsets);
    this.timestamps = own(views.timestamps);
    this.keys = own(views.keys);
    this.values = own(views.values);
    this.headersEnd = own(views.headersEnd);
    this.batchIndex = own(views.batchIndex);
    this.headerKeyIds = own(views.headerKeyIds);
    this.headerValues = own(views.headerValues);
    this.headerKeys = meta.headerKeys;
    // Decompressed bytes: one copy per call, into memory of their own so that later calls never
    // touch them. Node can skip zero-filling memory that is overwritten at once (measured 0.22 ms
    // against 0.27 for slice() and 0.39 for Buffer.from on 2.4 MB).
    let arena = views.arena;
    if (!transient) {
      const copy = typeof Buffer === 'function' ? Buffer.allocUnsafeSlow(arena.length) : new Uint8Array(arena.length);
      copy.set(arena);
      arena = copy;
    }
    this.arenaBuffer = arena.buffer;
    this.arenaOffset = arena.byteOffset;
    // batch objects are built here and now, so their columns need no copy
    this.batches = makeBatches(views.batchInt64, views.batchInt32);
  }

  /** A key/value range (pairs of [position, length]; length -1 = null) as bytes. */
  bytes(pairs, i) {
    const len = pairs[2 * i + 1];
    if (len < 0) return null;
    const pos = pairs[2 * i];
    if (pos < this.inputLength) return new Uint8Array(this.inputBuffer, this.inputOffset + pos, len);
    return new Uint8Array(this.arenaBuffer, this.arenaOffset + pos - this.inputLength, len);
  }

  headers(i) {
    const end = this.headersEnd[i];
    const start = i === 0 ? 0 : this.headersEnd[i - 1];
    if (start === end) return NO_HEADERS;
    const out = new Array(end - start);
    for (let h = start; h < end; h++) {
      out[h - start] = { key: this.headerKeys[this.headerKeyIds[h]], value: this.bytes(this.headerValues, h) };
    }
    return out;
  }

  records(range) {
    const [start, end] = range;
    const out = new Array(end - start);
    for (let i = start; i < end; i++) out[i - start] = new KafkaRecord(this, i);
    return out;
  }
}

const TYPED_ARRAYS = { byteRanges: [Int32Array, 2], uint32: [Uint32Array, 1], int32: [Int32Array, 1], uint8: [Uint8Array, 1] };

function columnView(buffer, type, ptr, len, bigint) {
  if (type === 'int64') return new (bigint ? BigInt64Array : Float64Array)(buffer, ptr, len);
  const [Type, per] = TYPED_ARRAYS[type];
  return new Type(buffer, ptr, len * per);
}

/** One object per batch, its properties named and typed by the contract's batch fields. */
function makeBatches(int64, int32) {
  const fields = contract.batchFields;
  const int32PerBatch = fields.filter((f) => f.type !== 'int64').length;
  const n = int32.length / int32PerBatch;
  const batches = new Array(n);
  let l = 0;
  let s = 0;
  for (let b = 0; b < n; b++) {
    const batch = {};
    for (const f of fields) {
      switch (f.type) {
        case 'int64': batch[f.name] = int64[l++]; break;
        case 'int32': batch[f.name] = int32[s++]; break;
        case 'bool': batch[f.name] = int32[s++] !== 0; break;
        case 'nullableBool': { const v = int32[s++]; batch[f.name] = v === 0 ? null : v === 1; break; }
        case 'name': batch[f.name] = f.names[int32[s++]]; break;
        default: throw new Error(`kafka-fetch-decoder: unknown batch field type ${f.type}`);
      }
    }
    batches[b] = batch;
  }
  return batches;
}

/** One record: an index into the columns of its call; fields are read from them on access. */
class KafkaRecord {
  constructor(columns, index) {
    this._c = columns;
    this._i = index;
  }
  get offset() {
    return this._c.offsets[this._i];
  }
  get timestamp() {
    return this._c.timestamps[this._i];
  }
  get key() {
    return this._c.bytes(this._c.keys, this._i);
  }
  get value() {
    return this._c.bytes(this._c.values, this._i);
  }
  /** In wire order, duplicate keys kept. */
  get headers() {
    return this._c.headers(this._i);
  }
  get batch() {
    return this._c.batches[this._c.batchIndex[this._i]];
  }
  get leaderEpoch() {
    return this.batch.partitionLeaderEpoch;
  }
  get isControl() {
    return this.batch.isControl;
  }
  /** 'ABORT', 'COMMIT', ... for control records (type in bytes 2-3 of the key), else null. */
  get controlType() {
    if (!this.batch.isControl) return null;
    const k = this.key;
    if (k === null || k.length < 4) return 'UNKNOWN';
    return contract.controlTypes[(k[2] << 8) | k[3]] ?? 'UNKNOWN';
  }
  /** A plain object with every field (for logging, structured clone, or JSON with a replacer). */
  toObject() {
    return {
      offset: this.offset,
      timestamp: this.timestamp,
      key: this.key,
      value: this.value,
      headers: this.headers,
      batch: this.batch,
      leaderEpoch: this.leaderEpoch,
      isControl: this.isControl,
      controlType: this.controlType,
    };
  }
  [Symbol.for('nodejs.util.inspect.custom')](depth, options, inspect) {
    const o = this.toObject();
    o.batch = `[batch ${o.batch.baseOffset}..${o.batch.lastOffset} ${o.batch.compression}]`;
    return `KafkaRecord ${inspect(o, options)}`;
  }
}

function partitionObject(p, columns, int64) {
  return {
    partition: p.partition,
    errorCode: p.errorCode,
    highWatermark: int64(p.highWatermark),
    lastStableOffset: int64(p.lastStableOffset),
    logStartOffset: int64(p.logStartOffset),
    abortedTransactions: p.abortedTransactions && p.abortedTransactions.map(([producerId, firstOffset]) => ({
      producerId: int64(producerId),
      firstOffset: int64(firstOffset),
    })),
    preferredReadReplica: p.preferredReadReplica,
    divergingEpoch: p.divergingEpoch && { epoch: p.divergingEpoch.epoch, endOffset: int64(p.divergingEpoch.endOffset) },
    currentLeader: p.currentLeader,
    snapshotId: p.snapshotId && { endOffset: int64(p.snapshotId.endOffset), epoch: p.snapshotId.epoch },
    ...recordSetObject(p.set, columns, int64),
  };
}

function recordSetObject(set, columns, int64) {
  return {
    records: columns.records(set.records),
    batches: columns.batches.slice(set.batches[0], set.batches[1]),
    partial: set.partial,
    nextOffset: int64(set.nextOffset),
    error: set.error,
  };
}

/** A decoder with its own wasm-side arena and buffers; reuse one for many responses. */
class FetchDecoder {
  constructor() {
    if (wasm === null) throw new Error('kafka-fetch-decoder: call `await init()` before decoding');
    this._d = new wasm.WasmDecoder();
  }

  /** Decodes a FetchResponse frame (the bytes after the 4-byte size prefix). */
  decodeFetchResponse(frame, options) {
    const o = parseOptions(options, false);
    const { meta, columns } = this._decode(toBytes(frame), false, o);
    const int64 = int64Converter(o.bigint);
    const r = meta.response;
    return {
      correlationId: r.correlationId,
      throttleTimeMs: r.throttleTimeMs,
      errorCode: r.errorCode,
      sessionId: r.sessionId,
      topics: r.topics.map((t) => ({
        topic: t.topic,
        topicId: t.topicId,
        partitions: t.partitions.map((p) => partitionObject(p, columns, int64)),
      })),
      nodeEndpoints: r.nodeEndpoints,
      // bytes after the last field (decoded as Java does; usually a wrong api version or a
      // capture glued to the next frame: `hint` says which when it can tell)
      trailingBytes: r.trailingBytes,
      hint: r.hint,
      // onError 'partition': the error that cut the response short (its complete partitions kept)
      error: r.error,
    };
  }

  /** Decodes a bare record set: one partition's records, or a log segment file. */
  decodeRecordSet(bytes, options) {
    const o = parseOptions(options, true);
    const { meta, columns } = this._decode(toBytes(bytes), true, o);
    return recordSetObject(meta.recordSet, columns, int64Converter(o.bigint));
  }

  /** Releases the wasm-side memory of this decoder. */
  free() {
    this._d.free();
  }

  /**
   * A failure that is not a decoding error is a bug (a panic, whose message went to the console)
   * or memory running out; wasm-bindgen then refuses every later call on that handle. Start over
   * with a fresh one so that the next call works, and say so.
   */
  _replaceAfter(e) {
    this._d = new wasm.WasmDecoder();
    const error = new Error(`kafka-fetch-decoder: the decoder failed inside wasm (${e?.message ?? e}); it was reset, later calls work`);
    error.cause = e;
    return error;
  }

  _decode(input, recordSet, o) {
    const ptr = this._d.input_buffer(input.length);
    new Uint8Array(wasm.wasmMemory().buffer, ptr, input.length).set(input);
    let json;
    try {
      json = this._d.decode(input.length, recordSet, o.apiVersion, o.flags, o.max, o.maxPerCall);
    } catch (e) {
      if (typeof e !== 'string') throw this._replaceAfter(e);
      const info = JSON.parse(e);
      if (info.code === 'RANGE') throw new RangeError(info.message);
      throw new KafkaDecodeError(info);
    }
    const meta = JSON.parse(json);
    return { meta, columns: new Columns(input, meta, o.bigint, o.transient) };
  }
}

let shared = null;
const sharedDecoder = () => (shared ??= new FetchDecoder());

/** Decodes a FetchResponse frame with a shared decoder. */
function decodeFetchResponse(frame, options) {
  return sharedDecoder().decodeFetchResponse(frame, options);
}

/** Decodes a raw record set (a partition's records or a .log segment) with a shared decoder. */
function decodeRecordSet(bytes, options) {
  return sharedDecoder().decodeRecordSet(bytes, options);
}

/** The wasm memory (for checking that it stops growing). */
function wasmMemory() {
  if (wasm === null) throw new Error('kafka-fetch-decoder: call `await init()` first');
  return wasm.wasmMemory();
}

export { attach, decodeFetchResponse, decodeRecordSet, FetchDecoder, KafkaDecodeError, KafkaRecord, wasmMemory };
