// A chunk of records as the decode worker prepares it (prepareChunk, on the package's transferable
// result: a few per-record columns the page reads, so that taking a chunk in costs the page thread
// no per-record work) and as the page and the analysis worker find records in a list of them. Pure:
// runs in the workers and on the page alike.

/**
 * @typedef {typeof import('../../pkg/web.mjs')} Package the package, as its users import it
 * @typedef {import('../../pkg/web.mjs').RecordColumns<import('../../pkg/web.mjs').Int64>} Columns
 * @typedef {{ offsetChars: number, keyLength: number, valueLength: number, keyChars: number, headerBytes: number,
 *   headerCount: number, codecChars: number, flagChars: number, schemaChars: number }} ChunkMaxima
 *   the widest of what the table shows of a chunk's records (chunkMaxima)
 * @typedef {{ text: string[], format: string[], schema: string[], failures: Map<number, string> }} SidePreviews
 *   a side's previews per column position (the decode worker's attachPreviews)
 * @typedef {{ count: number, positions: Uint32Array, part: Uint32Array, headerBytes: Float64Array,
 *   controlType: Uint8Array, controlNames: string[], timestamps: Float64Array, shownBy: Record<number, number>,
 *   batchRecords: Uint32Array, max: ChunkMaxima, decoded?: { key?: SidePreviews, value?: SidePreviews } }} ChunkPage
 *   what prepareChunk adds to a chunk for the page
 * @typedef {{ decodeMs: number, collectMs: number, int64: string, inputBytes: number }} DecodeStats
 *   what a file's decode took (the decode worker's timings)
 * @typedef {import('../../pkg/web.mjs').TransferableData & { page?: ChunkPage, stats?: DecodeStats }} ChunkData
 *   a chunk as the decode worker posts it: toTransferable's message, prepareChunk's columns, its timings
 */

/**
 * A chunk's records through the package's public column reader: `data` is toTransferable's message
 * (before it is posted, or as received), `api` the package's module.
 * @param {Package} api
 * @param {ChunkData} data
 * @returns {Columns}
 */
export const columnsOf = (api, data) => api.recordColumns(api.fromTransferable(data));

/**
 * Adds to `data` (toTransferable's message; `cols` its columnsOf) what the page reads per record:
 * the partition (an index into the page's partition list, given by `partIndex(topic, partition)`),
 * the header size, the control type, timestamps as numbers, and which records are shown: a batch that
 * starts before the fetch offset brings records the consumer has already seen, and the decoder leaves
 * them out of the result but not out of its columns; a live tail's past its end (`limits`); and of a
 * scan's records, those a filter picked (`picked`: partition -> the indices of its shown records, in
 * order). Per batch: how many of its records are shown. Returns the
 * buffers to transfer with it.
 *
 * @param {Columns} cols
 * @param {ChunkData} data
 * @param {(topic: string | null, partition: number | null) => number} partIndex
 * @param {Map<number, number>} [limits]
 * @param {Map<number, ArrayLike<number> & Iterable<number>>} [picked]
 */
export function prepareChunk(cols, data, partIndex, limits = null, picked = null) {
  const n = cols.length;
  const part = new Uint32Array(n);
  // a live tail's records past its end or limit are not shown (`limits`: partition -> how many are)
  /** @type {(s: Columns['sets'][number]) => number} */
  const shown = ({ set, partition }) => picked?.get(partition)?.length ?? Math.min(set.recordCount, limits?.get(partition) ?? Infinity);
  let shownCount = 0;
  for (const s of cols.sets) {
    part.fill(partIndex(s.topic, s.partition), s.start, s.end);
    shownCount += shown(s);
  }
  let positions = null;
  if (shownCount < n) {
    positions = new Uint32Array(shownCount);
    let k = 0;
    for (const s of cols.sets) {
      const some = picked?.get(s.partition);
      if (some) for (const i of some) positions[k++] = s.start + i;
      else for (let i = s.start; i < s.start + shown(s); i++) positions[k++] = i;
    }
  }

  const batchRecords = new Uint32Array(cols.batches.length);
  for (let k = 0; k < shownCount; k++) batchRecords[cols.batchIndex[positions ? positions[k] : k]]++;

  const headerBytes = new Float64Array(n);
  const controlType = new Uint8Array(n); // 0 = not a control record, else 1 + index into controlNames
  /** @type {string[]} */
  const controlNames = [];
  for (let i = 0; i < n; i++) {
    headerBytes[i] = cols.headerBytes(i);
    const type = cols.controlType(i);
    if (type === null) continue;
    if (!controlNames.includes(type)) controlNames.push(type);
    controlType[i] = 1 + controlNames.indexOf(type);
  }
  // timestamps as numbers: they are milliseconds, well within 2^53
  const timestamps = cols.timestamps instanceof BigInt64Array ? Float64Array.from(cols.timestamps, Number) : null;

  const shownBy = Object.fromEntries(cols.sets.map((s) => [s.partition, shown(s)]));
  const max = chunkMaxima(cols, positions, shownCount, headerBytes, batchRecords);
  data.page = { count: shownCount, positions, part, headerBytes, controlType, controlNames, timestamps, shownBy, batchRecords, max };
  return [part, headerBytes, controlType, positions, timestamps, batchRecords].filter(Boolean).map((a) => a.buffer);
}

/**
 * The widest of what the table shows of a chunk's records (columns.js sizes its columns by them):
 * the longest offset, key, value and header sizes, header count, codec name and flags.
 */
/**
 * @param {Columns} cols
 * @param {Uint32Array} positions
 * @param {number} count
 * @param {Float64Array} headerBytes
 * @param {Uint32Array} batchRecords
 */
function chunkMaxima(cols, positions, count, headerBytes, batchRecords) {
  /** @type {ChunkMaxima} */
  const max = { offsetChars: 1, keyLength: 0, valueLength: 0, keyChars: 0, headerBytes: 0, headerCount: 0, codecChars: 0, flagChars: 0, schemaChars: 0 };
  let offset = 0n;
  for (let k = 0; k < count; k++) {
    const i = positions ? positions[k] : k;
    const o = BigInt(cols.offsets[i]);
    if (o > offset) offset = o;
    max.keyLength = Math.max(max.keyLength, cols.keyLength(i));
    max.valueLength = Math.max(max.valueLength, cols.valueLength(i));
    max.headerBytes = Math.max(max.headerBytes, headerBytes[i]);
    max.headerCount = Math.max(max.headerCount, cols.headerCount(i));
  }
  max.offsetChars = String(offset).length;
  // the widest key preview: text as it is, binary keys as hex (three characters a byte, 32 bytes at most)
  for (let k = 0; k < count; k++) {
    const i = positions ? positions[k] : k;
    const len = cols.keyLength(i);
    if (len <= max.keyChars) continue;
    const key = cols.key(i);
    let text = true;
    for (let j = 0; j < Math.min(len, 64) && text; j++) text = key[j] >= 0x20 && key[j] < 0x7f;
    max.keyChars = Math.max(max.keyChars, text ? len : 3 * Math.min(len, 32) + 2);
  }
  cols.batches.forEach((b, index) => {
    if (!batchRecords[index]) return;
    max.codecChars = Math.max(max.codecChars, String(b.compression).length);
    // the badges (records.js): a control type or txn, aborted, bad CRC; about two characters of frame each
    const flags = (b.isControl ? 8 : b.isTransactional ? 5 : 0) + (b.isAborted ? 9 : 0) + (b.crcValid === false ? 9 : 0);
    max.flagChars = Math.max(max.flagChars, flags);
  });
  return max;
}

/** Merges a chunk's maxima (chunkMaxima) into `into`. */
/**
 * @param {Partial<ChunkMaxima>} into
 * @param {Partial<ChunkMaxima>} max
 */
export function widen(into, max) {
  for (const [k, v] of /** @type {[keyof ChunkMaxima, number][]} */ (Object.entries(max ?? {}))) into[k] = Math.max(into[k] ?? 0, v);
  return into;
}

/**
 * The shown records of a chunk (`cols`, and `page`: prepareChunk's) as the value layer reads them:
 * [{ i (the record's position in the columns), key, value, headers }], control records left out.
 * @param {Columns} cols
 * @param {ChunkPage} page
 */
export function recordViews(cols, page) {
  const { count, positions } = page;
  const out = [];
  for (let k = 0; k < count; k++) {
    const i = positions ? positions[k] : k;
    if (cols.batches[cols.batchIndex[i]].isControl) continue;
    out.push({ i, key: cols.key(i), value: cols.value(i), headers: cols.headers(i) });
  }
  return out;
}

/**
 * The record at column position `i` of a chunk (`cols`, and `page`: prepareChunk's) as the filters
 * and the export read it: { i, cols, data, part (its partition's index), key, value, headers (byte
 * values), isControl, controlType }.
 * @param {Columns} cols
 * @param {ChunkData} data
 * @param {number} i
 */
export function recordView(cols, data, i) {
  const control = data.page.controlType[i];
  return {
    i,
    cols,
    data,
    part: data.page.part[i],
    key: cols.key(i),
    value: cols.value(i),
    headers: cols.headers(i),
    isControl: control > 0,
    controlType: control ? data.page.controlNames[control - 1] : null,
  };
}

/**
 * Among chunks in record-number order, the index of the last one that starts at or before record
 * number `n` (the one that holds it, if any does).
 * @param {{ base: number }[]} chunks
 * @param {number} n
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
