// A record batch from the Arrow arrays the wasm call wrote for all its records (the `arrow` decode
// option; src/js/arrow.rs): typed views into one buffer, copied out of wasm memory with the call's
// columns (or, for a transient result, once per call: copies.mjs), cut to the records of one or
// more partitions that follow one another in the call (a whole response is one batch). Only the
// topic and partition columns are made here, filled a partition at a time; nothing is done per
// record but where a cut falls inside a byte of a bitmap.

import { contract } from '../decoder/contract.mjs';
import { recordRuns } from './compact.mjs';
import { arenaOf, arraysOf } from './copies.mjs';
import { batchOf, NO_BYTES } from './schema.mjs';
import { countNulls } from './views.mjs';

// the arrays' places by name, from the contract (the order src/js/arrow.rs writes them in)
let places = null;

/** The batches, in schema order (decoded values aside), of `parts` (consecutive ranges of one call). */
export function fromWasmArrays(f, schema, topic, c, parts) {
  places ??= new Map(contract.arrowArrays.map((name, i) => [name, i]));
  const { buf, layout } = arraysOf(c);
  const start = parts[0].start;
  const end = parts[parts.length - 1].end;
  const n = end - start;
  const at = (name) => 3 * places.get(name);
  const bytes = (name) => new Uint8Array(buf.buffer, buf.byteOffset + layout[at(name)], layout[at(name) + 1]);
  const typed = (Type, name, from, count) => new Type(buf.buffer, buf.byteOffset + layout[at(name)] + from * Type.BYTES_PER_ELEMENT, count);
  const views = (name, from, count) => bytes(name).subarray(16 * from, 16 * (from + count));
  // the header keys the views of buffer 2 refer to
  const keys = new Uint8Array(buf.buffer, buf.byteOffset + layout[layout.length - 2], layout[layout.length - 1]);
  const data = [c.input, arenaOf(c), keys];
  const field = (name) => schema.fields[schema.index.get(name)];
  // a batch of `values` (views into `data` when asked), its nulls in bitmap `validity`
  // the call's records and header values (its arrays hold one entry a record, or a header)
  const records = layout[at('offset') + 1] / 8;
  const headers = layout[at('headerValue') + 1] / 16;
  const batch = (fieldOf, from, count, values, withData, validity, total = records) => {
    const callNulls = validity ? layout[at(validity) + 2] : 0;
    const nulls = callNulls ? cutBits(bytes(validity), from, count) : null;
    // the call's own count when the batch is all of the call's values (a whole response)
    const nullCount = !nulls ? 0 : from === 0 && count === total ? callNulls : countNulls(nulls, count);
    return batchOf(f, fieldOf, count, { values, data: withData ? data : undefined, validity: nullCount ? nulls : undefined, nullCount });
  };
  const B = (name, values, withData = false, validity = null) => batch(field(name), start, n, values, withData, validity);

  // headers: the call's list offsets, rebased to the first header of these records
  let headerOffsets = typed(Int32Array, 'headerOffsets', start, n + 1);
  const first = headerOffsets[0];
  const h = headerOffsets[n] - first;
  if (first !== 0) headerOffsets = headerOffsets.map((o) => o - first);
  const runStarts = recordRunStarts(c, parts);
  const headerStarts = runStarts.map((k) => headerOffsets[k]);
  const itemType = field('headers').type.children[0].type;
  const [keyField, valueField] = itemType.children;
  const item = new (f.batchType(itemType))({
    type: itemType,
    length: h,
    nullCount: 0,
    validity: NO_BYTES,
    children: [
      recordRuns(batch(keyField, first, h, views('headerKey', first, h), true, null), headerStarts),
      recordRuns(batch(valueField, first, h, views('headerValue', first, h), true, 'headerValueValidity', headers), headerStarts),
    ],
  });
  const { topics, partitions } = topicAndPartition(parts, n);
  return [
    batchOf(f, topic.field, n, { values: topics, dictionary: topic.column }),
    B('partition', partitions),
    B('offset', typed(BigInt64Array, 'offset', start, n)),
    B('timestamp', typed(BigInt64Array, 'timestamp', start, n), false, 'timestampValidity'),
    B('timestamp_type', typed(Int8Array, 'timestampType', start, n)),
    recordRuns(B('key', views('key', start, n), true, 'keyValidity'), runStarts),
    recordRuns(B('value', views('value', start, n), true, 'valueValidity'), runStarts),
    batchOf(f, field('headers'), n, { offsets: headerOffsets, children: [item] }),
    B('leader_epoch', typed(Int32Array, 'leaderEpoch', start, n)),
    B('compression', typed(Int8Array, 'compression', start, n)),
    B('producer_id', typed(BigInt64Array, 'producerId', start, n)),
    B('is_transactional', cutBits(bytes('isTransactional'), start, n)),
    B('is_control', cutBits(bytes('isControl'), start, n)),
    B('control_type', typed(Int8Array, 'controlType', start, n), false, 'controlTypeValidity'),
    B('is_aborted', cutBits(bytes('isAborted'), start, n)),
  ];
}

/**
 * The rows (from the first of `parts`) where runs of records start that nothing was left out of
 * between them (compact.mjs): each part (a partition), cut where a record batch ends, since the
 * decoder drops whole batches (aborted transactions under read_committed, their markers).
 */
function recordRunStarts(c, parts) {
  const starts = [];
  const batchAt = c.batchIndex;
  let row = 0;
  for (const p of parts) {
    for (let k = p.start; k < p.end; k++) if (k === p.start || batchAt[k] !== batchAt[k - 1]) starts.push(row + k - p.start);
    row += p.end - p.start;
  }
  return starts.length ? starts : [0];
}

/** Bits from..from+count of a bitmap: a view where `from` starts a byte, else a copy. */
function cutBits(bitmap, from, count) {
  if (from % 8 === 0) return bitmap.subarray(from >> 3, (from + count + 7) >> 3);
  const out = new Uint8Array((count + 7) >> 3);
  for (let k = 0; k < count; k++) if ((bitmap[(from + k) >> 3] >> ((from + k) & 7)) & 1) out[k >> 3] |= 1 << (k & 7);
  return out;
}

/** The topic (indices into the table's topic dictionary) and partition columns of `parts`. */
function topicAndPartition(parts, n) {
  const topics = new Int32Array(n);
  const partitions = new Int32Array(n);
  let k = 0;
  for (const p of parts) {
    const count = p.end - p.start;
    topics.fill(p.topicIndex, k, k + count);
    partitions.fill(p.partition, k, k + count);
    k += count;
  }
  return { topics, partitions };
}
