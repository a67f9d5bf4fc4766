// A record batch made in JS from a call's columns, for results decoded without the `arrow` option
// (from-wasm.mjs is the fast way) and for record sets that a fetch offset cut: the batch fields
// gathered by batch index, keys and values as views (views.mjs), no object per record.

import { arenaOf } from './copies.mjs';
import { batchOf, NO_BYTES } from './schema.mjs';
import { bits, bytesViews, indexedText, nullsWhere } from './views.mjs';

/** The batches of `part`'s columns, in schema order (decoded values aside). */
export function fromColumns(f, schema, topic, part) {
  const { columns: c, start, end } = part;
  const n = end - start;
  const data = [c.input, arenaOf(c)];
  const field = (name) => schema.fields[schema.index.get(name)];
  const B = (name, props) => batchOf(f, field(name), n, props);
  // the batch fields, once per batch, then gathered by each record's batch index
  const batchAt = c.batchIndex.subarray(start, end);
  const batches = c.batches;
  const perBatch = (Type, value) => Type.from(batches, value);
  const gather = (Type, perB) => {
    const out = new Type(n);
    for (let k = 0; k < n; k++) out[k] = perB[batchAt[k]];
    return out;
  };
  const index = (name, value) => {
    const names = schema.dictionaries[name].names;
    return gather(
      Int8Array,
      perBatch(Int8Array, (b) => names.indexOf(value(b))),
    );
  };
  const producers = new Int32Array(BigInt64Array.from(batches, (b) => BigInt(b.producerId)).buffer);
  const producer = new BigInt64Array(n);
  const halves = new Int32Array(producer.buffer);
  for (let k = 0; k < n; k++) {
    halves[2 * k] = producers[2 * batchAt[k]];
    halves[2 * k + 1] = producers[2 * batchAt[k] + 1];
  }
  const flag = (name) => {
    const perB = perBatch(Uint8Array, (b) => (b[name] ? 1 : 0));
    return bits(n, (k) => perB[batchAt[k]] === 1);
  };
  const control = perBatch(Uint8Array, (b) => (b.isControl ? 1 : 0));
  // control records are few: their type read from their key, as records read it
  const controlNames = schema.dictionaries.control_type.names;
  const controlType = new Int8Array(n);
  for (let k = 0; k < n; k++) {
    if (control[batchAt[k]]) controlType[k] = controlNames.indexOf(c.controlType(start + k, batches[batchAt[k]]));
  }
  const ts = int64Column(c.timestamps, start, end, c.generation !== null);
  const tsHalves = new Int32Array(ts.buffer, ts.byteOffset, 2 * n);

  return [
    batchOf(f, topic.field, n, { values: new Int32Array(n).fill(part.topicIndex), dictionary: topic.column }),
    B('partition', { values: new Int32Array(n).fill(part.partition) }),
    B('offset', { values: int64Column(c.offsets, start, end, c.generation !== null) }),
    B('timestamp', { values: ts, ...nullsWhere(n, (k) => tsHalves[2 * k] === -1 && tsHalves[2 * k + 1] === -1) }),
    B('timestamp_type', { values: index('timestamp_type', (b) => b.timestampType) }),
    B('key', bytesViews(c.keys, start, end, c.inputLength, data)),
    B('value', bytesViews(c.values, start, end, c.inputLength, data)),
    headersBatch(f, field('headers'), c, start, end, data),
    B('leader_epoch', {
      values: gather(
        Int32Array,
        perBatch(Int32Array, (b) => b.partitionLeaderEpoch),
      ),
    }),
    B('compression', { values: index('compression', (b) => b.compression) }),
    B('producer_id', { values: producer }),
    B('is_transactional', { values: flag('isTransactional') }),
    B('is_control', { values: flag('isControl') }),
    B('control_type', { values: controlType, ...nullsWhere(n, (k) => control[batchAt[k]] === 0) }),
    B('is_aborted', { values: flag('isAborted') }),
  ];
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

/** The headers column: list offsets from the call's header ranges, a struct of key and value views. */
function headersBatch(f, field, c, start, end, data) {
  const n = end - start;
  const base = start === 0 ? 0 : c.headersEnd[start - 1];
  const last = end === 0 ? 0 : c.headersEnd[end - 1];
  const offsets = new Int32Array(n + 1);
  for (let k = 0; k < n; k++) offsets[k + 1] = c.headersEnd[start + k] - base;
  const count = last - base;
  const itemType = field.type.children[0].type;
  const [keyField, valueField] = itemType.children;
  const item = new (f.batchType(itemType))({
    type: itemType,
    length: count,
    nullCount: 0,
    validity: NO_BYTES,
    children: [
      batchOf(f, keyField, count, indexedText(c.headerKeys, c.headerKeyIds.subarray(base, last))),
      batchOf(f, valueField, count, bytesViews(c.headerValues, base, last, c.inputLength, data)),
    ],
  });
  return batchOf(f, field, n, { offsets, children: [item] });
}
