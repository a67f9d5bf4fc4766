// Records: a record's fields and the helpers every record has (text, JSON, headers, its JSON
// form); kept records have their fields as own properties, transient ones read them from wasm
// memory on access.

import { base64, copyBytes, jsonInt64, utf8 } from './bytes.mjs';

// the fields every record has, as declared (own properties or getters, set by the subclasses)
/** @typedef {import('../index.d.ts').KafkaRecord<import('../index.d.ts').Int64>} RecordFields */

/**
 * A record. Its fields are `offset`, `timestamp`, `key`, `value`, `headers` ([{ key, value }] in
 * wire order, duplicates kept), `batch` (shared by the records of a batch), `leaderEpoch`,
 * `isControl` and `controlType`; the methods help with text and headers.
 */
export class KafkaRecord {
  /**
   * The key as UTF-8 text (null for a null key).
   * @this {RecordFields}
   */
  keyText() {
    const k = this.key;
    return k === null ? null : utf8.decode(k);
  }

  /**
   * The value as UTF-8 text (null for a null value).
   * @this {RecordFields}
   */
  valueText() {
    const v = this.value;
    return v === null ? null : utf8.decode(v);
  }

  /**
   * The value parsed as JSON (null for a null value; a SyntaxError if it is not JSON).
   * @this {RecordFields}
   */
  valueJson() {
    const text = this.valueText();
    return text === null ? null : JSON.parse(text);
  }

  /**
   * The last value of header `key` (as Kafka's `lastHeader`), null for a null value, undefined if absent.
   * @this {RecordFields}
   */
  header(key) {
    const headers = this.headers;
    for (let i = headers.length - 1; i >= 0; i--) if (headers[i].key === key) return headers[i].value;
    return undefined;
  }

  /**
   * Every value of header `key`, in wire order.
   * @this {RecordFields}
   */
  headerValues(key) {
    return this.headers.filter((h) => h.key === key).map((h) => h.value);
  }

  /**
   * A plain object with every field and copies of the bytes: keeping it keeps nothing else alive.
   * @this {RecordFields}
   */
  toObject() {
    return {
      offset: this.offset,
      timestamp: this.timestamp,
      key: copyBytes(this.key),
      value: copyBytes(this.value),
      headers: this.headers.map((h) => ({ key: h.key, value: copyBytes(h.value) })),
      batch: { ...this.batch },
      leaderEpoch: this.leaderEpoch,
      isControl: this.isControl,
      controlType: this.controlType,
    };
  }

  /**
   * The JSON form: int64 values as numbers (or strings when they are BigInts), bytes as base64
   * strings (null for null), headers as [{ key, value }]; the batch is left out (a partition's
   * JSON lists its batches), its leader epoch kept; control records add isControl and controlType.
   * @this {RecordFields}
   */
  toJSON() {
    const out = {
      offset: jsonInt64(this.offset),
      timestamp: jsonInt64(this.timestamp),
      key: base64(this.key),
      value: base64(this.value),
      headers: this.headers.map((h) => ({ key: h.key, value: base64(h.value) })),
      leaderEpoch: this.leaderEpoch,
    };
    if (this.isControl) {
      out.isControl = true;
      out.controlType = this.controlType;
    }
    return out;
  }

  /** @this {RecordFields} */
  [Symbol.for('nodejs.util.inspect.custom')](depth, options, inspect) {
    const o = { ...this.toObject(), batch: `[batch ${this.batch.baseOffset}..${this.batch.lastOffset} ${this.batch.compression}]` };
    return `KafkaRecord ${inspect(o, options)}`;
  }
}

/** A record whose fields are its own properties: ordinary data for clone, postMessage and tests. */
export class PlainRecord extends KafkaRecord {
  constructor(offset, timestamp, key, value, headers, batch, controlType) {
    super();
    this.offset = offset;
    this.timestamp = timestamp;
    this.key = key;
    this.value = value;
    this.headers = headers;
    this.batch = batch;
    this.leaderEpoch = batch.partitionLeaderEpoch;
    this.isControl = batch.isControl;
    this.controlType = controlType;
  }
}

/** A record of a transient result: fields read from wasm memory on access, after a validity check. */
export class TransientRecord extends KafkaRecord {
  #c;
  #i;
  constructor(columns, index) {
    super();
    this.#c = columns;
    this.#i = index;
  }
  get offset() {
    this.#c.check();
    return this.#c.offsets[this.#i];
  }
  get timestamp() {
    this.#c.check();
    return this.#c.timestamps[this.#i];
  }
  get key() {
    this.#c.check();
    return this.#c.bytes(this.#c.keys, this.#i);
  }
  get value() {
    this.#c.check();
    return this.#c.bytes(this.#c.values, this.#i);
  }
  get headers() {
    this.#c.check();
    return this.#c.headers(this.#i);
  }
  get batch() {
    return this.#c.batches[this.#c.batchIndex[this.#i]];
  }
  get leaderEpoch() {
    return this.batch.partitionLeaderEpoch;
  }
  get isControl() {
    return this.batch.isControl;
  }
  get controlType() {
    this.#c.check();
    return this.#c.controlType(this.#i, this.batch);
  }
}
