// A result's records as columns: for code that reads many records without building an object for
// each (a table that draws the rows in view, a filter or statistics over every record, an export).
// These are the call's own columns, indexed by position; each record set has a range of them. The
// inspection page reads its records this way, on either side of toTransferable.

import { RecordSet, SOURCE } from './results.mjs';

const encoder = new TextEncoder();
const utf8Length = (text) => encoder.encode(text).length;

/**
 * The records of a result of decodeFetchResponse or decodeRecordSet (or of fromTransferable) as
 * columns. A transient result's columns are valid until the next call, as its records are.
 */
export function recordColumns(result) {
  const source = result?.[SOURCE] ?? RecordSet.sourceOf(result);
  if (!source?.kind) throw new TypeError('kafka-fetch-decoder: recordColumns takes a result of decodeFetchResponse, decodeRecordSet or fromTransferable');
  source.columns.check();
  const sets = [];
  const add = (set, topic, topicId) => {
    const { start, end } = RecordSet.sourceOf(set);
    sets.push({ topic, topicId, partition: set.partition ?? null, set, start, end });
  };
  if (source.kind === 'response') {
    for (const t of result.topics) for (const set of t.partitions) add(set, t.topic, t.topicId);
  } else {
    add(result, null, null);
  }
  return new RecordColumns(source.columns, sets);
}

/**
 * Position `i` is one record of the call; `sets` says which positions are whose records (positions
 * outside every set's range are records that a batch carried from before the fetch offset).
 */
export class RecordColumns {
  #c;
  #headerKeyBytes = null;

  constructor(columns, sets) {
    this.#c = columns;
    /** Each record set's records: positions `start` to `end - 1` ({ topic, topicId, partition, set, start, end }). */
    this.sets = sets;
    this.length = columns.offsets.length;
    this.offsets = columns.offsets;
    this.timestamps = columns.timestamps;
    /** Each position's batch, as an index into `batches`. */
    this.batchIndex = columns.batchIndex;
    this.batches = columns.batches;
  }

  #readable() {
    const c = this.#c;
    c.check();
    if (c.moved) throw new Error('kafka-fetch-decoder: these records were moved to another thread (toTransferable); read them there, after fromTransferable');
    return c;
  }

  /** The key's bytes (null for a null key). */
  key(i) {
    const c = this.#readable();
    return c.bytes(c.keys, i);
  }

  /** The value's bytes (null for a null value). */
  value(i) {
    const c = this.#readable();
    return c.bytes(c.values, i);
  }

  /** The key's length in bytes, -1 for a null key. */
  keyLength(i) {
    return this.#c.keys[2 * i + 1];
  }

  /** The value's length in bytes, -1 for a null value. */
  valueLength(i) {
    return this.#c.values[2 * i + 1];
  }

  headerCount(i) {
    const ends = this.#c.headersEnd;
    return ends[i] - (i === 0 ? 0 : ends[i - 1]);
  }

  /** The headers in wire order: [{ key, value }], duplicates kept, a null value distinct from an empty one. */
  headers(i) {
    return this.#readable().headers(i);
  }

  /** The bytes of the headers: their keys' UTF-8 and their values. */
  headerBytes(i) {
    const c = this.#c;
    const keyBytes = (this.#headerKeyBytes ??= c.headerKeys.map(utf8Length));
    let size = 0;
    for (let h = i === 0 ? 0 : c.headersEnd[i - 1]; h < c.headersEnd[i]; h++) size += keyBytes[c.headerKeyIds[h]] + Math.max(0, c.headerValues[2 * h + 1]);
    return size;
  }

  /** A control record's type (COMMIT, ABORT, ... or UNKNOWN), null for a data record. */
  controlType(i) {
    const c = this.#readable();
    return c.controlType(i, c.batches[c.batchIndex[i]]);
  }

  /** The record at position `i` as an ordinary object (its bytes views of the call's, as a record's are). */
  record(i) {
    return this.#readable().record(i);
  }
}
