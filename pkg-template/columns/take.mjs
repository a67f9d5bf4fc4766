// Rows of the package's Arrow tables (toArrow of each chunk) gathered into one table, in the order
// asked: a scan's matches among the records of a response, the page's export of a filtered or
// sorted view; with the schema toArrow makes (same fields and types; the topic dictionary made of
// the topics taken).
// Works on the buffers of the layouts that schema uses: fixed-width values, bits, binary and text
// views (their data buffers shared, not copied), dictionaries, and the list of header structs.

import { arrowLibrary } from './library.mjs';
import { topicField } from './schema.mjs';

/**
 * The rows `picks` ({ table: Int32Array, row: Int32Array }: which table, which row of it) of
 * `tables` (toArrow's, with the same fields) as one table; `picks` may also be the rows of a single
 * table (an array of row numbers).
 * @param {object | object[]} tables
 * @param {ArrayLike<number> | { table: ArrayLike<number>, row: ArrayLike<number> }} picks
 */
export function takeRows(tables, picks) {
  const list = Array.isArray(tables) ? tables : [tables];
  const p = ArrayBuffer.isView(picks) || Array.isArray(picks) ? rowsOf(/** @type {ArrayLike<number>} */ (picks)) : picks;
  return takeFrom(arrowLibrary(), list, p);
}

/** Rows of a single table as picks. */
const rowsOf = (rows) => ({ table: new Int32Array(rows.length), row: Int32Array.from(rows) });

function takeFrom(f, tables, picks) {
  const n = picks.table.length;
  // each pick as (batch of its table, row within it): tables hold a batch per partition or response
  const starts = tables.map((t) => {
    const out = [0];
    for (const b of t.children[0].data) out.push(out[out.length - 1] + b.length);
    return out;
  });
  const batchOf = new Int32Array(n);
  const local = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const s = starts[picks.table[k]];
    const row = picks.row[k];
    let lo = 0;
    let hi = s.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid] <= row) lo = mid;
      else hi = mid - 1;
    }
    batchOf[k] = lo;
    local[k] = row - s[lo];
  }
  const fields = [];
  const columns = tables[0].schema.fields.map((field, c) => {
    const source = (k) => tables[picks.table[k]].children[c].data[batchOf[k]];
    if (field.name === 'topic') {
      const { batch, field: topic } = takeTopics(f, n, source, local, topicField);
      fields.push(topic);
      return new f.Column([batch], topic.type);
    }
    fields.push(field);
    return new f.Column([take(f, field.type, n, source, local)], field.type);
  });
  return new f.Table({ ...tables[0].schema, fields }, columns);
}

/** The topic column: indices into a dictionary of the topics taken, in the order first met. */
function takeTopics(f, n, source, local, topicField) {
  const names = new Map();
  const values = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const name = source(k).at(local[k]);
    if (!names.has(name)) names.set(name, names.size);
    values[k] = names.get(name);
  }
  const { field, column } = topicField(f, [...names.keys()]);
  const batch = new (f.batchType(field.type))({ type: field.type, length: n, nullCount: 0, validity: new Uint8Array(0), values }).setDictionary(column);
  return { batch, field };
}

/** Gathers `n` values of `type`: the k-th is row local[k] of batch source(k). */
function take(f, type, n, source, local) {
  const { validity, nullCount } = takeValidity(n, source, local);
  const props = { type, length: n, nullCount, validity };
  const T = f.Type;
  switch (type.typeId) {
    case T.Bool: {
      const bits = new Uint8Array((n + 7) >> 3);
      for (let k = 0; k < n; k++) if (bit(source(k).values, local[k])) bits[k >> 3] |= 1 << (k & 7);
      return new (f.batchType(type))({ ...props, values: bits });
    }
    case T.BinaryView:
    case T.Utf8View: {
      // views copied; a long value's view names its data buffer, renumbered in the new batch's list
      const views = new Uint8Array(16 * n);
      const data = [];
      const ids = new Map();
      for (let k = 0; k < n; k++) {
        const b = source(k);
        const at = 16 * local[k];
        views.set(b.values.subarray(at, at + 16), 16 * k);
        const v = new DataView(views.buffer, 16 * k, 16);
        if (v.getInt32(0, true) > 12) {
          const buffer = b.data[v.getInt32(8, true)];
          if (!ids.has(buffer)) {
            ids.set(buffer, data.length);
            data.push(buffer);
          }
          v.setInt32(8, ids.get(buffer), true);
        }
      }
      return new (f.batchType(type))({ ...props, values: views, data });
    }
    case T.List: {
      const offsets = new Int32Array(n + 1);
      const childSource = [];
      const childLocal = [];
      for (let k = 0; k < n; k++) {
        const b = source(k);
        const from = b.offsets[local[k]];
        const to = b.offsets[local[k] + 1];
        for (let j = from; j < to; j++) {
          childSource.push(b.children[0]);
          childLocal.push(j);
        }
        offsets[k + 1] = offsets[k] + (to - from);
      }
      const child = take(f, type.children[0].type, childSource.length, (j) => childSource[j], Int32Array.from(childLocal));
      return new (f.batchType(type))({ ...props, offsets, children: [child] });
    }
    case T.Struct: {
      const children = type.children.map((c, i) => take(f, c.type, n, (k) => source(k).children[i], local));
      return new (f.batchType(type))({ ...props, children });
    }
    default: {
      // fixed width: numbers, timestamps, a dictionary's indices
      const first = n ? source(0) : null;
      const Values = first ? first.values.constructor : Int32Array;
      const values = new Values(n);
      for (let k = 0; k < n; k++) values[k] = source(k).values[local[k]];
      const batch = new (f.batchType(type))({ ...props, values });
      return type.typeId === T.Dictionary && first ? batch.setDictionary(first.dictionary) : batch;
    }
  }
}

const bit = (bytes, i) => (bytes[i >> 3] >> (i & 7)) & 1;

/** The validity bitmap of the values taken (none when none is null). */
function takeValidity(n, source, local) {
  let nulls = 0;
  let validity = null;
  for (let k = 0; k < n; k++) {
    const b = source(k);
    if (b.nullCount === 0 || !b.validity?.length || bit(b.validity, local[k])) continue;
    validity ??= new Uint8Array((n + 7) >> 3).fill(0xff);
    validity[k >> 3] &= ~(1 << (k & 7));
    nulls++;
  }
  return { validity: validity ?? new Uint8Array(0), nullCount: nulls };
}
