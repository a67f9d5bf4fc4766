// The records the page shows, kept in chunks. A decoded file is one chunk; a live tail adds one per
// fetch response and drops its oldest records beyond a cap. Records are numbered in arrival order and
// keep their number while they are kept, so the filtered view, the selection and an export in progress
// stay valid when older records are dropped.
//
// A chunk is the package's transferable result (toTransferable in the worker, fromTransferable here:
// columns and byte buffers, no record objects) plus a few per-record columns the worker prepared
// (prepareChunk, chunks.js), so taking a chunk in costs the page thread no per-record work. Key, value and header
// bytes are views onto the transferred input and decompressed bytes.

import { chunkIndex, widen } from '../shared/chunks.js';

/** @type {typeof import('../../pkg/web.mjs')} the package, as its users import it */
let api = null;

/** Loads the package's JS (fromTransferable needs no wasm). */
export async function loadPackage() {
  api ??= await import(new URL('../../pkg/web.mjs', import.meta.url).href);
  return api;
}

/**
 * One chunk as the page reads it: columns indexed by position (`position(n)` for record number n),
 * through the package's recordColumns. A class, so that the checker refuses a field it lacks.
 */
class Chunk {
  #cols;
  #positions;

  /**
   * @param {import('../shared/chunks.js').ChunkData} data
   * @param {number} base
   */
  constructor(data, base) {
    /** @type {FetchResponse | RecordSet} */
    this.result = api.fromTransferable(data);
    const cols = api.recordColumns(this.result);
    this.#cols = cols;
    const { count, positions, part, headerBytes, controlType, controlNames, timestamps, batchRecords } = data.page;
    this.#positions = positions;
    this.data = data; // what the worker sent: the analysis worker gets a copy (analysis.js)
    this.max = data.page.max;
    this.base = base; // the record number of this chunk's first shown record
    this.start = 0; // how many of its first records the cap has dropped
    this.count = count;
    this.batches = cols.batches;
    this.batchRecords = batchRecords; // per batch: how many of its records are shown
    this.controlTypes = controlNames;
    // timestamps are numbers either way: prepareChunk made BigInt ones (int64 'bigint') numbers
    this.records = {
      part,
      batch: cols.batchIndex,
      offset: cols.offsets,
      timestamp: timestamps ?? /** @type {Float64Array} */ (cols.timestamps),
      headerBytes,
      controlType,
    };
  }

  /**
   * Record number `n`'s position in the columns.
   * @param {number} n
   */
  position(n) {
    return this.#positions ? this.#positions[n - this.base] : n - this.base;
  }

  /** @param {number} i */
  key(i) {
    return this.#cols.key(i);
  }

  /** @param {number} i */
  value(i) {
    return this.#cols.value(i);
  }

  /** @param {number} i */
  keyLength(i) {
    return this.#cols.keyLength(i);
  }

  /** @param {number} i */
  valueLength(i) {
    return this.#cols.valueLength(i);
  }

  /**
   * Record `i`'s headers: [{ key, value }] in wire order.
   * @param {number} i
   */
  headers(i) {
    return this.#cols.headers(i);
  }

  /** @param {number} i */
  headerCount(i) {
    return this.#cols.headerCount(i);
  }

  /**
   * Record `i`'s key or value as the worker decoded it for the table: { text, format, schema, failure } or null.
   * @param {'key' | 'value'} side
   * @param {number} i
   */
  decoded(side, i) {
    const d = this.data.page.decoded?.[side];
    if (!d || (d.text[i] == null && !d.failures.has(i))) return null;
    return { text: d.text[i], format: d.format[i], schema: d.schema[i], failure: d.failures.get(i) ?? null };
  }
}

/**
 * @typedef {import('../../pkg/web.mjs').FetchResponse<import('../../pkg/web.mjs').Int64>} FetchResponse a decoded frame
 * @typedef {import('../../pkg/web.mjs').RecordSet<import('../../pkg/web.mjs').Int64>} RecordSet a decoded log segment, or a partition's records
 * @typedef {import('../../pkg/web.mjs').FetchPartition<import('../../pkg/web.mjs').Int64>} FetchPartition
 * A partition as the summary shows it: the response's fields for it (a tail's: from its last
 * fetch), its topic, and the records and batches kept of it. A bare record set's has no partition.
 * @typedef {Partial<Omit<FetchPartition, 'records' | 'batches' | 'record' | 'recordCount' | 'partition'>>
 *   & { topic: string | null, topicId: string | null, partition?: number, recordCount: number, batchCount: number }} PartitionRow
 */

/** The records of a list of chunks, by record number. */
export class RecordReader {
  /**
   * @param {Chunk[]} chunks
   * @param {PartitionRow[]} partitions
   */
  constructor(chunks, partitions) {
    this.chunks = chunks;
    this.partitions = partitions;
    this.hit = 0; // the chunk found last: reads mostly go in order
  }

  /**
   * The chunk holding record number `n` (read its columns at `chunk.position(n)`).
   * @param {number} n
   */
  chunkOf(n) {
    const chunks = this.chunks;
    const last = chunks[this.hit];
    if (last && n >= last.base && n < last.base + last.count) return last;
    this.hit = chunkIndex(chunks, n);
    return chunks[this.hit];
  }

  /** A reader of the records kept now, unchanged by later appends and drops (for an export). */
  snapshot() {
    return new RecordReader(this.chunks.slice(), this.partitions);
  }
}

export class RecordStore extends RecordReader {
  /**
   * `partitionIndex`: partition number -> index in `partitions` (live); `cap`: records kept at most.
   * @param {{ partitions?: PartitionRow[], partitionIndex?: Map<number, number>, cap?: number }} [options]
   */
  constructor({ partitions = [], partitionIndex = null, cap = Infinity } = {}) {
    super([], partitions);
    this.partitionIndex = partitionIndex;
    this.cap = cap;
    this.first = 0; // the oldest kept record's number; records before it were dropped
    this.end = 0; // the next record's number
    // the batches of the kept chunks: how many, by codec and by magic (kept up to date, so that a
    // summary of a live tail never walks them all)
    this.batchCount = 0;
    /** @type {Map<import('../../pkg/web.mjs').Compression, number>} */
    this.codecCounts = new Map();
    /** @type {Map<number, number>} */
    this.magicCounts = new Map();
    /** @type {Partial<import('../shared/chunks.js').ChunkMaxima>} the widest of what the table shows, over every record taken in */
    this.max = {};
    // a decoded file's: 'frame' or 'recordset', the response (a frame's), the worker's timings
    /** @type {'frame' | 'recordset'} */
    this.kind = null;
    /** @type {import('../../pkg/web.mjs').FetchResponse<import('../../pkg/web.mjs').Int64>} */
    this.response = null;
    /** @type {import('../shared/chunks.js').DecodeStats} */
    this.stats = null;
  }

  get count() {
    return this.end - this.first;
  }

  /**
   * Adds the records of one transferred result (the cap applies at the next dropBeyondCap).
   * @param {import('../shared/chunks.js').ChunkData} data
   */
  append(data) {
    const chunk = new Chunk(data, this.end);
    this.end += chunk.count;
    if (chunk.count) this.push(chunk);
    // only a live tail has a partition index, and its chunks are fetch responses
    if (this.partitionIndex) this.#updatePartitions(/** @type {FetchResponse} */ (chunk.result), data.page.shownBy);
  }

  /** @param {Chunk} chunk */
  push(chunk) {
    this.chunks.push(chunk);
    this.#count(chunk, 1);
    widen(this.max, chunk.max);
  }

  /**
   * @param {Chunk} chunk
   * @param {1 | -1} sign taken in or dropped
   */
  #count(chunk, sign) {
    this.batchCount += sign * chunk.batches.length;
    for (const b of chunk.batches) {
      tally(this.codecCounts, b.compression, sign);
      tally(this.magicCounts, b.magic, sign);
    }
  }

  /**
   * @param {FetchResponse} result
   * @param {Record<number, number>} shownBy
   */
  #updatePartitions(result, shownBy) {
    for (const t of result.topics) {
      for (const set of t.partitions) {
        const p = this.partitions[this.partitionIndex.get(set.partition)];
        if (!p) continue;
        Object.assign(p, {
          errorCode: set.errorCode,
          highWatermark: set.highWatermark,
          lastStableOffset: set.lastStableOffset,
          logStartOffset: set.logStartOffset,
          partial: set.partial,
          abortedTransactions: set.abortedTransactions,
          preferredReadReplica: set.preferredReadReplica,
        });
        if (set.nextOffset != null) p.nextOffset = set.nextOffset;
        p.recordCount += shownBy?.[set.partition] ?? set.recordCount;
        p.batchCount += set.batches.length;
      }
    }
  }

  /** Drops the oldest records beyond the cap; returns how many. */
  dropBeyondCap() {
    let excess = this.count - this.cap;
    const before = this.first;
    while (excess > 0) {
      const oldest = this.chunks[0];
      const left = oldest.count - oldest.start;
      if (left <= excess) {
        this.#count(this.chunks.shift(), -1);
        this.hit = 0;
        this.first += left;
        excess -= left;
      } else {
        oldest.start += excess;
        this.first += excess;
        excess = 0;
      }
    }
    return this.first - before;
  }
}

/**
 * @template K
 * @param {Map<K, number>} counts
 * @param {K} key
 * @param {number} n
 */
function tally(counts, key, n) {
  const left = (counts.get(key) ?? 0) + n;
  if (left) counts.set(key, left);
  else counts.delete(key);
}

/**
 * A decoded file: one chunk, its partitions in response order.
 * @param {import('../shared/chunks.js').ChunkData} data
 */
export function fileStore(data) {
  const store = new RecordStore();
  const chunk = new Chunk(data, 0);
  store.push(chunk);
  store.end = chunk.count;
  const { result } = chunk;
  const response = 'topics' in result ? result : null; // else a bare record set
  /** @type {{ topic: string | null, topicId: string | null, set: RecordSet }[]} */
  const sets = response
    ? response.topics.flatMap((t) => t.partitions.map((set) => ({ topic: t.topic, topicId: t.topicId, set })))
    : [{ topic: null, topicId: null, set: /** @type {RecordSet} */ (result) }];
  store.partitions = sets.map(({ topic, topicId, set }) => {
    const { records, batches, ...meta } = Object.getOwnPropertyDescriptors(set);
    const fields = Object.fromEntries(
      Object.entries(meta)
        .filter(([, d]) => 'value' in d)
        .map(([k, d]) => [k, d.value]),
    );
    return { ...fields, topic, topicId, recordCount: set.recordCount, batchCount: set.batches.length };
  });
  store.kind = response ? 'frame' : 'recordset';
  store.response = response;
  store.stats = data.stats;
  return store;
}

/**
 * A live tail of `topic`'s `partitions` (numbers), keeping at most `cap` records.
 * @param {string} topic
 * @param {number[]} partitions
 * @param {number} cap
 */
export function liveStore(topic, partitions, cap) {
  return new RecordStore({
    cap,
    partitionIndex: new Map(partitions.map((p, i) => [p, i])),
    partitions: partitions.map(
      /** @returns {PartitionRow} */ (partition) => ({
        topic,
        topicId: null,
        partition,
        errorCode: null,
        highWatermark: null,
        lastStableOffset: null,
        logStartOffset: null,
        recordCount: 0,
        batchCount: 0,
        nextOffset: null,
        partial: false,
        abortedTransactions: null,
        preferredReadReplica: null,
      }),
    ),
  });
}

/** The record numbers that pass the filter, ascending; grows at the end and loses its oldest entries. */
export class ViewIndex {
  constructor() {
    this.items = new Float64Array(1024);
    this.start = 0;
    this.end = 0;
  }

  get length() {
    return this.end - this.start;
  }

  /**
   * The record number at view position `k`.
   * @param {number} k
   */
  at(k) {
    return this.items[this.start + k];
  }

  /** @param {number} n */
  push(n) {
    if (this.end === this.items.length) this.#makeRoom();
    this.items[this.end++] = n;
  }

  /**
   * Forgets the records numbered below `n` (dropped); returns how many view positions went.
   * @param {number} n
   */
  dropBelow(n) {
    const k = this.#lowerBound(n);
    const removed = k - this.start;
    this.start = k;
    return removed;
  }

  /**
   * The view position of the first record numbered `n` or more (the length when none is).
   * @param {number} n
   */
  positionOf(n) {
    return this.#lowerBound(n) - this.start;
  }

  /**
   * The view position of record number `n`, or -1.
   * @param {number} n
   */
  indexOf(n) {
    const k = this.#lowerBound(n);
    return k < this.end && this.items[k] === n ? k - this.start : -1;
  }

  /** @param {number} n */
  #lowerBound(n) {
    let lo = this.start;
    let hi = this.end;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.items[mid] < n) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #makeRoom() {
    const live = this.items.subarray(this.start, this.end);
    // mostly dropped entries in front: move down; else grow
    const items = this.start >= live.length ? this.items : new Float64Array(this.items.length * 2);
    items.set(live);
    this.items = items;
    this.start = 0;
    this.end = live.length;
  }
}
