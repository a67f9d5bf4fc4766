// What a table's view columns (keys, values, header keys and values) refer to, made fit for a file:
// a view longer than 12 bytes points into the input or the call's decompressed bytes, which hold
// the frames around the records.
//
// - compact(table): the long values copied, in order, into one buffer per batch: a table of its own
//   bytes, nothing of the frames.
// - forStream(table), what the IPC writers write: where a batch's rows are consecutive records of
//   one partition (toArrow marks its batches so: recordRuns), the bytes from their first long
//   value to the end of their last lie between records of that run only (their lengths, keys,
//   headers, batch headers: bytes of the same records), so when the long values fill at least
//   3/4 of that span it is written as it is, a view of it, no copy; else its values are copied as
//   compact does. A file then holds at most a third more than the records' bytes, and a writer
//   neither copies the values nor faults in fresh memory for them (the two costs of compact on a
//   topic of 1 KiB values). A table of rows picked from others (takeRows) is always copied.

import { arrowLibrary } from './library.mjs';

const DENSE = 0.75; // the share of a span its long values must fill to be written as it is
const SHORT = 64; // values up to this length are copied byte by byte

// view batches made by toArrow, by the rows where each partition's run of records starts
const runs = new WeakMap();

/** Marks a view batch whose rows are runs of consecutive records, each starting at a row of `starts`. */
export function recordRuns(batch, starts) {
  runs.set(batch, starts);
  return batch;
}

/** A table whose view columns refer only to bytes of their own (one buffer per batch). */
export function compact(table) {
  return mapViews(table, (f, batch) => compactViews(f, batch, null));
}

/** The table as IPC writers write it: runs of records spanned where dense, else copied (above). */
export function forStream(table) {
  return mapViews(table, (f, batch) => compactViews(f, batch, runs.get(batch) ?? null));
}

function mapViews(table, views) {
  const f = arrowLibrary();
  const each = (batch) => {
    const { typeId } = batch.type;
    if (typeId === f.Type.List || typeId === f.Type.Struct) {
      return new (f.batchType(batch.type))({ ...batchProps(batch), children: batch.children.map(each) });
    }
    return typeId === f.Type.BinaryView || typeId === f.Type.Utf8View ? views(f, batch) : batch;
  };
  const columns = table.children.map((col) => new f.Column(col.data.map(each), col.type));
  return new f.Table(table.schema, columns);
}

/**
 * A view batch whose long values lie in buffers of its own, or in views of dense spans of the
 * buffers they came from (`starts`: the rows where runs of records start; null: copy them all).
 */
function compactViews(f, batch, starts) {
  const n = batch.length;
  const views = new Int32Array(batch.values.buffer, batch.values.byteOffset, n * 4);
  const sources = (batch.data ?? []).map((d) => new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
  const { out, buffers } = placeValues(views, n, sources, starts);
  return new (f.batchType(batch.type))({ ...batchProps(batch), values: new Uint8Array(out.buffer), data: buffers.length ? buffers : [new Uint8Array(0)] });
}

/**
 * The views `out` and data `buffers` of a view batch of `n` values (`views`, into `sources`): the
 * work of compactViews on plain typed arrays only, which V8 keeps optimised (the batch classes of
 * keys, values and header keys differ: code that reads them is dropped when it meets another).
 */
function placeValues(views, n, sources, starts) {
  const out = new Int32Array(views);
  const buffers = [];
  const bounds = starts ?? [0];
  // the bookkeeping in typed arrays: plain arrays change their elements' kind (an empty one, doubles
  // for Infinity), and V8 then drops its optimised code of this function, each time
  const m = sources.length;
  const low = new Float64Array(m);
  const high = new Float64Array(m);
  const sum = new Float64Array(m);
  const target = new Int32Array(m);
  const base = new Float64Array(m);
  for (let s = 0; s < bounds.length; s++) {
    const from = bounds[s];
    const to = s + 1 < bounds.length ? bounds[s + 1] : n;
    // per buffer the run's long values are in: their bytes, and the span from the first to the end of the last
    low.fill(Infinity);
    high.fill(0);
    sum.fill(0);
    target.fill(-1);
    for (let k = from; k < to; k++) {
      const len = views[4 * k];
      if (len <= 12) continue;
      const i = views[4 * k + 2];
      const at = views[4 * k + 3];
      sum[i] += len;
      if (at < low[i]) low[i] = at;
      if (at + len > high[i]) high[i] = at + len;
    }
    // where each source's values go: a view of its span (rebased), or the copies' buffer
    let copied = 0;
    for (let i = 0; i < m; i++) {
      if (!sum[i]) continue;
      if (starts && sum[i] >= DENSE * (high[i] - low[i])) {
        target[i] = buffers.length;
        base[i] = low[i];
        buffers.push(sources[i].subarray(low[i], high[i]));
      } else {
        copied += sum[i];
      }
    }
    if (!copied) {
      for (let k = from; k < to; k++) {
        if (views[4 * k] <= 12) continue;
        const i = views[4 * k + 2];
        out[4 * k + 2] = target[i];
        out[4 * k + 3] = views[4 * k + 3] - base[i];
      }
      continue;
    }
    const buffer = new Uint8Array(copied);
    const index = buffers.length;
    buffers.push(buffer);
    // short values (a trace id) copied byte by byte, longer ones through a view of their bytes:
    // making an object per value costs more than the copy of a short value
    let at = 0;
    for (let k = from; k < to; k++) {
      const len = views[4 * k];
      if (len <= 12) continue;
      const i = views[4 * k + 2];
      if (target[i] >= 0) {
        out[4 * k + 2] = target[i];
        out[4 * k + 3] = views[4 * k + 3] - base[i];
        continue;
      }
      const src = sources[i];
      const offset = views[4 * k + 3];
      if (len <= SHORT) {
        for (let j = 0; j < len; j++) buffer[at + j] = src[offset + j];
      } else {
        buffer.set(new Uint8Array(src.buffer, src.byteOffset + offset, len), at);
      }
      out[4 * k + 2] = index;
      out[4 * k + 3] = at;
      at += len;
    }
  }
  return { out, buffers };
}

const batchProps = (b) => ({
  type: b.type,
  length: b.length,
  nullCount: b.nullCount,
  validity: b.validity ?? new Uint8Array(0),
  values: b.values,
  offsets: b.offsets,
  children: b.children,
  data: b.data,
});
