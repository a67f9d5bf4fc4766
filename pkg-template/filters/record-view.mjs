// A record as filters read it (the Where language, where.mjs): plain data with its key and value
// as data. A side a ValueDecoder decoded is its decoded value; else JSON when its bytes are a JSON
// object or array, else its UTF-8 text, else { base64 }. Headers by name (the last of a name) and
// in order (headerList), their values as text. The page's analysis worker and the scan's workers
// read records the same way.

import { base64 } from '../decoder/bytes.mjs';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Bytes as filters see them without a schema: a JSON object or array parsed, else text, else { base64 }. */
export function plainValue(bytes) {
  if (bytes == null) return null;
  let text;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { base64: base64(bytes) };
  }
  if (/^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // text that only looks like JSON
    }
  }
  return text;
}

/** A header value as text, or { base64 } when it is not UTF-8. */
export function headerText(bytes) {
  if (bytes == null) return null;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return { base64: base64(bytes) };
  }
}

/** A decoded side's data, or undefined when it stayed bytes (no decoder, or one that did not decode it). */
function decodedData(d) {
  return d && d.format !== 'bytes' && d.format !== 'null' ? d.value : undefined;
}

/**
 * Record `r` (a KafkaRecord, or anything with its fields: offset, timestamp, key, value, headers,
 * decodedKey and decodedValue when values were decoded) of `topic`/`partition` as filters read it.
 * Its key, value and headers are read when first asked for: a filter on the value never parses the
 * key or the headers.
 */
export function recordView(topic, partition, r) {
  return new RecordView(topic, partition, r);
}

class RecordView {
  #r;
  #key;
  #value;
  #headerList;
  #headers;

  constructor(topic, partition, r) {
    this.#r = r;
    this.topic = topic;
    this.partition = partition;
    this.offset = typeof r.offset === 'bigint' && r.offset <= MAX_SAFE ? Number(r.offset) : r.offset;
    this.timestamp = Number(r.timestamp);
  }

  get key() {
    if (this.#key === undefined) this.#key = decodedData(this.#r.decodedKey) ?? plainValue(this.#r.key);
    return this.#key;
  }

  get value() {
    if (this.#value === undefined) this.#value = decodedData(this.#r.decodedValue) ?? plainValue(this.#r.value);
    return this.#value;
  }

  get headerList() {
    this.#headerList ??= this.#r.headers.map((h) => ({ key: h.key, value: headerText(h.value) }));
    return this.#headerList;
  }

  get headers() {
    if (!this.#headers) {
      this.#headers = Object.create(null); // a header named __proto__ is a header like any other
      for (const h of this.headerList) this.#headers[h.key] = h.value;
    }
    return this.#headers;
  }

  toJSON() {
    const { topic, partition, offset, timestamp, key, value, headers, headerList } = this;
    return { topic, partition, offset: typeof offset === 'bigint' ? String(offset) : offset, timestamp, key, value, headers, headerList };
  }
}
