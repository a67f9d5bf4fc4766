// The results of a call: a response's topics and partitions, a record set's records and batches,
// built from the call's metadata and columns; records are built when first read.

import { jsonSafe } from './bytes.mjs';
import { errorNameOf, P, S } from './contract.mjs';
import { fetchOffsetFor, int64Converter } from './options.mjs';
import { TransientRecord } from './records.mjs';

// Where a response keeps the call it came from (not an enumerable field: clones and JSON leave it);
// a record set keeps it in a private field (RecordSet.sourceOf), cheaper per partition.
export const SOURCE = Symbol('kafka-fetch-decoder.source');

/**
 * Where a record set's records come from: the call's columns, its range of them, the records once
 * built (for a bare record set also the call's kind, metadata and options). A class, not an object
 * literal: V8 allocates a literal's objects straight in the old generation once most of them
 * survive young collections (allocation-site pretenuring; a kept result's do), and young records
 * hung from an old source are then copied by every young collection until a full one. Decoding
 * bench_tiny_none in a loop (decode, read, drop) fell from 3.3M to 1.0-1.2M records/s within
 * seconds, 70% of the time collecting; with a class it stays at 3.1-4.4M.
 */
class RecordSource {
  constructor(columns, start, end, index, setStart) {
    this.columns = columns;
    this.start = start;
    this.end = end;
    // the record set's place in the call (its Arrow arrays, with the arrow option) and where its
    // records start in the columns before any fetch-offset trim
    this.index = index;
    this.setStart = setStart;
    this.records = undefined;
    this.kind = null;
    this.meta = null;
    this.options = null;
  }
}

/**
 * A partition's (or a bare record set's) records and batches. `records` is built the first time it
 * is read; `record(i)` builds one. Other fields are plain data.
 */
export class RecordSet {
  // the call this set came from: its columns, its range of them, its records once built
  #source;

  /**
   * `set` is the record set's summary in the call's metadata (indexes into the columns, partial,
   * next offset, error), read here for every kind of result; a response's partition (its metadata
   * array) gives its fields first, a bare record set has none (null).
   */
  constructor(columns, set, int64, partition, fetchOffset, index = 0) {
    // A response's partition: its fields first, by name from its metadata array. Written here in
    // the constructor, where V8 counts them and keeps them inside the object, rather than copied from
    // an object literal with Object.assign, which took its slow path (both together: 10,000
    // partitions in 20-25% less time).
    if (partition !== null) {
      const aborted = partition[P.abortedTransactions];
      const diverging = partition[P.divergingEpoch];
      const snapshot = partition[P.snapshotId];
      this.partition = partition[P.partition];
      this.errorCode = partition[P.errorCode];
      this.errorName = errorNameOf(partition[P.errorCode]);
      this.highWatermark = int64(partition[P.highWatermark]);
      this.lastStableOffset = int64(partition[P.lastStableOffset]);
      this.logStartOffset = int64(partition[P.logStartOffset]);
      this.abortedTransactions =
        aborted &&
        aborted.map(([producerId, firstOffset]) => ({
          producerId: int64(producerId),
          firstOffset: int64(firstOffset),
        }));
      this.preferredReadReplica = partition[P.preferredReadReplica];
      this.divergingEpoch = diverging && { epoch: diverging.epoch, endOffset: int64(diverging.endOffset) };
      this.currentLeader = partition[P.currentLeader];
      this.snapshotId = snapshot && { endOffset: int64(snapshot.endOffset), epoch: snapshot.epoch };
    }
    this.partial = set[S.partial];
    this.nextOffset = int64(set[S.nextOffset]);
    this.error = set[S.error];
    let start = set[S.recordsStart];
    const end = set[S.recordsEnd];
    // records below the fetch offset that a batch starting earlier carries (fetchOffsets option)
    if (fetchOffset != null) {
      const floor = typeof columns.offsets[0] === 'bigint' ? BigInt(fetchOffset) : Number(fetchOffset);
      while (start < end && columns.offsets[start] < floor) start++;
    }
    this.#source = new RecordSource(columns, start, end, index, set[S.recordsStart]);
    // an own property, as data is (JSON, structuredClone, spread see it), built on first read; one
    // getter for every set, so that V8 gives all sets one shape (a closure each would not)
    Object.defineProperty(this, 'records', RecordSet.#recordsOnFirstRead);
    this.batches = columns.batches.slice(set[S.batchesStart], set[S.batchesEnd]);
  }

  /** The number of records (without building them). */
  get recordCount() {
    const s = this.#source;
    return s.end - s.start;
  }

  /** The call a record set came from, or undefined for anything else. */
  static sourceOf(value) {
    return value !== null && typeof value === 'object' && #source in value ? value.#source : undefined;
  }

  // The built array is kept beside the set rather than turning the property into a data property:
  // redefining a property on every set costed more than building its records (10,000 partitions).
  static #recordsOnFirstRead = {
    enumerable: true,
    configurable: true,
    get() {
      const source = this.#source;
      if (source.records !== undefined) return source.records;
      const records = buildRecords(source.columns, source.start, source.end);
      // kept (a transient set builds them at each read: they check that their memory is still theirs)
      if (source.columns.generation === null) source.records = records;
      return records;
    },
    // assignable, as a data property would be
    set(records) {
      this.#source.records = records;
    },
  };

  /** Record `i` of this set (0-based), built on its own. */
  record(i) {
    const { columns, start, end } = this.#source;
    if (!(Number.isInteger(i) && i >= 0 && start + i < end)) throw new RangeError(`kafka-fetch-decoder: record index ${i} out of 0..${end - start - 1}`);
    if (columns.generation !== null) {
      columns.check();
      return new TransientRecord(columns, start + i);
    }
    return columns.record(start + i);
  }

  toJSON() {
    const out = {};
    for (const k of Object.keys(this)) out[k] = k === 'records' ? this[k] : jsonSafe(this[k]);
    return out;
  }
}

function buildRecords(columns, start, end) {
  const out = new Array(end - start);
  columns.check();
  // a kept result's columns stay valid until toTransferable hands them to another thread
  if (end > start && columns.moved) {
    throw new Error('kafka-fetch-decoder: these records were moved to another thread (toTransferable); read them there, after fromTransferable');
  }
  if (columns.generation !== null) {
    for (let i = start; i < end; i++) out[i - start] = new TransientRecord(columns, i);
  } else {
    for (let i = start; i < end; i++) out[i - start] = columns.record(i);
  }
  return out;
}

/**
 * The first `count` records of a record set, built for a caller that keeps them itself (the live
 * client's chunks): not kept in the set, unless it has built them already. A set that lived through
 * a few garbage collections is in the old generation, and young records hung from it would be
 * copied by every young collection until a full one (measured: a quarter of a consume pass).
 */
export function recordsOf(set, count) {
  const source = RecordSet.sourceOf(set);
  const built = source.records;
  if (built !== undefined) return count === built.length ? built : built.slice(0, count);
  return buildRecords(source.columns, source.start, source.start + count);
}

/** Builds the result of a decodeFetchResponse call from its metadata and columns. */
export function responseResult(r, columns, o) {
  const int64 = int64Converter(o.bigint);
  let index = 0; // the record sets in call order
  const errorName = (code) => (code == null ? null : errorNameOf(code));
  const result = {
    correlationId: r.correlationId,
    throttleTimeMs: r.throttleTimeMs,
    errorCode: r.errorCode,
    errorName: errorName(r.errorCode),
    sessionId: r.sessionId,
    topics: r.topics.map((t) => {
      const topic = t.topic ?? (t.topicId != null ? (o.topicNames?.get(t.topicId) ?? null) : null);
      return {
        topic,
        topicId: t.topicId,
        partitions: t.partitions.map(
          (p) => new RecordSet(columns, p[P.recordSet], int64, p, fetchOffsetFor(o.fetchOffsets, topic, t.topicId, p[P.partition]), index++),
        ),
      };
    }),
    nodeEndpoints: r.nodeEndpoints,
    // bytes after the last field (decoded as Java does; usually a wrong api version or a capture
    // glued to the next frame: `hint` says which when it can tell)
    trailingBytes: r.trailingBytes,
    hint: r.hint,
    // onError 'partition': the error that cut the response short (its complete partitions kept)
    error: r.error,
  };
  Object.defineProperty(result, SOURCE, { value: { kind: 'response', meta: r, columns, options: o } });
  return result;
}

export function recordSetResult(set, columns, o) {
  const result = new RecordSet(columns, set, int64Converter(o.bigint), null, o.fetchOffset ?? null);
  Object.assign(RecordSet.sourceOf(result), { kind: 'recordSet', meta: set, options: o });
  return result;
}
