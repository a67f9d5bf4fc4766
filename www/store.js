// The page's view of one decoded capture: the result the worker moved here with the package's
// toTransferable, rebuilt with fromTransferable (no record objects until one is asked for), plus a
// few per-record columns the table and the filters read directly (partition, header sizes, control
// type). Key, value and header bytes are views onto the transferred input and decompressed bytes.

import { utf8Length } from './bytes.js';

let api = null;

/** Loads the package's JS (fromTransferable needs no wasm). */
export async function loadPackage() {
  api ??= await import(new URL('../pkg/web.mjs', import.meta.url).href);
  return api;
}

/** A decoded capture as the page uses it: `records.*` columns indexed by record, and the result. */
export function pageData(data) {
  const result = api.fromTransferable(data);
  const cols = data.columns;
  const inputLength = data.input.length;
  const count = cols.offsets.length;
  const bytesAt = (pairs, i) => {
    const len = pairs[2 * i + 1];
    if (len < 0) return null;
    const pos = pairs[2 * i];
    return pos < inputLength ? data.input.subarray(pos, pos + len) : data.arena.subarray(pos - inputLength, pos - inputLength + len);
  };

  // partitions in response order, with the range of their records
  const sets = data.kind === 'response'
    ? result.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, topicId: t.topicId, set: p })))
    : [{ topic: null, topicId: null, set: result }];
  const ranges = data.kind === 'response'
    ? data.meta.topics.flatMap((t) => t.partitions.map((p) => p.set.records))
    : [data.meta.records];
  const part = new Uint32Array(count);
  const partitions = sets.map(({ topic, topicId, set }, pi) => {
    const [start, end] = ranges[pi];
    part.fill(pi, start, end);
    const { records, batches, ...meta } = Object.getOwnPropertyDescriptors(set);
    const fields = Object.fromEntries(Object.entries(meta).filter(([, d]) => 'value' in d).map(([k, d]) => [k, d.value]));
    return { ...fields, topic, topicId, set, firstRecord: start, recordCount: end - start, batchCount: set.batches.length };
  });

  // one page batch per decoded batch: its partition and how many of its records are shown
  const batches = data.batches.map((b) => ({ ...b, partition: -1, records: 0 }));
  const headerKeyBytes = data.headerKeys.map(utf8Length);
  const headerBytes = new Float64Array(count);
  const controlType = new Uint8Array(count); // 0 = not a control record, else 1 + index into controlTypes
  for (let i = 0; i < count; i++) {
    const batch = batches[cols.batchIndex[i]];
    batch.partition = part[i];
    batch.records++;
    const start = i === 0 ? 0 : cols.headersEnd[i - 1];
    let size = 0;
    for (let h = start; h < cols.headersEnd[i]; h++) size += headerKeyBytes[cols.headerKeyIds[h]] + Math.max(0, cols.headerValues[2 * h + 1]);
    headerBytes[i] = size;
    if (batch.isControl) {
      const key = bytesAt(cols.keys, i);
      const type = key && key.length >= 4 ? data.controlTypes[(key[2] << 8) | key[3]] : undefined;
      controlType[i] = 1 + (type === undefined ? data.controlTypes.length : data.controlTypes.indexOf(type));
    }
  }
  partitions.forEach((p, pi) => {
    p.firstBatch = batches.findIndex((b) => b.partition === pi);
  });

  return {
    kind: data.kind === 'response' ? 'frame' : 'recordset',
    result,
    response: data.kind === 'response' ? result : null,
    partitions,
    batches,
    controlTypes: [...data.controlTypes, 'UNKNOWN'],
    headerKeys: data.headerKeys,
    stats: data.stats,
    records: {
      count,
      part,
      batch: cols.batchIndex,
      offset: cols.offsets,
      // timestamps as numbers (they are milliseconds, well within 2^53)
      timestamp: cols.timestamps instanceof BigInt64Array ? Float64Array.from(cols.timestamps, Number) : cols.timestamps,
      headerBytes,
      controlType,
    },
    key: (i) => bytesAt(cols.keys, i),
    value: (i) => bytesAt(cols.values, i),
    keyLength: (i) => cols.keys[2 * i + 1],
    valueLength: (i) => cols.values[2 * i + 1],
    /** Record `i`'s headers: [{ key, value }] in wire order. */
    headers: (i) => {
      const start = i === 0 ? 0 : cols.headersEnd[i - 1];
      const out = [];
      for (let h = start; h < cols.headersEnd[i]; h++) out.push({ key: data.headerKeys[cols.headerKeyIds[h]], value: bytesAt(cols.headerValues, h) });
      return out;
    },
    headerCount: (i) => cols.headersEnd[i] - (i === 0 ? 0 : cols.headersEnd[i - 1]),
  };
}
