// Results as Apache Arrow, without a JS object per record: record batches (schema.mjs) from the
// arrays the wasm call wrote with the `arrow` decode option (from-wasm.mjs: one batch for a whole
// response, no work per record in JS) or else from the call's columns (from-columns.mjs: a batch
// per partition), held by flechette (vendor/) and written as Arrow IPC by ipc.mjs.
//
// Keys, values and header values are Arrow's view types (BinaryView, Utf8View): 16 bytes a value,
// the bytes themselves inline up to 12, else a reference to where they lie: in the input
// (uncompressed batches: the caller's own bytes, not copied) or in the call's decompressed bytes
// (copied out of wasm memory once, for a transient result). compact.mjs makes what a table refers
// to fit for a file (no frames around the values).

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
  const decoded = Boolean(options.decoded);
  for (const item of Array.isArray(input) ? input : [input]) parts.push(...rangesOf(item, options.topic ?? '', decoded));
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
  const batches = groups
    .filter((g) => g.parts.some((p) => p.end > p.start) || groups.length === 1)
    .map((g) => {
      const columns = g.columns.arrow ? fromWasmArrays(f, schema, topic, g.columns, g.parts) : fromColumns(f, schema, topic, g.parts[0]);
      return decoded ? [...columns, ...decodedBatches(f, schema, g.parts)] : columns;
    });
  const columns = fields.map(
    (field, i) =>
      new f.Column(
        batches.map((b) => b[i]),
        field.type,
      ),
  );
  return new f.Table({ version: f.Version.V5, endianness: f.Endianness.Little, fields, metadata: null }, columns);
}

/**
 * The partitions of one result as ranges of its call's columns: [{ topic, partition, columns,
 * start, end, records, index, setStart }]. A consume chunk is the first `recordCount` records of its
 * set; its records are built only for their decoded sides (`decoded`): the columns need none.
 */
function rangesOf(item, topic, decoded) {
  const chunk = chunkSource(item);
  if (chunk) return [rangeOf(chunk.set, item.topic, chunk.count, decoded ? item.records : null)];
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
  if (columns.moved)
    throw new Error('kafka-fetch-decoder: these records were moved to another thread (toTransferable); make the table there, after fromTransferable');
  const end = count === null ? source.end : source.start + count;
  return {
    topic: topic ?? '',
    partition: set.partition ?? -1,
    columns,
    start: source.start,
    end,
    records: records ?? source.records ?? null,
    index: source.index,
    setStart: source.setStart,
  };
}

/** key_decoded and value_decoded of the parts' records (values/). */
function decodedBatches(f, schema, parts) {
  return decodedColumns(
    f,
    schema,
    parts.flatMap((p) => p.records ?? new Array(p.end - p.start).fill(null)),
  );
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
  const columns = schema.decodedFields.map(
    (field, i) =>
      new f.Column(
        batches.map((b) => b[i]),
        field.type,
      ),
  );
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
