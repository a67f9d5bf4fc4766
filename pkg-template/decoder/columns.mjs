// The output of one call as JS sees it: the record columns (offsets, timestamps, key, value and
// header ranges, batch indexes), the bytes they point into and the call's batches. Normally
// copied out of wasm memory into one buffer of the result's own, so that records outlive later
// calls; with `transient`, views into wasm memory that check they are still valid.

import { makeBatches } from './batches.mjs';
import { ByteView } from './bytes.mjs';
import { batchLayout, columnTypes, contract } from './contract.mjs';
import { generation, memory } from './engine.mjs';
import { PlainRecord } from './records.mjs';

const TYPED_ARRAYS = { byteRanges: [Int32Array, 2], uint32: [Uint32Array, 1], int32: [Int32Array, 1], uint8: [Uint8Array, 1] };
const NO_HEADERS = Object.freeze([]);

function columnView(buffer, type, ptr, len, bigint) {
  if (type === 'int64') return new (bigint ? BigInt64Array : Float64Array)(buffer, ptr, len);
  const [Type, per] = TYPED_ARRAYS[type];
  return new Type(buffer, ptr, len * per);
}

// The columns indexed by record or header (the batches' columns become Batch objects at once).
export const PER_RECORD_COLUMNS = ['offsets', 'timestamps', 'keys', 'values', 'headersEnd', 'batchIndex', 'headerKeyIds', 'headerValues'];

/** Those columns of `from`, each passed through `take` (a copy, or the view itself). */
export function perRecordColumns(from, take) {
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
 * faults its buffer in again: benches/README.md, "Kept results against transient ones").
 * (An 8 MiB slab shared by consecutive calls outlived its first results, was promoted and waited
 * for full collections: 14 of them instead of 2 in 1.5 s of decoding bench_tiny_none in a loop, and
 * a third fewer records/s there, 7% fewer on bench_none, level on the compressed frames.)
 * toTransferable moves the buffer as it is.
 */
const newBuffer = (n) => (typeof Buffer === 'function' ? Buffer.allocUnsafeSlow(n).buffer : new ArrayBuffer(n));
const align8 = (n) => (n + 7) & ~7;

/** Copies `views` (typed arrays) into one new buffer, each 8-byte aligned; returns the copies, in order. */
export function copyOut(views) {
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

/** The decompressed bytes (`arena`), the per-record columns of `from` and `arrow`'s arrays, copied by copyOut. */
export function copyColumnsOut(from, arrow = null) {
  const copies = copyOut([from.arena, ...PER_RECORD_COLUMNS.map((name) => from[name]), ...(arrow ? [arrow.buf, arrow.layout] : [])]);
  const columns = {};
  PER_RECORD_COLUMNS.forEach((name, i) => {
    columns[name] = copies[i + 1];
  });
  const n = PER_RECORD_COLUMNS.length + 1;
  return { arena: copies[0], columns, arrow: arrow ? { buf: copies[n], layout: copies[n + 1] } : null };
}

/**
 * The output of one call: the record columns, the bytes they point into (the caller's input for
 * uncompressed batches, the decompressed bytes for the others), the batches and the header keys.
 * Normally copied out of wasm memory, so they outlive later calls; with `transient` they are views
 * into it, and `check()` throws once a later call may have overwritten them.
 */
export class Columns {
  static fromWasm(input, meta, bigint, transient) {
    const buffer = memory.buffer;
    const views = {};
    const cols = meta.cols; // [address, length] pairs in the contract's column order
    for (let i = 0; i < columnTypes.length; i++) {
      const [name, type] = columnTypes[i];
      views[name] = columnView(buffer, type, cols[2 * i], cols[2 * i + 1], bigint);
    }
    // with the arrow option: each record set's Arrow arrays, and where they are (js::arrow)
    const arrow = meta.arrow
      ? { buf: new Uint8Array(buffer, meta.arrow[0], meta.arrow[1]), layout: new Uint32Array(buffer, meta.arrow[2], meta.arrow[3]) }
      : null;
    // kept: the decompressed bytes, the record columns (and the Arrow arrays) copied out, so that
    // later calls never touch them; transient: the views into wasm memory themselves
    const out = transient ? { arena: views.arena, columns: perRecordColumns(views, (v) => v), arrow } : copyColumnsOut(views, arrow);
    return new Columns(
      {
        input: input.subarray(0, meta.inputLength),
        inputLength: meta.inputLength,
        arena: out.arena,
        ...out.columns,
        headerKeys: meta.headerKeys,
        arrow: out.arrow,
        // built here and now, so their columns need no copy
        batches: makeBatches(views.batchInt64, views.batchInt32, batchLayout),
        controlTypes: contract.controlTypes,
      },
      transient ? generation : null,
    );
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
    // each record set's Arrow arrays ({ buf, layout }), with the arrow option
    this.arrow = c.arrow ?? null;
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
      throw new Error(
        'kafka-fetch-decoder: a transient result was read after a later call (on any decoder) reused its memory; copy what you keep (record.toObject()), or decode without `transient`',
      );
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
