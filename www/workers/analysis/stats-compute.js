// The statistics of the Statistics panel, computed in the analysis worker from Arrow columns (the
// package's toArrow of each chunk: partition, offset, timestamp, key and value as binary views), not
// from record objects: records per time bucket (a minute, or longer when the records span more than
// MAX_BUCKETS of them), key and value size percentiles (nearest rank), null keys and values,
// distinct keys (the package's DistinctKeys, as a scan counts them: exact up to 10,000, then
// estimated), and the same per partition.

import { DistinctKeys } from '../../../pkg/web.mjs';

/**
 * @typedef {import('../../../pkg/arrow.mjs').ArrowTable} ArrowTable
 * @typedef {import('../../../pkg/arrow.mjs').ArrowColumn} ArrowColumn
 * @typedef {{ length: number, nullCount: number, validity: Uint8Array, values: Int32Array | BigInt64Array | Uint8Array,
 *   data?: Uint8Array[], at(j: number): unknown }} ArrowBatch
 *   a record batch's piece of a column, as flechette holds it (the package types columns loosely)
 * @typedef {{ table: ArrowTable, rows: Uint32Array | null }} StatsPart a chunk's table and the rows counted
 * @typedef {import('../../shared/analysis-protocol.js').SizeSummary} SizeSummary
 * @typedef {import('../../shared/analysis-protocol.js').TimeBuckets} TimeBuckets
 * @typedef {import('../../shared/analysis-protocol.js').PartitionStats} PartitionStats
 * @typedef {import('../../shared/analysis-protocol.js').Stats} Stats what the Statistics panel shows (typed for the page as well)
 * @typedef {Omit<PartitionStats, 'firstOffset' | 'lastOffset' | 'valueP50' | 'valueP99'> & { firstOffset: number | bigint | null,
 *   lastOffset: number | bigint | null, valueSizes: number[] }} PartitionTally a partition's counts as they are made
 */

const MAX_BUCKETS = 1440;
const BUCKETS = [60_000, 5 * 60_000, 15 * 60_000, 3_600_000, 6 * 3_600_000, 86_400_000, 7 * 86_400_000];

/**
 * Calls `visit(batch, local)` for the rows of `column` at table rows `rows` (ascending), or for all.
 * @param {ArrowColumn} column
 * @param {Uint32Array | null} rows
 * @param {(b: ArrowBatch, j: number) => void} visit
 */
function forRows(column, rows, visit) {
  const batches = /** @type {ArrowColumn & { data: ArrowBatch[] }} */ (column).data;
  if (!rows) {
    for (const b of batches) for (let j = 0; j < b.length; j++) visit(b, j);
    return;
  }
  let k = 0;
  let start = 0;
  for (const b of batches) {
    const end = start + b.length;
    while (k < rows.length && rows[k] < end) visit(b, rows[k++] - start);
    start = end;
    if (k >= rows.length) break;
  }
}

const isNull = (/** @type {ArrowBatch} */ b, /** @type {number} */ j) =>
  b.nullCount > 0 && b.validity.length > 0 && ((b.validity[j >> 3] >> (j & 7)) & 1) === 0;

/**
 * A binary view's length, and its bytes, read without copying them.
 * @param {ArrowBatch} b
 * @param {number} j
 */
function viewLength(b, j) {
  return new DataView(b.values.buffer, b.values.byteOffset + 16 * j, 4).getInt32(0, true);
}

/**
 * @param {ArrowBatch} b
 * @param {number} j
 */
function viewBytes(b, j) {
  const at = b.values.byteOffset + 16 * j;
  const head = new DataView(b.values.buffer, at, 16);
  const len = head.getInt32(0, true);
  return len <= 12
    ? new Uint8Array(b.values.buffer, at + 4, len)
    : b.data[head.getInt32(8, true)].subarray(head.getInt32(12, true), head.getInt32(12, true) + len);
}

/**
 * { count, min, p50, p90, p99, max, mean, total } of sizes (nearest-rank percentiles), or null when none.
 * @param {number[]} sizes
 * @returns {SizeSummary | null}
 */
export function sizeSummary(sizes) {
  const n = sizes.length;
  if (!n) return null;
  const sorted = Float64Array.from(sizes).sort();
  const rank = (/** @type {number} */ p) => sorted[Math.max(0, Math.ceil(p * n) - 1)];
  const total = sorted.reduce((s, x) => s + x, 0);
  return { count: n, min: sorted[0], p50: rank(0.5), p90: rank(0.9), p99: rank(0.99), max: sorted[n - 1], mean: total / n, total };
}

/**
 * The statistics of `parts` ([{ table (Arrow), rows: ascending row indexes, or null for all }]):
 * { records, nullKeys, nullValues, distinctKeys: { keys, exact }, keySizes, valueSizes, time: { first, last,
 * bucketMs, buckets: [[start ms, records]] , none }, partitions: [...] }.
 * @param {StatsPart[]} parts
 * @returns {Stats}
 */
export function computeStats(parts) {
  const keySizes = [];
  const valueSizes = [];
  const times = [];
  const distinct = new DistinctKeys();
  /** @type {Map<string, PartitionTally>} */
  const byPartition = new Map();
  let records = 0;
  let nullKeys = 0;
  let nullValues = 0;
  let noTime = 0;
  for (const { table, rows } of parts) {
    const n = rows ? rows.length : table.numRows;
    records += n;
    const partitions = new Int32Array(n);
    const topics = new Array(n);
    const offsets = new Array(n);
    const stamps = new Float64Array(n);
    let k = 0;
    forRows(table.getChild('partition'), rows, (b, j) => {
      partitions[k++] = /** @type {number} */ (b.values[j]); // an int32 column
    });
    k = 0;
    forRows(table.getChild('topic'), rows, (b, j) => {
      topics[k++] = b.at(j);
    });
    k = 0;
    forRows(table.getChild('offset'), rows, (b, j) => {
      offsets[k++] = b.values[j];
    });
    k = 0;
    forRows(table.getChild('timestamp'), rows, (b, j) => {
      stamps[k++] = isNull(b, j) ? NaN : Number(b.values[j]);
    });
    const keyNull = new Uint8Array(n);
    const keyLen = new Int32Array(n);
    k = 0;
    forRows(table.getChild('key'), rows, (b, j) => {
      if (isNull(b, j)) keyNull[k] = 1;
      else {
        keyLen[k] = viewLength(b, j);
        distinct.add(viewBytes(b, j));
      }
      k++;
    });
    const valueNull = new Uint8Array(n);
    const valueLen = new Int32Array(n);
    k = 0;
    forRows(table.getChild('value'), rows, (b, j) => {
      if (isNull(b, j)) valueNull[k] = 1;
      else valueLen[k] = viewLength(b, j);
      k++;
    });
    for (let r = 0; r < n; r++) {
      const id = `${topics[r]}\u0000${partitions[r]}`;
      let p = byPartition.get(id);
      if (!p) {
        p = {
          topic: topics[r],
          partition: partitions[r],
          records: 0,
          nullKeys: 0,
          nullValues: 0,
          keyBytes: 0,
          valueBytes: 0,
          firstOffset: null,
          lastOffset: null,
          oldest: null,
          newest: null,
          valueSizes: [],
        };
        byPartition.set(id, p);
      }
      p.records++;
      if (p.firstOffset === null || offsets[r] < p.firstOffset) p.firstOffset = offsets[r];
      if (p.lastOffset === null || offsets[r] > p.lastOffset) p.lastOffset = offsets[r];
      if (keyNull[r]) {
        nullKeys++;
        p.nullKeys++;
      } else {
        keySizes.push(keyLen[r]);
        p.keyBytes += keyLen[r];
      }
      if (valueNull[r]) {
        nullValues++;
        p.nullValues++;
      } else {
        valueSizes.push(valueLen[r]);
        p.valueSizes.push(valueLen[r]);
        p.valueBytes += valueLen[r];
      }
      const ts = stamps[r];
      if (Number.isFinite(ts) && ts >= 0) {
        times.push(ts);
        if (p.oldest === null || ts < p.oldest) p.oldest = ts;
        if (p.newest === null || ts > p.newest) p.newest = ts;
      } else {
        noTime++;
      }
    }
  }
  const partitions = [...byPartition.values()]
    .sort((a, b) => String(a.topic).localeCompare(String(b.topic)) || a.partition - b.partition)
    .map(({ valueSizes: sizes, ...p }) => ({
      ...p,
      firstOffset: String(p.firstOffset),
      lastOffset: String(p.lastOffset),
      valueP50: sizeSummary(sizes)?.p50 ?? null,
      valueP99: sizeSummary(sizes)?.p99 ?? null,
    }));
  return {
    records,
    nullKeys,
    nullValues,
    distinctKeys: distinct.result(), // { keys, exact }
    keySizes: sizeSummary(keySizes),
    valueSizes: sizeSummary(valueSizes),
    time: timeBuckets(times, noTime),
    partitions,
  };
}

/**
 * Records per bucket: a minute, or the shortest of BUCKETS that keeps them to MAX_BUCKETS.
 * @param {number[]} times
 * @param {number} none
 * @returns {TimeBuckets}
 */
function timeBuckets(times, none) {
  if (!times.length) return { first: null, last: null, bucketMs: BUCKETS[0], buckets: [], none };
  let first = Infinity;
  let last = -Infinity;
  for (const t of times) {
    if (t < first) first = t;
    if (t > last) last = t;
  }
  const bucketMs = BUCKETS.find((b) => Math.floor(last / b) - Math.floor(first / b) < MAX_BUCKETS) ?? BUCKETS[BUCKETS.length - 1];
  /** @type {Map<number, number>} */
  const counts = new Map();
  for (const t of times) {
    const b = Math.floor(t / bucketMs) * bucketMs;
    counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  return { first, last, bucketMs, buckets: [...counts].sort((a, b) => a[0] - b[0]), none };
}
