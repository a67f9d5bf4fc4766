// The statistics of the Statistics panel, computed in the analysis worker from Arrow columns (the
// package's toArrow of each chunk: partition, offset, timestamp, key and value as binary views), not
// from record objects: records per time bucket (a minute, or longer when the records span more than
// MAX_BUCKETS of them), key and value size percentiles (nearest rank), null keys and values,
// distinct keys (their 32-bit hashes counted, exactly up to 100,000, then by HyperLogLog with 2^14
// registers: about 1% off), and the same per partition.

const MAX_BUCKETS = 1440;
const BUCKETS = [60_000, 5 * 60_000, 15 * 60_000, 3_600_000, 6 * 3_600_000, 86_400_000, 7 * 86_400_000];
const HLL_BITS = 14;

/** Calls `visit(batch, local)` for the rows of `column` at table rows `rows` (ascending), or for all. */
function forRows(column, rows, visit) {
  const batches = column.data;
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

const isNull = (b, j) => b.nullCount > 0 && b.validity.length > 0 && ((b.validity[j >> 3] >> (j & 7)) & 1) === 0;

/** A binary view's length, and its bytes' hash (murmur3, 32 bits), read without copying them. */
function viewLength(b, j) {
  return new DataView(b.values.buffer, b.values.byteOffset + 16 * j, 4).getInt32(0, true);
}

function viewHash(b, j) {
  const at = b.values.byteOffset + 16 * j;
  const head = new DataView(b.values.buffer, at, 16);
  const len = head.getInt32(0, true);
  const bytes =
    len <= 12 ? new Uint8Array(b.values.buffer, at + 4, len) : b.data[head.getInt32(8, true)].subarray(head.getInt32(12, true), head.getInt32(12, true) + len);
  return murmur3(bytes);
}

function murmur3(bytes) {
  let h = 0x9747b28c;
  const n = bytes.length;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    let k = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  switch (n & 3) {
    case 3:
      k ^= bytes[i + 2] << 16; // falls through
    case 2:
      k ^= bytes[i + 1] << 8; // falls through
    case 1:
      k ^= bytes[i];
      k = Math.imul(k, 0xcc9e2d51);
      k = (k << 15) | (k >>> 17);
      h ^= Math.imul(k, 0x1b873593);
  }
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// below this many distinct hashes they are counted exactly (a set of them), above by HyperLogLog
const EXACT_UP_TO = 100_000;

class HyperLogLog {
  constructor() {
    this.registers = new Uint8Array(1 << HLL_BITS);
    this.exact = new Set();
  }

  add(hash) {
    if (this.exact) {
      this.exact.add(hash);
      if (this.exact.size > EXACT_UP_TO) this.exact = null;
    }
    const index = hash >>> (32 - HLL_BITS);
    const rest = (hash << HLL_BITS) >>> 0;
    const rank = Math.min(32 - HLL_BITS, Math.clz32(rest)) + 1;
    if (rank > this.registers[index]) this.registers[index] = rank;
  }

  estimate() {
    if (this.exact) return this.exact.size;
    const m = this.registers.length;
    let sum = 0;
    let zeros = 0;
    for (const r of this.registers) {
      sum += 2 ** -r;
      if (r === 0) zeros++;
    }
    const raw = ((0.7213 / (1 + 1.079 / m)) * m * m) / sum;
    return Math.round(raw <= 2.5 * m && zeros ? m * Math.log(m / zeros) : raw);
  }
}

/** { count, min, p50, p90, p99, max, mean, total } of sizes (nearest-rank percentiles), or null when none. */
export function sizeSummary(sizes) {
  const n = sizes.length;
  if (!n) return null;
  const sorted = Float64Array.from(sizes).sort();
  const rank = (p) => sorted[Math.max(0, Math.ceil(p * n) - 1)];
  const total = sorted.reduce((s, x) => s + x, 0);
  return { count: n, min: sorted[0], p50: rank(0.5), p90: rank(0.9), p99: rank(0.99), max: sorted[n - 1], mean: total / n, total };
}

/**
 * The statistics of `parts` ([{ table (Arrow), rows: ascending row indexes, or null for all }]):
 * { records, nullKeys, nullValues, distinctKeys, keySizes, valueSizes, time: { first, last,
 * bucketMs, buckets: [[start ms, records]] , none }, partitions: [...] }.
 */
export function computeStats(parts) {
  const keySizes = [];
  const valueSizes = [];
  const times = [];
  const hll = new HyperLogLog();
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
      partitions[k++] = b.values[j];
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
        hll.add(viewHash(b, j));
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
    distinctKeys: records - nullKeys ? hll.estimate() : 0,
    keySizes: sizeSummary(keySizes),
    valueSizes: sizeSummary(valueSizes),
    time: timeBuckets(times, noTime),
    partitions,
  };
}

/** Records per bucket: a minute, or the shortest of BUCKETS that keeps them to MAX_BUCKETS. */
function timeBuckets(times, none) {
  if (!times.length) return { first: null, last: null, bucketMs: BUCKETS[0], buckets: [], none };
  let first = Infinity;
  let last = -Infinity;
  for (const t of times) {
    if (t < first) first = t;
    if (t > last) last = t;
  }
  const bucketMs = BUCKETS.find((b) => Math.floor(last / b) - Math.floor(first / b) < MAX_BUCKETS) ?? BUCKETS[BUCKETS.length - 1];
  const counts = new Map();
  for (const t of times) {
    const b = Math.floor(t / bucketMs) * bucketMs;
    counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  return { first, last, bucketMs, buckets: [...counts].sort((a, b) => a[0] - b[0]), none };
}
