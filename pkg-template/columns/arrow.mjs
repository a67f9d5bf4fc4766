// Results as Apache Arrow, without a JS object per record: record batches (schema.mjs) from the
// arrays the wasm call wrote with the `arrow` decode option (from-wasm.mjs: one batch for a whole
// response, no work per record in JS) or else from the call's columns (from-columns.mjs: a batch
// per partition), held by flechette (vendor/) and written as Arrow IPC by ipc.mjs.
//
// Keys, values and header values are Arrow's view types (BinaryView, Utf8View): 16 bytes a value,
// the bytes themselves inline up to 12, else a reference to where they lie: in the input
// (uncompressed batches: the caller's own bytes, not copied) or in the call's decompressed bytes
// (copied out of wasm memory once, for a transient result). `compact()` copies what a table refers
// to into buffers of its own, for files (no input bytes around the values).

import { chunkSource } from '../client/consume.mjs';
import { RecordSet, SOURCE } from '../decoder/results.mjs';
import { fromColumns } from './from-columns.mjs';
import { fromWasmArrays } from './from-wasm.mjs';
import { arrowLibrary } from './library.mjs';
import { batchOf, recordSchema, topicField } from './schema.mjs';
import { nullsWhere, textViews } from './views.mjs';

/**
 * The records of `input` as an Arrow table (flechette's Table): a response or record set of
 * decodeFetchResponse / decodeRecordSet, a consume chunk, or an array of them. `options.decoded`: add key_decoded and value_decoded, the records' decoded sides (a
 * ValueDecoder's attach) in their JSON form; `options.topic`: the topic of record sets, which have
 * none of their own.
 */
export function toArrow(input, options = {}) {
  const f = arrowLibrary();
  const schema = recordSchema(f);
  const parts = [];
  for (const item of Array.isArray(input) ? input : [input]) parts.push(...rangesOf(item, options.topic ?? ''));
  const decoded = Boolean(options.decoded);
  // the topic dictionary: this table's topics, each part's records the index of theirs
  const topicIndex = new Map();
  for (const p of parts) {
    if (!topicIndex.has(p.topic)) topicIndex.set(p.topic, topicIndex.size);
    p.topicIndex = topicIndex.get(p.topic);
  }
  const topic = topicField(f, [...topicIndex.keys()]);
  const fields = [topic.field, ...schema.fields.slice(1), ...(decoded ? schema.decodedFields : [])];
  // decoded with the arrow option: one batch for records that follow one another in a call (a
  // whole response); else one per partition, made from the columns
  const groups = [];
  for (const p of parts) {
    const last = groups[groups.length - 1];
    if (p.columns.arrow && last?.columns === p.columns && last.parts[last.parts.length - 1].end === p.start) last.parts.push(p);
    else groups.push({ columns: p.columns, parts: [p] });
  }
  const batches = groups.filter((g) => g.parts.some((p) => p.end > p.start) || groups.length === 1).map((g) => {
    const columns = g.columns.arrow ? fromWasmArrays(f, schema, topic, g.columns, g.parts) : fromColumns(f, schema, topic, g.parts[0]);
    return decoded ? [...columns, ...decodedBatches(f, schema, g.parts)] : columns;
  });
  const columns = fields.map((field, i) => new f.Column(batches.map((b) => b[i]), field.type));
  return new f.Table({ version: f.Version.V5, endianness: f.Endianness.Little, fields, metadata: null }, columns);
}

/**
 * The partitions of one result as ranges of its call's columns: [{ topic, partition, columns,
 * start, end, records, index, setStart }]. A consume chunk is the first `recordCount` records of its set.
 */
function rangesOf(item, topic) {
  const chunk = chunkSource(item);
  if (chunk) return [rangeOf(chunk.set, item.topic, chunk.count, item.records)];
  if (RecordSet.sourceOf(item)) return [rangeOf(item, topic, null)];
  if (item?.[SOURCE]?.kind === 'response') {
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
  return {
    topic: topic ?? '', partition: set.partition ?? -1, columns, start: source.start, end,
    records: records ?? source.records ?? null, index: source.index, setStart: source.setStart,
  };
}

/** key_decoded and value_decoded of the parts' records (values/). */
function decodedBatches(f, schema, parts) {
  return decodedColumns(f, schema, parts.flatMap((p) => p.records ?? new Array(p.end - p.start).fill(null)));
}

/**
 * `table` (toArrow's schema) with key_decoded and value_decoded added: the decoded sides of
 * `records`, one a row ({ decodedKey, decodedValue }, or null), cut as the table's batches are.
 */
export function withDecoded(table, records) {
  const f = arrowLibrary();
  const schema = recordSchema(f);
  const batches = [];
  let at = 0;
  for (const b of table.children[0].data) {
    batches.push(decodedColumns(f, schema, records.slice(at, at + b.length)));
    at += b.length;
  }
  const columns = schema.decodedFields.map((field, i) => new f.Column(batches.map((b) => b[i]), field.type));
  return new f.Table({ ...table.schema, fields: [...table.schema.fields, ...schema.decodedFields] }, [...table.children, ...columns]);
}

/** key_decoded and value_decoded batches: the JSON text of each record's decoded sides (null where it has none). */
function decodedColumns(f, schema, records) {
  const n = records.length;
  return schema.decodedFields.map((field, i) => {
    const side = i === 0 ? 'decodedKey' : 'decodedValue';
    const texts = records.map((r) => {
      const d = r?.[side];
      return !d || d.format === 'null' || d.format === 'bytes' ? null : JSON.stringify(d.value, jsonReplacer);
    });
    return batchOf(f, field, n, { ...textViews(texts), ...nullsWhere(n, (k) => texts[k] === null) });
  });
}

/** Decoded values in JSON: BigInts as strings, bytes as base64 (as jsonForm). */
function jsonReplacer(key, value) {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return btoa(String.fromCharCode(...value));
  return value;
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
  const views = new Int32Array(batch.values.buffer, batch.values.byteOffset, batch.length * 4);
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

const batchProps = (b) => ({ type: b.type, length: b.length, nullCount: b.nullCount, validity: b.validity ?? new Uint8Array(0), values: b.values, offsets: b.offsets, children: b.children, data: b.data });
