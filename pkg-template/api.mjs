// The JS side of kafka-fetch-decoder: option checks, one call into wasm per response, and results
// built from the columns that call returns (src/wasm/ is the other half, src/contract.rs the layout
// between them).
//
// Results are ordinary JS data: records are objects whose fields are their own properties (so
// structured clone, postMessage and Playwright carry them whole), one batch object is shared by the
// records of a batch, and everything serialises with JSON.stringify in a documented compact form.
// A partition builds its records the first time `records` is read (or one at a time with
// `record(i)`), so a caller that wants a few records pays for those.
//
// With `transient` the records instead read their fields straight from wasm memory when asked,
// and throw once any later call may have overwritten it.
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

  toJSON() {
    const { name, code, offset, message, topic, partition, batchOffset, hint } = this;
    return { name, code, offset, message, topic, partition, batchOffset, hint };
  }
}

// ---- the wasm module --------------------------------------------------------------------------

let wasm = null;
// The JS/wasm contract (src/contract.rs): column types, batch fields, enum names, option bits.
let contract = null;
// The field names of the metadata's partition and record-set arrays (from the contract, or from a
// transferred result where no wasm is loaded), and where each sits, by name.
let metadataLayout = null;
let P = null;
let S = null;
// Fields per batch in each batch column, and the name tables (from batchLayoutOf).
let batchLayout = null;
// [name, type] of every column, in the contract's order: the order of the metadata's `cols` pairs.
let columnTypes = null;
// The module's WebAssembly.Memory, kept: asking wasm for it is a call across the boundary. Its
// `buffer` is read at each use (a memory growth replaces it).
let memory = null;
// One wasm-side decoder serves every FetchDecoder of this module instance: calls are synchronous and
// their results are copied out (or, with `transient`, valid only until the next call), so holding
// many FetchDecoders costs no wasm memory.
let engine = null;
// Counts calls into the engine; a transient result checks it before every read.
let generation = 0;

// The shape of the metadata and columns this JS reads (`VERSION` in src/contract.rs).
const CONTRACT_VERSION = 2;

/**
 * Connects the generated wasm bindings (Node: at load; browsers: after `init()`). Everything is
 * checked before anything is kept: a module that does not fit leaves none of its state behind.
 */
function attach(bindings) {
  const described = JSON.parse(bindings.contract());
  if (described.version !== CONTRACT_VERSION) {
    throw new Error(`kafka-fetch-decoder: the wasm module's contract is version ${described.version}, this JS reads version ${CONTRACT_VERSION} (files from different builds)`);
  }
  const layout = batchLayoutOf(described.batchFields);
  const metadata = metadataLayoutOf(described);
  const columns = Object.entries(described.columns);
  const wasmMemory = bindings.wasmMemory();
  wasm = bindings;
  contract = described;
  useMetadataLayout(metadata);
  batchLayout = layout;
  columnTypes = columns;
  memory = wasmMemory;
  engine = null;
  scanned = null;
}

/** Where the metadata's arrays keep each field, by the field names of a contract (or of a transferred result). */
function metadataLayoutOf({ partitionFields, recordSetFields }) {
  return {
    layout: { partitionFields, recordSetFields },
    P: Object.fromEntries(partitionFields.map((name, i) => [name, i])),
    S: Object.fromEntries(recordSetFields.map((name, i) => [name, i])),
  };
}

function useMetadataLayout(metadata) {
  metadataLayout = metadata.layout;
  P = metadata.P;
  S = metadata.S;
}

function requireWasm() {
  if (wasm === null) {
    throw new Error('kafka-fetch-decoder: the wasm module is not loaded; in browsers and bundlers call `await init()` first');
  }
}

// ---- options ----------------------------------------------------------------------------------

const DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_DECOMPRESSED_BYTES_PER_CALL = 256 * 1024 * 1024;
// Byte positions reach JS as 32-bit signed integers: no call's bytes pass 2 GiB.
const MAX_ADDRESSABLE_BYTES = 2 ** 31 - 1;

const oneOf = (...allowed) => (v) => allowed.includes(v) || `one of ${allowed.map((a) => `'${a}'`).join(', ')}`;
const isBoolean = (v) => typeof v === 'boolean' || 'true or false';
const byteCount = (v) => (Number.isInteger(v) && v >= 0 && v <= MAX_ADDRESSABLE_BYTES) || `an integer from 0 to ${MAX_ADDRESSABLE_BYTES} (2 GiB - 1)`;
const isOffset = (v) => (typeof v === 'bigint' || Number.isSafeInteger(v)) || 'an offset (an integer or a BigInt)';
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const offsetsByTopic = (v) => {
  if (!isPlainObject(v) && !(v instanceof Map)) return 'an object (or Map) of topic -> { partition: offset }';
  for (const [, partitions] of v instanceof Map ? v : Object.entries(v)) {
    if (!isPlainObject(partitions) && !(partitions instanceof Map)) return 'an object (or Map) of topic -> { partition: offset }';
    for (const [, offset] of partitions instanceof Map ? partitions : Object.entries(partitions)) {
      if (isOffset(offset) !== true) return 'an object (or Map) of topic -> { partition: offset } with integer or BigInt offsets';
    }
  }
  return true;
};
const topicNameMap = (v) => {
  if (!isPlainObject(v) && !(v instanceof Map)) return 'an object (or Map) of topic id -> topic name';
  for (const [id, name] of v instanceof Map ? v : Object.entries(v)) {
    if (typeof name !== 'string' || normalizeTopicId(id) === null) return 'an object (or Map) of topic id (UUID or base64url) -> topic name';
  }
  return true;
};

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
  fetchOffsets: offsetsByTopic,
  topicNames: topicNameMap,
  fetchOffset: isOffset,
};
const FRAME_ONLY = ['apiVersion', 'header', 'fetchOffsets', 'topicNames'];
const RECORD_SET_ONLY = ['fetchOffset'];
// the options each kind of call takes, listed once
const VALID_OPTIONS = {
  frame: Object.keys(OPTIONS).filter((k) => !RECORD_SET_ONLY.includes(k)),
  recordSet: Object.keys(OPTIONS).filter((k) => !FRAME_ONLY.includes(k)),
};

function parseOptions(options, recordSet) {
  if (options != null && !isPlainObject(options)) {
    throw new TypeError('kafka-fetch-decoder: options must be an object');
  }
  const o = options ?? {};
  const valid = recordSet ? VALID_OPTIONS.recordSet : VALID_OPTIONS.frame;
  for (const [name, value] of Object.entries(o)) {
    if (!valid.includes(name)) {
      const where = OPTIONS[name] ? ` (it is for ${recordSet ? 'decodeFetchResponse' : 'decodeRecordSet'})` : '';
      throw new TypeError(`kafka-fetch-decoder: unknown option '${name}'${where}; valid options: ${valid.join(', ')}`);
    }
    const ok = value === undefined || OPTIONS[name](value);
    if (ok !== true) {
      const got = typeof value === 'string' ? `'${value}'` : typeof value === 'object' ? typeof value : String(value);
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
    fetchOffsets: o.fetchOffsets,
    fetchOffset: o.fetchOffset,
    topicNames: o.topicNames && new Map([...(o.topicNames instanceof Map ? o.topicNames : Object.entries(o.topicNames))]
      .map(([id, name]) => [normalizeTopicId(id), name])),
  };
}

/** A topic id as the response shows it (8-4-4-4-12 hex), from that form or Kafka tools' base64url. */
function normalizeTopicId(id) {
  if (typeof id !== 'string') return null;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return id.toLowerCase();
  if (!/^[A-Za-z0-9_-]{22}$/.test(id)) return null;
  const bytes = base64Decode(id.replace(/-/g, '+').replace(/_/g, '/'));
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The offset records of `topic`/`partition` must reach to be returned (fetchOffsets), or null. */
function fetchOffsetFor(fetchOffsets, topic, topicId, partition) {
  if (!fetchOffsets) return null;
  const get = (m, k) => (m instanceof Map ? m.get(k) : Object.hasOwn(m, k) ? m[k] : undefined);
  const byPartition = (topic != null && get(fetchOffsets, topic)) || (topicId != null && get(fetchOffsets, topicId)) || null;
  if (!byPartition) return null;
  return (byPartition instanceof Map ? byPartition.get(partition) ?? byPartition.get(String(partition)) : byPartition[partition]) ?? null;
}

function toBytes(input) {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError('kafka-fetch-decoder: input must be a Uint8Array, Buffer, ArrayBuffer or typed array');
}

// int64 values in the metadata arrive as numbers, or as decimal strings beyond 2^53.
function int64Converter(bigint) {
  if (bigint) return (s) => (s == null ? null : BigInt(s));
  return (s) => {
    if (s == null) return null;
    const n = Number(s);
    if (!Number.isSafeInteger(n)) throw new RangeError(`${s} is beyond 2^53 and cannot be a JS number exactly; use int64: 'bigint'`);
    return n;
  };
}

// ---- bytes ------------------------------------------------------------------------------------

// In Node, keys and values are Buffers (Buffer's own view class, as cheap as a Uint8Array view), so
// `value.toString()` is its text; elsewhere they are Uint8Arrays.
const ByteView = typeof Buffer === 'function' && typeof Buffer[Symbol.species] === 'function' ? Buffer[Symbol.species] : Uint8Array;
const utf8 = new TextDecoder('utf-8');
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function base64(bytes) {
  if (bytes === null) return null;
  if (typeof Buffer === 'function') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += B64[n >> 18] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + B64[n & 63];
  }
  if (i < bytes.length) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8);
    out += B64[n >> 18] + B64[(n >> 12) & 63] + (i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=') + '=';
  }
  return out;
}

function base64Decode(s) {
  if (typeof Buffer === 'function') return new Uint8Array(Buffer.from(s, 'base64'));
  const bin = atob(s.padEnd(Math.ceil(s.length / 4) * 4, '='));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

// TypedArray's slice copies (Buffer's own slice would be a view)
const copyBytes = (b) => (b === null ? null : Uint8Array.prototype.slice.call(b));
const jsonInt64 = (v) => (typeof v === 'bigint' ? v.toString() : v);

/** Plain data made JSON-safe: BigInts become decimal strings, in nested plain objects and arrays too. */
function jsonSafe(v) {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out = {};
    for (const k of Object.keys(v)) out[k] = jsonSafe(v[k]);
    return out;
  }
  return v;
}

// ---- columns ----------------------------------------------------------------------------------

const TYPED_ARRAYS = { byteRanges: [Int32Array, 2], uint32: [Uint32Array, 1], int32: [Int32Array, 1], uint8: [Uint8Array, 1] };
const NO_HEADERS = Object.freeze([]);

function columnView(buffer, type, ptr, len, bigint) {
  if (type === 'int64') return new (bigint ? BigInt64Array : Float64Array)(buffer, ptr, len);
  const [Type, per] = TYPED_ARRAYS[type];
  return new Type(buffer, ptr, len * per);
}

// The columns indexed by record or header (the batches' columns become Batch objects at once).
const PER_RECORD_COLUMNS = ['offsets', 'timestamps', 'keys', 'values', 'headersEnd', 'batchIndex', 'headerKeyIds', 'headerValues'];

/** Those columns of `from`, each passed through `take` (a copy, or the view itself). */
function perRecordColumns(from, take) {
  const out = {};
  for (const name of PER_RECORD_COLUMNS) out[name] = take(from[name]);
  return out;
}

// ---- memory for kept results -------------------------------------------------------------------

/**
 * A kept result's bytes copied out of wasm memory (its decompressed bytes and its record columns)
 * go into one buffer of its own, which dies with the result: V8 frees a buffer that dies young at
 * the next young-generation collection, and the allocator can hand the same memory to the next call
 * (glibc gives large freed buffers back to the system first, so on gzip and snappy frames each call
 * faults its buffer in again: README, "Kept results against transient ones").
 * (An 8 MiB slab shared by consecutive calls outlived its first results, was promoted and waited
 * for full collections: 14 of them instead of 2 in 1.5 s of decoding bench_tiny_none in a loop, and
 * a third fewer records/s there, 7% fewer on bench_none, level on the compressed frames.)
 * toTransferable moves the buffer as it is.
 */
const newBuffer = (n) => (typeof Buffer === 'function' ? Buffer.allocUnsafeSlow(n).buffer : new ArrayBuffer(n));
const align8 = (n) => (n + 7) & ~7;

/** Copies `views` (typed arrays) into one new buffer, each 8-byte aligned; returns the copies, in order. */
function copyOut(views) {
  let total = 0;
  for (const v of views) total += align8(v.byteLength);
  const buffer = newBuffer(total);
  let at = 0;
  const copies = new Array(views.length);
  for (let i = 0; i < views.length; i++) {
    const v = views[i];
    const copy = new v.constructor(buffer, at, v.length);
    copy.set(v);
    copies[i] = copy;
    at += align8(v.byteLength);
  }
  return copies;
}

/** The decompressed bytes (`arena`) and the per-record columns of `from`, copied by copyOut. */
function copyColumnsOut(from) {
  const copies = copyOut([from.arena, ...PER_RECORD_COLUMNS.map((name) => from[name])]);
  const columns = {};
  PER_RECORD_COLUMNS.forEach((name, i) => { columns[name] = copies[i + 1]; });
  return { arena: copies[0], columns };
}

/**
 * The output of one call: the record columns, the bytes they point into (the caller's input for
 * uncompressed batches, the decompressed bytes for the others), the batches and the header keys.
 * Normally copied out of wasm memory, so they outlive later calls; with `transient` they are views
 * into it, and `check()` throws once a later call may have overwritten them.
 */
class Columns {
  static fromWasm(input, meta, bigint, transient) {
    const buffer = memory.buffer;
    const views = {};
    const cols = meta.cols; // [address, length] pairs in the contract's column order
    for (let i = 0; i < columnTypes.length; i++) {
      const [name, type] = columnTypes[i];
      views[name] = columnView(buffer, type, cols[2 * i], cols[2 * i + 1], bigint);
    }
    // kept: the decompressed bytes and the record columns copied out, so that later calls never
    // touch them; transient: the views into wasm memory themselves
    const out = transient ? { arena: views.arena, columns: perRecordColumns(views, (v) => v) } : copyColumnsOut(views);
    return new Columns({
      input: input.subarray(0, meta.inputLength),
      inputLength: meta.inputLength,
      arena: out.arena,
      ...out.columns,
      headerKeys: meta.headerKeys,
      // built here and now, so their columns need no copy
      batches: makeBatches(views.batchInt64, views.batchInt32),
      controlTypes: contract.controlTypes,
    }, transient ? generation : null);
  }

  constructor(c, generationOfTransient = null) {
    // by name, not Object.assign: a fixed set of fields, written in a fixed order
    this.input = c.input;
    this.inputLength = c.inputLength;
    this.arena = c.arena;
    this.offsets = c.offsets;
    this.timestamps = c.timestamps;
    this.keys = c.keys;
    this.values = c.values;
    this.headersEnd = c.headersEnd;
    this.batchIndex = c.batchIndex;
    this.headerKeyIds = c.headerKeyIds;
    this.headerValues = c.headerValues;
    this.headerKeys = c.headerKeys;
    this.batches = c.batches;
    this.controlTypes = c.controlTypes;
    this.generation = generationOfTransient;
    // set by toTransferable: the records are the other thread's from then on
    this.moved = false;
    // where views are made from, read once: a typed array's buffer and byteOffset are getters,
    // costly enough per key, value and header value to show (about a fifth of a decode on bench_none)
    this.inputBuffer = this.input.buffer;
    this.inputAt = this.input.byteOffset;
    this.arenaBuffer = this.arena.buffer;
    this.arenaAt = this.arena.byteOffset - this.inputLength;
  }

  /** Throws when these are views into wasm memory that a later call may have overwritten. */
  check() {
    // a later decode reuses the memory; any call that grows wasm memory detaches the views
    if (this.generation !== null && (this.generation !== generation || this.arenaBuffer.byteLength === 0)) {
      throw new Error('kafka-fetch-decoder: a transient result was read after a later call (on any decoder) reused its memory; copy what you keep (record.toObject()), or decode without `transient`');
    }
  }

  /** A key/value range (pairs of [position, length]; length -1 = null) as bytes. */
  bytes(pairs, i) {
    const len = pairs[2 * i + 1];
    if (len < 0) return null;
    const pos = pairs[2 * i];
    if (pos < this.inputLength) return new ByteView(this.inputBuffer, this.inputAt + pos, len);
    return new ByteView(this.arenaBuffer, this.arenaAt + pos, len);
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

  controlType(i, batch) {
    if (!batch.isControl) return null;
    const len = this.keys[2 * i + 1];
    if (len < 4) return 'UNKNOWN';
    const k = this.bytes(this.keys, i);
    return this.controlTypes[(k[2] << 8) | k[3]] ?? 'UNKNOWN';
  }

  /** Record `i` as an ordinary object. */
  record(i) {
    const batch = this.batches[this.batchIndex[i]];
    return new PlainRecord(
      this.offsets[i],
      this.timestamps[i],
      this.bytes(this.keys, i),
      this.bytes(this.values, i),
      this.headers(i),
      batch,
      this.controlType(i, batch),
    );
  }
}

/**
 * One batch, shared by its records. Its fields are the contract's batch fields (BATCH_FIELDS in
 * src/contract.rs), in that order, written by name in the constructor: added by computed name one
 * by one, they cost a 10,000-partition response 12% of its decode, and fields the constructor
 * writes are kept inside the object (no separate property store). `batchLayoutOf` holds them to the
 * contract of the module loaded. `new Batch()` is an empty one (fromTransferable fills it).
 */
class Batch {
  /** The batch whose int64 fields start at `int64[l]` and the others at `int32[s]`. */
  constructor(int64, l, int32, s, names) {
    if (int64 === undefined) return;
    this.baseOffset = int64[l];
    this.lastOffset = int64[l + 1];
    this.partitionLeaderEpoch = int32[s];
    this.producerId = int64[l + 2];
    this.producerEpoch = int32[s + 1];
    this.baseSequence = int32[s + 2];
    this.isTransactional = int32[s + 3] !== 0;
    this.isControl = int32[s + 4] !== 0;
    this.isAborted = int32[s + 5] !== 0;
    this.hasDeleteHorizon = int32[s + 6] !== 0;
    this.compression = names.compression[int32[s + 7]];
    this.timestampType = names.timestampType[int32[s + 8]];
    this.magic = int32[s + 9];
    const crcValid = int32[s + 10];
    this.crcValid = crcValid === 0 ? null : crcValid === 1;
    this.baseTimestamp = int64[l + 3];
    this.maxTimestamp = int64[l + 4];
    this.recordCount = int32[s + 11];
    this.sizeInBytes = int32[s + 12];
    this.uncompressedSize = int32[s + 13];
    this.position = int32[s + 14];
  }

  toJSON() {
    const out = {};
    for (const k of Object.keys(this)) out[k] = jsonInt64(this[k]);
    return out;
  }
}

/**
 * The batch columns' layout in a contract's batch fields, once Batch is held to them: a batch made
 * from columns of zeros has the contract's fields in its order, each what its type makes of a 0, and
 * setting any one slot of either column to 1 changes exactly the field the contract puts there, to what
 * its type makes of a 1 (bool and nullableBool differ at 0: false and null). A JS layer and a wasm
 * module from different builds fail here, at load.
 */
function batchLayoutOf(fields) {
  const int64Fields = fields.filter((f) => f.type === 'int64');
  const int32Fields = fields.filter((f) => f.type !== 'int64');
  const names = Object.fromEntries(fields.filter((f) => f.type === 'name').map((f) => [f.name, f.names]));
  const batchOf = (one64, one32) => new Batch(
    int64Fields.map((_, i) => (i === one64 ? 1 : 0)), 0,
    Int32Array.from(int32Fields, (_, i) => (i === one32 ? 1 : 0)), 0, names);
  // what the contract's type makes of a column value v (0 or 1)
  const valueOf = (f, v) => {
    switch (f.type) {
      case 'int64': case 'int32': return v;
      case 'bool': return v !== 0;
      case 'nullableBool': return v === 0 ? null : v === 1;
      case 'name': return f.names?.[v];
      default: return Symbol(f.type);
    }
  };
  const zero = batchOf(-1, -1);
  const fits = (probe, field) => {
    const changed = Object.keys(probe).filter((k) => !Object.is(probe[k], zero[k]));
    return changed.length === 1 && changed[0] === field.name && Object.is(probe[field.name], valueOf(field, 1));
  };
  const ok = Object.keys(zero).join() === fields.map((f) => f.name).join() &&
    fields.every((f) => Object.is(zero[f.name], valueOf(f, 0))) &&
    int64Fields.every((f, i) => fits(batchOf(i, -1), f)) &&
    int32Fields.every((f, i) => fits(batchOf(-1, i), f));
  if (!ok) throw new Error('kafka-fetch-decoder: the wasm module\'s batch fields differ from this JS (files from different builds)');
  return { int64PerBatch: int64Fields.length, int32PerBatch: int32Fields.length, names };
}

/** One Batch per batch of the call. */
function makeBatches(int64, int32) {
  const { int64PerBatch, int32PerBatch, names } = batchLayout;
  const n = int32.length / int32PerBatch;
  const batches = new Array(n);
  for (let b = 0; b < n; b++) batches[b] = new Batch(int64, b * int64PerBatch, int32, b * int32PerBatch, names);
  return batches;
}

// ---- records ----------------------------------------------------------------------------------

/**
 * A record. Its fields are `offset`, `timestamp`, `key`, `value`, `headers` ([{ key, value }] in
 * wire order, duplicates kept), `batch` (shared by the records of a batch), `leaderEpoch`,
 * `isControl` and `controlType`; the methods help with text and headers.
 */
class KafkaRecord {
  /** The key as UTF-8 text (null for a null key). */
  keyText() {
    const k = this.key;
    return k === null ? null : utf8.decode(k);
  }

  /** The value as UTF-8 text (null for a null value). */
  valueText() {
    const v = this.value;
    return v === null ? null : utf8.decode(v);
  }

  /** The value parsed as JSON (null for a null value; a SyntaxError if it is not JSON). */
  valueJson() {
    const text = this.valueText();
    return text === null ? null : JSON.parse(text);
  }

  /** The last value of header `key` (as Kafka's `lastHeader`), null for a null value, undefined if absent. */
  header(key) {
    const headers = this.headers;
    for (let i = headers.length - 1; i >= 0; i--) if (headers[i].key === key) return headers[i].value;
    return undefined;
  }

  /** Every value of header `key`, in wire order. */
  headerValues(key) {
    return this.headers.filter((h) => h.key === key).map((h) => h.value);
  }

  /** A plain object with every field and copies of the bytes: keeping it keeps nothing else alive. */
  toObject() {
    return {
      offset: this.offset,
      timestamp: this.timestamp,
      key: copyBytes(this.key),
      value: copyBytes(this.value),
      headers: this.headers.map((h) => ({ key: h.key, value: copyBytes(h.value) })),
      batch: { ...this.batch },
      leaderEpoch: this.leaderEpoch,
      isControl: this.isControl,
      controlType: this.controlType,
    };
  }

  /**
   * The JSON form: int64 values as numbers (or strings when they are BigInts), bytes as base64
   * strings (null for null), headers as [{ key, value }]; the batch is left out (a partition's
   * JSON lists its batches), its leader epoch kept; control records add isControl and controlType.
   */
  toJSON() {
    const out = {
      offset: jsonInt64(this.offset),
      timestamp: jsonInt64(this.timestamp),
      key: base64(this.key),
      value: base64(this.value),
      headers: this.headers.map((h) => ({ key: h.key, value: base64(h.value) })),
      leaderEpoch: this.leaderEpoch,
    };
    if (this.isControl) {
      out.isControl = true;
      out.controlType = this.controlType;
    }
    return out;
  }

  [Symbol.for('nodejs.util.inspect.custom')](depth, options, inspect) {
    const o = { ...this.toObject(), batch: `[batch ${this.batch.baseOffset}..${this.batch.lastOffset} ${this.batch.compression}]` };
    return `KafkaRecord ${inspect(o, options)}`;
  }
}

/** A record whose fields are its own properties: ordinary data for clone, postMessage and tests. */
class PlainRecord extends KafkaRecord {
  constructor(offset, timestamp, key, value, headers, batch, controlType) {
    super();
    this.offset = offset;
    this.timestamp = timestamp;
    this.key = key;
    this.value = value;
    this.headers = headers;
    this.batch = batch;
    this.leaderEpoch = batch.partitionLeaderEpoch;
    this.isControl = batch.isControl;
    this.controlType = controlType;
  }
}

/** A record of a transient result: fields read from wasm memory on access, after a validity check. */
class TransientRecord extends KafkaRecord {
  #c;
  #i;
  constructor(columns, index) {
    super();
    this.#c = columns;
    this.#i = index;
  }
  get offset() {
    this.#c.check();
    return this.#c.offsets[this.#i];
  }
  get timestamp() {
    this.#c.check();
    return this.#c.timestamps[this.#i];
  }
  get key() {
    this.#c.check();
    return this.#c.bytes(this.#c.keys, this.#i);
  }
  get value() {
    this.#c.check();
    return this.#c.bytes(this.#c.values, this.#i);
  }
  get headers() {
    this.#c.check();
    return this.#c.headers(this.#i);
  }
  get batch() {
    return this.#c.batches[this.#c.batchIndex[this.#i]];
  }
  get leaderEpoch() {
    return this.batch.partitionLeaderEpoch;
  }
  get isControl() {
    return this.batch.isControl;
  }
  get controlType() {
    this.#c.check();
    return this.#c.controlType(this.#i, this.batch);
  }
}

// ---- results ----------------------------------------------------------------------------------

// Where a response keeps the call it came from (not an enumerable field: clones and JSON leave it);
// a record set keeps it in a private field (RecordSet.sourceOf), cheaper per partition.
const SOURCE = Symbol('kafka-fetch-decoder.source');

/**
 * Where a record set's records come from: the call's columns, its range of them, the records once
 * built (for a bare record set also the call's kind, metadata and options). A class, not an object
 * literal: V8 allocates a literal's objects straight in the old generation once most of them
 * survive young collections (allocation-site pretenuring; a kept result's do), and young records
 * hung from an old source are then copied by every young collection until a full one. Decoding
 * bench_tiny_none in a loop (decode, read, drop) fell from 3.3M to 1.0-1.2M records/s within
 * seconds, 70% of the time collecting; with a class it stays at 3.1-4.4M.
 */
class RecordSource {
  constructor(columns, start, end) {
    this.columns = columns;
    this.start = start;
    this.end = end;
    this.records = undefined;
    this.kind = null;
    this.meta = null;
    this.options = null;
  }
}

/**
 * A partition's (or a bare record set's) records and batches. `records` is built the first time it
 * is read; `record(i)` builds one. Other fields are plain data.
 */
class RecordSet {
  // the call this set came from: its columns, its range of them, its records once built
  #source;

  /**
   * `set` is the record set's summary in the call's metadata (indexes into the columns, partial,
   * next offset, error), read here for every kind of result; a response's partition (its metadata
   * array) gives its fields first, a bare record set has none (null).
   */
  constructor(columns, set, int64, partition, fetchOffset) {
    // A response's partition: its fields first, by name from its metadata array. Written here in
    // the constructor, where V8 counts them and keeps them inside the object, rather than copied from
    // an object literal with Object.assign, which took its slow path (both together: 10,000
    // partitions in 20-25% less time).
    if (partition !== null) {
      const aborted = partition[P.abortedTransactions];
      const diverging = partition[P.divergingEpoch];
      const snapshot = partition[P.snapshotId];
      this.partition = partition[P.partition];
      this.errorCode = partition[P.errorCode];
      this.errorName = contractErrorName(partition[P.errorCode]);
      this.highWatermark = int64(partition[P.highWatermark]);
      this.lastStableOffset = int64(partition[P.lastStableOffset]);
      this.logStartOffset = int64(partition[P.logStartOffset]);
      this.abortedTransactions = aborted && aborted.map(([producerId, firstOffset]) => ({
        producerId: int64(producerId),
        firstOffset: int64(firstOffset),
      }));
      this.preferredReadReplica = partition[P.preferredReadReplica];
      this.divergingEpoch = diverging && { epoch: diverging.epoch, endOffset: int64(diverging.endOffset) };
      this.currentLeader = partition[P.currentLeader];
      this.snapshotId = snapshot && { endOffset: int64(snapshot.endOffset), epoch: snapshot.epoch };
    }
    this.partial = set[S.partial];
    this.nextOffset = int64(set[S.nextOffset]);
    this.error = set[S.error];
    let start = set[S.recordsStart];
    const end = set[S.recordsEnd];
    // records below the fetch offset that a batch starting earlier carries (fetchOffsets option)
    if (fetchOffset != null) {
      const floor = typeof columns.offsets[0] === 'bigint' ? BigInt(fetchOffset) : Number(fetchOffset);
      while (start < end && columns.offsets[start] < floor) start++;
    }
    this.#source = new RecordSource(columns, start, end);
    // an own property, as data is (JSON, structuredClone, spread see it), built on first read; one
    // getter for every set, so that V8 gives all sets one shape (a closure each would not)
    Object.defineProperty(this, 'records', RecordSet.#recordsOnFirstRead);
    this.batches = columns.batches.slice(set[S.batchesStart], set[S.batchesEnd]);
  }

  /** The number of records (without building them). */
  get recordCount() {
    const s = this.#source;
    return s.end - s.start;
  }

  /** The call a record set came from, or undefined for anything else. */
  static sourceOf(value) {
    return value !== null && typeof value === 'object' && #source in value ? value.#source : undefined;
  }

  // The built array is kept beside the set rather than turning the property into a data property:
  // redefining a property on every set costed more than building its records (10,000 partitions).
  static #recordsOnFirstRead = {
    enumerable: true,
    configurable: true,
    get() {
      const source = this.#source;
      if (source.records !== undefined) return source.records;
      const records = buildRecords(source.columns, source.start, source.end);
      // kept (a transient set builds them at each read: they check that their memory is still theirs)
      if (source.columns.generation === null) source.records = records;
      return records;
    },
    // assignable, as a data property would be
    set(records) {
      this.#source.records = records;
    },
  };

  /** Record `i` of this set (0-based), built on its own. */
  record(i) {
    const { columns, start, end } = this.#source;
    if (!(Number.isInteger(i) && i >= 0 && start + i < end)) throw new RangeError(`kafka-fetch-decoder: record index ${i} out of 0..${end - start - 1}`);
    if (columns.generation !== null) {
      columns.check();
      return new TransientRecord(columns, start + i);
    }
    return columns.record(start + i);
  }

  toJSON() {
    const out = {};
    for (const k of Object.keys(this)) out[k] = k === 'records' ? this.records : jsonSafe(this[k]);
    return out;
  }
}

function buildRecords(columns, start, end) {
  const out = new Array(end - start);
  columns.check();
  // a kept result's columns stay valid until toTransferable hands them to another thread
  if (end > start && columns.moved) {
    throw new Error('kafka-fetch-decoder: these records were moved to another thread (toTransferable); read them there, after fromTransferable');
  }
  if (columns.generation !== null) {
    for (let i = start; i < end; i++) out[i - start] = new TransientRecord(columns, i);
  } else {
    for (let i = start; i < end; i++) out[i - start] = columns.record(i);
  }
  return out;
}

/**
 * The first `count` records of a record set, built for a caller that keeps them itself (the live
 * client's chunks): not kept in the set, unless it has built them already. A set that lived through
 * a few garbage collections is in the old generation, and young records hung from it would be
 * copied by every young collection until a full one (measured: a quarter of a consume pass).
 */
function recordsOf(set, count) {
  const source = RecordSet.sourceOf(set);
  const built = source.records;
  if (built !== undefined) return count === built.length ? built : built.slice(0, count);
  return buildRecords(source.columns, source.start, source.start + count);
}

/** Builds the result of a decodeFetchResponse call from its metadata and columns. */
function responseResult(r, columns, o) {
  const int64 = int64Converter(o.bigint);
  const errorName = (code) => (code == null ? null : contractErrorName(code));
  const result = {
    correlationId: r.correlationId,
    throttleTimeMs: r.throttleTimeMs,
    errorCode: r.errorCode,
    errorName: errorName(r.errorCode),
    sessionId: r.sessionId,
    topics: r.topics.map((t) => {
      const topic = t.topic ?? (t.topicId != null ? o.topicNames?.get(t.topicId) ?? null : null);
      return {
        topic,
        topicId: t.topicId,
        partitions: t.partitions.map((p) => new RecordSet(columns, p[P.recordSet], int64, p, fetchOffsetFor(o.fetchOffsets, topic, t.topicId, p[P.partition]))),
      };
    }),
    nodeEndpoints: r.nodeEndpoints,
    // bytes after the last field (decoded as Java does; usually a wrong api version or a capture
    // glued to the next frame: `hint` says which when it can tell)
    trailingBytes: r.trailingBytes,
    hint: r.hint,
    // onError 'partition': the error that cut the response short (its complete partitions kept)
    error: r.error,
  };
  Object.defineProperty(result, SOURCE, { value: { kind: 'response', meta: r, columns, options: o } });
  return result;
}

function recordSetResult(set, columns, o) {
  const result = new RecordSet(columns, set, int64Converter(o.bigint), null, o.fetchOffset ?? null);
  Object.assign(RecordSet.sourceOf(result), { kind: 'recordSet', meta: set, options: o });
  return result;
}

const contractErrorName = (code) => contract?.errorNames?.[String(code)] ?? (code === 0 ? 'NONE' : 'UNKNOWN_SERVER_ERROR');

// ---- moving a result to another thread --------------------------------------------------------

/**
 * A whole result as one structured-clone message plus the list of buffers to transfer:
 * `postMessage(data, transfer)`, then `fromTransferable(data)` on the other side. The columns and
 * decompressed bytes move, without a copy when they have a buffer of their own, else in one copy
 * (the records of a kept result are unusable here afterwards); the input bytes
 * are copied once if records point into them (uncompressed batches), and left behind if none does.
 * No record object crosses.
 */
function toTransferable(result) {
  const source = result?.[SOURCE] ?? RecordSet.sourceOf(result);
  if (!source?.kind) throw new TypeError('kafka-fetch-decoder: toTransferable takes a result of decodeFetchResponse or decodeRecordSet');
  const c = source.columns;
  c.check();
  // a copy of its own, also for a Buffer (whose slice() is a view of the caller's memory)
  const input = pointsIntoInput(c) ? copyBytes(c.input) : new Uint8Array(0);
  // a kept result moves its own buffer; a transient one is copied into a buffer that moves
  const { arena, columns } = c.generation === null ? { arena: c.arena, columns: perRecordColumns(c, (v) => v) } : copyColumnsOut(c);
  if (c.generation === null) c.moved = true;
  const batches = c.batches.map((b) => ({ ...b }));
  const { fetchOffsets, topicNames, bigint } = source.options;
  const data = {
    kafkaFetchDecoder: 1,
    kind: source.kind,
    meta: source.meta,
    options: { bigint, fetchOffsets, topicNames, fetchOffset: source.options.fetchOffset },
    columns,
    input,
    // where the positions of the decompressed bytes start, whether or not the input came along
    inputLength: c.inputLength,
    arena,
    headerKeys: c.headerKeys,
    controlTypes: c.controlTypes,
    batches,
    // how to read `meta`, for a side that has not loaded the wasm module
    layout: metadataLayout,
  };
  const transfer = [...new Set([input.buffer, arena.buffer, ...Object.values(columns).map((a) => a.buffer)])];
  return { data, transfer };
}

/** Whether a key, value or header value of these columns lies in the input bytes. */
function pointsIntoInput(c) {
  for (const pairs of [c.keys, c.values, c.headerValues]) {
    for (let i = 0; i < pairs.length; i += 2) if (pairs[i + 1] >= 0 && pairs[i] < c.inputLength) return true;
  }
  return false;
}

/** Rebuilds a result sent with toTransferable (no wasm needed on this side). */
function fromTransferable(data) {
  if (data?.kafkaFetchDecoder !== 1) throw new TypeError('kafka-fetch-decoder: fromTransferable takes the data of toTransferable');
  if (P === null) useMetadataLayout(metadataLayoutOf(data.layout));
  const batches = data.batches.map((b) => Object.assign(new Batch(), b));
  const columns = new Columns({
    ...data.columns,
    input: data.input,
    inputLength: data.inputLength,
    arena: data.arena,
    headerKeys: data.headerKeys,
    controlTypes: data.controlTypes,
    batches,
  });
  return data.kind === 'response' ? responseResult(data.meta, columns, data.options) : recordSetResult(data.meta, columns, data.options);
}

// ---- decoding ---------------------------------------------------------------------------------

// The bytes fetchPositionsOf last left in the engine's input buffer, for the decode that follows.
let scanned = null;

/**
 * Puts `input` in the engine's input buffer, unless fetchPositionsOf has just put that same input
 * there; `keep`: leave it there for the next call. The bytes fetchPositionsOf left are known only
 * weakly, so that a frame scanned and never decoded (a consumer that stopped) is not kept alive.
 */
function loadInput(input, keep) {
  const there = scanned?.deref() === input;
  scanned = null;
  if (!there) {
    const ptr = engine.input_buffer(input.length);
    new Uint8Array(memory.buffer, ptr, input.length).set(input);
  }
  if (keep) scanned = new WeakRef(input);
}

/**
 * Runs `call` on the shared engine (made on first use); its failures become typed errors: the
 * decoder's JSON error documents a KafkaDecodeError (a RangeError for an argument out of range),
 * anything else resets the engine (replaceEngineAfter).
 */
function withEngine(call) {
  requireWasm();
  engine ??= new wasm.WasmDecoder();
  try {
    return call(engine);
  } catch (e) {
    if (typeof e !== 'string') throw replaceEngineAfter(e);
    const info = JSON.parse(e);
    if (info.code === 'RANGE') throw new RangeError(info.message);
    throw new KafkaDecodeError(info);
  }
}

/** Runs one wasm call on the shared engine; returns the metadata and the columns. */
function decodeWith(input, recordSet, o) {
  // the memory a transient result's views read is reused from here on
  generation++;
  const length = withEngine((e) => {
    loadInput(input, false);
    return e.decode(input.length, recordSet, o.apiVersion, o.flags, o.max, o.maxPerCall);
  });
  // the metadata JSON stays in wasm memory, in a buffer reused by the next call
  const meta = JSON.parse(utf8.decode(new Uint8Array(memory.buffer, engine.metadata_ptr(), length)));
  return { meta, columns: Columns.fromWasm(input, meta, o.bigint, o.transient) };
}

/**
 * A failure that is not a decoding error is a bug (a panic, whose message went to the console) or
 * memory running out; wasm-bindgen then refuses every later call on that handle. Start over with a
 * fresh one so that the next call works, and say so.
 */
function replaceEngineAfter(e) {
  engine = null;
  scanned = null;
  const error = new Error(`kafka-fetch-decoder: the decoder failed inside wasm (${e?.message ?? e}); it was reset, later calls work`);
  error.cause = e;
  return error;
}

/**
 * A decoder. Every FetchDecoder of a module instance shares one wasm-side decoder (its arena and
 * buffers), so creating many costs nothing; the plain functions use one too.
 */
class FetchDecoder {
  #freed = false;

  constructor() {
    requireWasm();
  }

  /** Decodes a FetchResponse frame (the bytes after the 4-byte size prefix). */
  decodeFetchResponse(frame, options) {
    this.#check();
    const o = parseOptions(options, false);
    const { meta, columns } = decodeWith(toBytes(frame), false, o);
    return responseResult(meta.response, columns, o);
  }

  /** Decodes a bare record set: one partition's records, or a log segment file. */
  decodeRecordSet(bytes, options) {
    this.#check();
    const o = parseOptions(options, true);
    const { meta, columns } = decodeWith(toBytes(bytes), true, o);
    return recordSetResult(meta.recordSet, columns, o);
  }

  /** Ends this decoder: later calls throw. (Its wasm memory is shared; nothing else to release.) */
  free() {
    this.#freed = true;
  }

  #check() {
    if (this.#freed) throw new Error('kafka-fetch-decoder: this FetchDecoder was freed; create a new one');
  }
}

let shared = null;
const sharedDecoder = () => (shared ??= new FetchDecoder());

/** Decodes a FetchResponse frame. */
function decodeFetchResponse(frame, options) {
  return sharedDecoder().decodeFetchResponse(frame, options);
}

/** Decodes a raw record set (a partition's records or a .log segment). */
function decodeRecordSet(bytes, options) {
  return sharedDecoder().decodeRecordSet(bytes, options);
}

/** The wasm memory (for checking that it stops growing). */
function wasmMemory() {
  requireWasm();
  return memory;
}

/**
 * For the live client: where each partition of a Fetch response frame continues, read from its
 * batch headers ({ errorCode, partitions: [{ topicIndex, partition, errorCode, highWatermark,
 * lastStableOffset, nextOffset, partial }] }; null when only a decode can tell: legacy messages, an
 * entry the decoder rejects). The frame is left in the engine, so that decoding the same frame
 * (unchanged) next copies it only once for both.
 */
function fetchPositionsOf(frame, version) {
  // no transient result reads the input buffer, so this call ends none (unless it grows wasm
  // memory, which their check() sees)
  return JSON.parse(withEngine((e) => {
    loadInput(frame, true);
    return e.fetch_positions(frame.length, version);
  }));
}

/** The wasm bindings, for the protocol layer of the live client (client/protocol.mjs). */
function protocolBindings() {
  requireWasm();
  return wasm;
}

/** The name of a Kafka error code ('NOT_LEADER_OR_FOLLOWER' for 6), from Kafka's error table. */
function errorName(code) {
  requireWasm();
  return contractErrorName(code);
}

export {
  attach, decodeFetchResponse, decodeRecordSet, errorName, FetchDecoder, fetchPositionsOf, fromTransferable, KafkaDecodeError,
  KafkaRecord, protocolBindings, recordsOf, toTransferable, wasmMemory,
};
