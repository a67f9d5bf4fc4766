// A chunk of records as the decode worker prepares it (prepareChunk, on the package's transferable
// result: a few per-record columns the page reads, so that taking a chunk in costs the page thread
// no per-record work) and as the page and the analysis worker find records in a list of them. Pure:
// runs in the workers and on the page alike.

import { utf8Length } from './bytes.js';

/**
 * Adds to `data` (the toTransferable form of `result`) what the page reads per record: the partition
 * (an index into the page's partition list, given by `partIndex(topic, partition)`), the header size,
 * the control type, timestamps as numbers, and which records are shown: a batch that starts before the
 * fetch offset brings records the consumer has already seen, and the decoder leaves them out of the
 * result but not out of its columns; a live tail's past its end (`limits`); and of a scan's records,
 * those a filter picked (`picked`: partition -> the indices of its shown records, in order). Each
 * batch gets `part` and `records` (how many of its records are shown). Returns the buffers to
 * transfer with it.
 */
export function prepareChunk(result, data, partIndex, limits = null, picked = null) {
  const cols = data.columns;
  const n = cols.offsets.length;
  // each set's range of the columns, from the call's metadata: arrays whose fields `data.layout` names
  const index = (names) => Object.fromEntries(names.map((name, i) => [name, i]));
  const P = index(data.layout.partitionFields);
  const S = index(data.layout.recordSetFields);
  const range = (summary) => [summary[S.recordsStart], summary[S.recordsEnd]];
  const sets = data.kind === 'response'
    ? result.topics.flatMap((t, ti) => t.partitions.map((set, pi) => ({ topic: t.topic, set, range: range(data.meta.topics[ti].partitions[pi][P.recordSet]) })))
    : [{ topic: null, set: result, range: range(data.meta) }];
  const part = new Uint32Array(n);
  // a live tail's records past its end or limit are not shown (`limits`: partition -> how many are)
  const shown = (set) => picked?.get(set.partition)?.length ?? Math.min(set.recordCount, limits?.get(set.partition) ?? Infinity);
  let shownCount = 0;
  for (const { topic, set, range: [start, end] } of sets) {
    part.fill(partIndex(topic, set.partition ?? null), start, end);
    shownCount += shown(set);
  }
  let positions = null;
  if (shownCount < n) {
    positions = new Uint32Array(shownCount);
    let k = 0;
    for (const { set, range: [, end] } of sets) {
      const from = end - set.recordCount;
      const some = picked?.get(set.partition);
      if (some) for (const i of some) positions[k++] = from + i;
      else for (let i = from; i < from + shown(set); i++) positions[k++] = i;
    }
  }

  const batches = data.batches;
  for (const b of batches) {
    b.part = -1;
    b.records = 0;
  }
  for (let k = 0; k < shownCount; k++) {
    const i = positions ? positions[k] : k;
    const b = batches[cols.batchIndex[i]];
    b.part = part[i];
    b.records++;
  }

  const headerKeyBytes = data.headerKeys.map(utf8Length);
  const headerBytes = new Float64Array(n);
  const controlType = new Uint8Array(n); // 0 = not a control record, else 1 + index into controlTypes
  const unknownControl = data.controlTypes.length;
  const inputLength = data.inputLength;
  for (let i = 0; i < n; i++) {
    const start = i === 0 ? 0 : cols.headersEnd[i - 1];
    let size = 0;
    for (let h = start; h < cols.headersEnd[i]; h++) size += headerKeyBytes[cols.headerKeyIds[h]] + Math.max(0, cols.headerValues[2 * h + 1]);
    headerBytes[i] = size;
    if (batches[cols.batchIndex[i]].isControl) {
      // the control type is in the key's bytes 2-3 (version, type)
      const len = cols.keys[2 * i + 1];
      let type;
      if (len >= 4) {
        const pos = cols.keys[2 * i];
        const bytes = pos < inputLength ? data.input : data.arena;
        const at = pos < inputLength ? pos : pos - inputLength;
        type = data.controlTypes[(bytes[at + 2] << 8) | bytes[at + 3]];
      }
      controlType[i] = 1 + (type === undefined ? unknownControl : data.controlTypes.indexOf(type));
    }
  }
  // timestamps as numbers: they are milliseconds, well within 2^53
  const timestamps = cols.timestamps instanceof BigInt64Array ? Float64Array.from(cols.timestamps, Number) : null;

  const shownBy = Object.fromEntries(sets.map(({ set }) => [set.partition, shown(set)]));
  data.page = { count: shownCount, positions, part, headerBytes, controlType, timestamps, shownBy, max: chunkMaxima(data, positions, shownCount, headerBytes) };
  return [part, headerBytes, controlType, positions, timestamps].filter(Boolean).map((a) => a.buffer);
}

/**
 * The widest of what the table shows of a chunk's records (columns.js sizes its columns by them):
 * the longest offset, key, value and header sizes, header count, codec name and flags.
 */
function chunkMaxima(data, positions, count, headerBytes) {
  const cols = data.columns;
  const max = { offsetChars: 1, keyLength: 0, valueLength: 0, keyChars: 0, headerBytes: 0, headerCount: 0, codecChars: 0, flagChars: 0, schemaChars: 0 };
  let offset = 0n;
  for (let k = 0; k < count; k++) {
    const i = positions ? positions[k] : k;
    const o = BigInt(cols.offsets[i]);
    if (o > offset) offset = o;
    max.keyLength = Math.max(max.keyLength, cols.keys[2 * i + 1]);
    max.valueLength = Math.max(max.valueLength, cols.values[2 * i + 1]);
    max.headerBytes = Math.max(max.headerBytes, headerBytes[i]);
    max.headerCount = Math.max(max.headerCount, cols.headersEnd[i] - (i === 0 ? 0 : cols.headersEnd[i - 1]));
  }
  max.offsetChars = String(offset).length;
  // the widest key preview: text as it is, binary keys as hex (three characters a byte, 32 bytes at most)
  for (let k = 0; k < count; k++) {
    const i = positions ? positions[k] : k;
    const len = cols.keys[2 * i + 1];
    if (len <= max.keyChars) continue;
    const pos = cols.keys[2 * i];
    const bytes = pos < data.inputLength ? data.input : data.arena;
    const at = pos < data.inputLength ? pos : pos - data.inputLength;
    let text = true;
    for (let j = 0; j < Math.min(len, 64) && text; j++) text = bytes[at + j] >= 0x20 && bytes[at + j] < 0x7f;
    max.keyChars = Math.max(max.keyChars, text ? len : 3 * Math.min(len, 32) + 2);
  }
  for (const b of data.batches) {
    if (!b.records) continue;
    max.codecChars = Math.max(max.codecChars, String(b.compression).length);
    // the badges (records.js): a control type or txn, aborted, bad CRC; about two characters of frame each
    const flags = (b.isControl ? 8 : b.isTransactional ? 5 : 0) + (b.isAborted ? 9 : 0) + (b.crcValid === false ? 9 : 0);
    max.flagChars = Math.max(max.flagChars, flags);
  }
  return max;
}

/** Merges a chunk's maxima (chunkMaxima) into `into`. */
export function widen(into, max) {
  for (const [k, v] of Object.entries(max ?? {})) into[k] = Math.max(into[k] ?? 0, v);
  return into;
}

/**
 * The shown records of `data` (a toTransferable form, before transfer) as the value layer reads them:
 * [{ i (the record's position in the columns), key, value, headers }], control records left out.
 */
export function recordViews(data) {
  const cols = data.columns;
  const inputLength = data.inputLength;
  const bytesAt = (pairs, i) => {
    const len = pairs[2 * i + 1];
    if (len < 0) return null;
    const pos = pairs[2 * i];
    return pos < inputLength ? data.input.subarray(pos, pos + len) : data.arena.subarray(pos - inputLength, pos - inputLength + len);
  };
  const { count, positions } = data.page;
  const out = [];
  for (let k = 0; k < count; k++) {
    const i = positions ? positions[k] : k;
    if (data.batches[cols.batchIndex[i]].isControl) continue;
    const headers = [];
    for (let h = i === 0 ? 0 : cols.headersEnd[i - 1]; h < cols.headersEnd[i]; h++) headers.push({ key: data.headerKeys[cols.headerKeyIds[h]], value: bytesAt(cols.headerValues, h) });
    out.push({ i, key: bytesAt(cols.keys, i), value: bytesAt(cols.values, i), headers });
  }
  return out;
}

/**
 * Among chunks in record-number order, the index of the last one that starts at or before record
 * number `n` (the one that holds it, if any does).
 */
export function chunkIndex(chunks, n) {
  let lo = 0;
  let hi = chunks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (chunks[mid].base <= n) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
