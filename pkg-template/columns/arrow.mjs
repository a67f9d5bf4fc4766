// Results as Apache Arrow, without a JS object per record: each partition's records become one
// Arrow record batch built from the call's own columns (offsets, timestamps, key and value ranges,
// header ranges, batch indexes), with flechette (bundled in vendor/) holding the batches and
// writing Arrow IPC.
//
// Keys, values and header values are Arrow's view types (BinaryView, Utf8View): 16 bytes a value,
// the bytes themselves inline up to 12, else a reference (buffer, offset) to where they lie: in the
// input (uncompressed batches: the caller's own bytes, not copied) or in the call's decompressed
// bytes (copied out of wasm memory once, for a transient result). Nothing is copied per record,
// nothing allocated per record. Strings repeated per record (topic, compression, timestamp type,
// control type, header keys) are one view each, repeated. `compact()` copies what a batch refers
// to into buffers of its own, for files (no input bytes around the values).
//
// The columns, in this order: topic, partition, offset, timestamp (ms, null for Kafka's -1),
// timestamp_type, key, value, headers (list<struct<key, value>>, wire order, duplicates kept),
// leader_epoch, compression, producer_id, is_transactional, is_control, control_type (null but for
// control records), is_aborted, and with decoded values (values/) key_decoded and value_decoded (the
// JSON form as text).

import { RecordSet, SOURCE } from '../decoder/results.mjs';
import { chunkSource } from '../client/consume.mjs';
import { arrowLibrary } from './library.mjs';

const utf8 = new TextEncoder();
const NO_BYTES = new Uint8Array(0);

/** The Arrow schema's fields (as flechette types), built once per library. */
let fieldsOf = null;
function schemaFields(f, decoded) {
  fieldsOf ??= {
    base: [
      f.field('topic', f.utf8View(), false),
      f.field('partition', f.int32(), false),
      f.field('offset', f.int64(), false),
      f.field('timestamp', f.timestamp(f.TimeUnit.MILLISECOND, 'UTC'), true),
      f.field('timestamp_type', f.utf8View(), false),
      f.field('key', f.binaryView(), true),
      f.field('value', f.binaryView(), true),
      f.field('headers', f.list(f.field('item', f.struct([f.field('key', f.utf8View(), false), f.field('value', f.binaryView(), true)]), false)), false),
      f.field('leader_epoch', f.int32(), false),
      f.field('compression', f.utf8View(), false),
      f.field('producer_id', f.int64(), false),
      f.field('is_transactional', f.bool(), false),
      f.field('is_control', f.bool(), false),
      f.field('control_type', f.utf8View(), true),
      f.field('is_aborted', f.bool(), false),
    ],
    decoded: [f.field('key_decoded', f.utf8View(), true), f.field('value_decoded', f.utf8View(), true)],
  };
  return decoded ? [...fieldsOf.base, ...fieldsOf.decoded] : fieldsOf.base;
}

/**
 * The records of `input` as an Arrow table (flechette's Table): a response or record set of
 * decodeFetchResponse / decodeRecordSet, a consume chunk, or an array of them, one record batch per
 * partition. `options.decoded`: add key_decoded and value_decoded, the records' decoded sides (a
 * ValueDecoder's attach) in their JSON form; `options.topic`: the topic of record sets, which have
 * none of their own.
 */
export function toArrow(input, options = {}) {
  const f = arrowLibrary();
  const parts = [];
  for (const item of Array.isArray(input) ? input : [input]) parts.push(...rangesOf(item, options.topic ?? ''));
  const decoded = Boolean(options.decoded);
  const fields = schemaFields(f, decoded);
  const batches = parts.filter((p) => p.end > p.start || parts.length === 1).map((p) => recordBatch(f, fields, p, decoded));
  const columns = fields.map((field, i) => new f.Column(batches.map((b) => b[i]), field.type));
  return new f.Table({ version: f.Version.V5, endianness: f.Endianness.Little, fields, metadata: null }, columns);
}

/**
 * The partitions of one result as ranges of its call's columns: [{ topic, partition, columns,
 * start, end, records? }]. A consume chunk is the first `recordCount` records of its set.
 */
function rangesOf(item, topic) {
  const chunk = chunkSource(item);
  if (chunk) return [rangeOf(chunk.set, item.topic, chunk.count, item.records)];
  const set = RecordSet.sourceOf(item);
  if (set) return [rangeOf(item, topic, null)];
  const source = item?.[SOURCE];
  if (source?.kind === 'response') {
    return item.topics.flatMap((t) => t.partitions.map((p) => rangeOf(p, t.topic ?? t.topicId ?? '', null)));
  }
  throw new TypeError('kafka-fetch-decoder: toArrow takes a result of decodeFetchResponse or decodeRecordSet, a consume chunk, or an array of them');
}

function rangeOf(set, topic, count, records = null) {
  const source = RecordSet.sourceOf(set);
  const columns = source.columns;
  columns.check();
  if (columns.moved) throw new Error('kafka-fetch-decoder: these records were moved to another thread (toTransferable); make the table there, after fromTransferable');
  const end = count === null ? source.end : source.start + count;
  return { topic: topic ?? '', partition: set.partition ?? -1, columns, start: source.start, end, records: records ?? source.records ?? null };
}

// ---- one record batch ---------------------------------------------------------------------------

function recordBatch(f, fields, part, decoded) {
  const { columns: c, start, end } = part;
  const n = end - start;
  // a transient result's decompressed bytes are views into wasm memory: copied out once
  const arena = c.generation === null ? c.arena : c.arena.slice();
  const data = [c.input, arena];
  const B = (i, props) => new (f.batchType(fields[i].type))({ type: fields[i].type, length: n, nullCount: 0, validity: NO_BYTES, ...props });
  // the batch fields, once per batch, then gathered by each record's batch index
  const batchAt = c.batchIndex.subarray(start, end);
  const batches = c.batches;
  const epochs = Int32Array.from(batches, (b) => b.partitionLeaderEpoch);
  const producers = new Int32Array(BigInt64Array.from(batches, (b) => BigInt(b.producerId)).buffer);
  const flag = (name) => Uint8Array.from(batches, (b) => (b[name] ? 1 : 0));

  const out = [];
  out.push(B(0, repeatedText(utf8.encode(part.topic), n)));
  out.push(B(1, { values: new Int32Array(n).fill(part.partition) }));
  out.push(B(2, { values: int64Column(c.offsets, start, end, c.generation !== null) }));
  const ts = int64Column(c.timestamps, start, end, c.generation !== null);
  const tsHalves = new Int32Array(ts.buffer, ts.byteOffset, 2 * n);
  out.push(B(3, { values: ts, ...nullsWhere(n, (k) => tsHalves[2 * k] === -1 && tsHalves[2 * k + 1] === -1) }));
  out.push(B(4, indexedText(batches.map((b) => b.timestampType), batchAt)));
  out.push(B(5, bytesViews(c.keys, start, end, c.inputLength, data)));
  out.push(B(6, bytesViews(c.values, start, end, c.inputLength, data)));
  out.push(headersBatch(f, fields[7].type, c, start, end, data));
  const epoch = new Int32Array(n);
  for (let k = 0; k < n; k++) epoch[k] = epochs[batchAt[k]];
  out.push(B(8, { values: epoch }));
  out.push(B(9, indexedText(batches.map((b) => b.compression), batchAt)));
  const producer = new BigInt64Array(n);
  const halves = new Int32Array(producer.buffer);
  for (let k = 0; k < n; k++) {
    halves[2 * k] = producers[2 * batchAt[k]];
    halves[2 * k + 1] = producers[2 * batchAt[k] + 1];
  }
  out.push(B(10, { values: producer }));
  const transactional = flag('isTransactional');
  const control = flag('isControl');
  const aborted = flag('isAborted');
  out.push(B(11, { values: bits(n, (k) => transactional[batchAt[k]] === 1) }));
  out.push(B(12, { values: bits(n, (k) => control[batchAt[k]] === 1) }));
  // control records are few: their type read from their key, as records do
  const controlType = (k) => (control[batchAt[k]] ? c.controlType(start + k, batches[batchAt[k]]) : null);
  out.push(B(13, { ...gatheredText(n, controlType), ...nullsWhere(n, (k) => control[batchAt[k]] === 0) }));
  out.push(B(14, { values: bits(n, (k) => aborted[batchAt[k]] === 1) }));
  if (decoded) {
    const records = part.records;
    for (const [i, side] of [[15, 'decodedKey'], [16, 'decodedValue']]) {
      const text = (k) => {
        const d = records?.[k]?.[side];
        return !d || d.format === 'null' || d.format === 'bytes' ? null : JSON.stringify(d.value, jsonReplacer);
      };
      const texts = Array.from({ length: n }, (_, k) => text(k));
      out.push(B(i, { ...textViews(texts), ...nullsWhere(n, (k) => texts[k] === null) }));
    }
  }
  return out;
}

/** Utf8View of strings chosen by index (a batch's, a header key's): each string's bytes once, a view per string. */
function indexedText(texts, indexes) {
  const distinct = [...new Set(texts)];
  const bytes = distinct.map((t) => utf8.encode(t));
  const size = bytes.reduce((s, b) => s + b.length, 0);
  const buffer = concat(bytes, size);
  // one 16-byte view per batch
  const templates = new Int32Array(4 * texts.length);
  const t8 = new Uint8Array(templates.buffer);
  let at = 0;
  const offsetOf = new Map(distinct.map((t, i) => {
    const o = at;
    at += bytes[i].length;
    return [t, [bytes[i], o]];
  }));
  texts.forEach((t, b) => {
    const [tb, o] = offsetOf.get(t);
    writeView(templates, t8, b, tb, 0, tb.length, 0, o);
  });
  const n = indexes.length;
  const views = new Int32Array(4 * n);
  for (let k = 0; k < n; k++) {
    const t = 4 * indexes[k];
    views[4 * k] = templates[t];
    views[4 * k + 1] = templates[t + 1];
    views[4 * k + 2] = templates[t + 2];
    views[4 * k + 3] = templates[t + 3];
  }
  return { values: new Uint8Array(views.buffer), data: [buffer] };
}

/** A 64-bit column's range as a BigInt64Array: the call's own, or the exact integers of a Float64Array. */
function int64Column(column, start, end, copy) {
  if (column instanceof BigInt64Array) return copy ? column.slice(start, end) : column.subarray(start, end);
  // numbers (int64 'number'): written as two 32-bit halves, no BigInt made per value
  const out = new BigInt64Array(end - start);
  const halves = new Int32Array(out.buffer);
  for (let k = 0; k < end - start; k++) {
    const v = column[start + k];
    const hi = Math.floor(v / 4294967296);
    halves[2 * k] = v - hi * 4294967296;
    halves[2 * k + 1] = hi;
  }
  return out;
}

/** A bitmap (Arrow's LSB order) of `test(k)` for k < n. */
function bits(n, test) {
  const out = new Uint8Array((n + 7) >> 3);
  for (let k = 0; k < n; k++) if (test(k)) out[k >> 3] |= 1 << (k & 7);
  return out;
}

/** { validity, nullCount } for the records where `isNull(k)`, or nothing when none is. */
function nullsWhere(n, isNull) {
  let nulls = 0;
  const validity = bits(n, (k) => {
    const valid = !isNull(k);
    if (!valid) nulls++;
    return valid;
  });
  return nulls ? { validity, nullCount: nulls } : {};
}

// ---- views ---------------------------------------------------------------------------------------

/** One 16-byte view of `bytes` at buffer `index`, offset `at` (inline when 12 bytes or fewer). */
function writeView(views, bytes8, k, bytes, from, len, index, at) {
  const o = 4 * k;
  views[o] = len;
  const b = 16 * k + 4;
  if (len <= 12) {
    for (let j = 0; j < len; j++) bytes8[b + j] = bytes[from + j];
    return;
  }
  bytes8[b] = bytes[from];
  bytes8[b + 1] = bytes[from + 1];
  bytes8[b + 2] = bytes[from + 2];
  bytes8[b + 3] = bytes[from + 3];
  views[o + 2] = index;
  views[o + 3] = at;
}

/**
 * BinaryView of a range of (position, length) pairs (length -1: null): positions below inputLength
 * are in the input (buffer 0), the others in the decompressed bytes (buffer 1).
 */
function bytesViews(pairs, start, end, inputLength, data) {
  const n = end - start;
  const views = new Int32Array(4 * n);
  const bytes8 = new Uint8Array(views.buffer);
  const [input, arena] = data;
  let nulls = 0;
  let validity = null;
  for (let k = 0; k < n; k++) {
    const len = pairs[2 * (start + k) + 1];
    if (len < 0) {
      if (!validity) validity = new Uint8Array((n + 7) >> 3).fill(0xff);
      validity[k >> 3] &= ~(1 << (k & 7));
      nulls++;
      continue;
    }
    const pos = pairs[2 * (start + k)];
    if (pos < inputLength) writeView(views, bytes8, k, input, pos, len, 0, pos);
    else writeView(views, bytes8, k, arena, pos - inputLength, len, 1, pos - inputLength);
  }
  return { values: bytes8, data, ...(nulls ? { validity, nullCount: nulls } : {}) };
}

/** Utf8View of one string repeated n times. */
function repeatedText(bytes, n) {
  const views = new Int32Array(4 * n);
  const bytes8 = new Uint8Array(views.buffer);
  writeView(views, bytes8, 0, bytes, 0, bytes.length, 0, 0);
  for (let k = 1; k < n; k++) views.copyWithin(4 * k, 0, 4);
  return { values: bytes8, data: [bytes] };
}

/** Utf8View of a few distinct strings (or nulls) chosen per record: each string's bytes once. */
function gatheredText(n, textAt) {
  const encoded = new Map();
  const chunks = [];
  let size = 0;
  const views = new Int32Array(4 * n);
  const bytes8 = new Uint8Array(views.buffer);
  for (let k = 0; k < n; k++) {
    const text = textAt(k);
    if (text === null || text === undefined) continue;
    let e = encoded.get(text);
    if (!e) {
      const bytes = utf8.encode(text);
      e = { bytes, at: size };
      encoded.set(text, e);
      chunks.push(bytes);
      size += bytes.length;
    }
    writeView(views, bytes8, k, e.bytes, 0, e.bytes.length, 0, e.at);
  }
  return { values: bytes8, data: [concat(chunks, size)] };
}

/** Utf8View of per-record strings (nulls allowed), their bytes in one buffer. */
function textViews(texts) {
  const encoded = texts.map((t) => (t === null ? null : utf8.encode(t)));
  const size = encoded.reduce((s, b) => s + (b && b.length > 12 ? b.length : 0), 0);
  const buffer = new Uint8Array(size);
  const views = new Int32Array(4 * texts.length);
  const bytes8 = new Uint8Array(views.buffer);
  let at = 0;
  encoded.forEach((b, k) => {
    if (!b) return;
    writeView(views, bytes8, k, b, 0, b.length, 0, at);
    if (b.length > 12) {
      buffer.set(b, at);
      at += b.length;
    }
  });
  return { values: bytes8, data: [buffer] };
}

function concat(chunks, size) {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** The headers column: list offsets from the call's header ranges, a struct of key and value views. */
function headersBatch(f, type, c, start, end, data) {
  const n = end - start;
  const base = start === 0 ? 0 : c.headersEnd[start - 1];
  const last = end === 0 ? 0 : c.headersEnd[end - 1];
  const offsets = new Int32Array(n + 1);
  for (let k = 0; k < n; k++) offsets[k + 1] = c.headersEnd[start + k] - base;
  const count = last - base;
  const [keyField, valueField] = type.children[0].type.children;
  const keys = indexedText(c.headerKeys.length ? c.headerKeys : [''], c.headerKeyIds.subarray(base, last));
  const values = bytesViews(c.headerValues, base, last, c.inputLength, data);
  const child = (field, props) => new (f.batchType(field.type))({ type: field.type, length: count, nullCount: 0, validity: NO_BYTES, ...props });
  const struct = new (f.batchType(type.children[0].type))({
    type: type.children[0].type, length: count, nullCount: 0, validity: NO_BYTES, children: [child(keyField, keys), child(valueField, values)],
  });
  return new (f.batchType(type))({ type, length: n, nullCount: 0, validity: NO_BYTES, offsets, children: [struct] });
}

// ---- compaction, for files -------------------------------------------------------------------------

/**
 * A table whose view columns refer only to bytes of their own: each batch's long values (over 12
 * bytes) copied, in order, into one buffer per column, so that an IPC file holds the records'
 * bytes and nothing of the frames they came in.
 */
export function compact(table) {
  const f = arrowLibrary();
  const columns = table.children.map((col) => new f.Column(col.data.map((b) => compactBatch(f, b)), col.type));
  return new f.Table(table.schema, columns);
}

function compactBatch(f, batch) {
  const { typeId } = batch.type;
  if (typeId === f.Type.List || typeId === f.Type.Struct) {
    return new (f.batchType(batch.type))({ ...batchProps(batch), children: batch.children.map((b) => compactBatch(f, b)) });
  }
  if (typeId !== f.Type.BinaryView && typeId !== f.Type.Utf8View) return batch;
  const views = new Int32Array(batch.values.buffer, batch.values.byteOffset, batch.values.byteLength >> 2);
  let size = 0;
  for (let k = 0; k < batch.length; k++) if (views[4 * k] > 12) size += views[4 * k];
  const out = new Int32Array(views);
  const buffer = new Uint8Array(size);
  let at = 0;
  for (let k = 0; k < batch.length; k++) {
    const len = views[4 * k];
    if (len <= 12) continue;
    const src = batch.data[views[4 * k + 2]];
    const from = views[4 * k + 3];
    buffer.set(src.subarray(from, from + len), at);
    out[4 * k + 2] = 0;
    out[4 * k + 3] = at;
    at += len;
  }
  return new (f.batchType(batch.type))({ ...batchProps(batch), values: new Uint8Array(out.buffer), data: [buffer] });
}

const batchProps = (b) => ({ type: b.type, length: b.length, nullCount: b.nullCount, validity: b.validity ?? NO_BYTES, values: b.values, offsets: b.offsets, children: b.children, data: b.data });

/** Decoded values in JSON: BigInts as strings, bytes as base64 (as jsonForm). */
function jsonReplacer(key, value) {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return btoa(String.fromCharCode(...value));
  return value;
}
