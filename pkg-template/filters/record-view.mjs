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

/** A decoded side's data, or null when it stayed bytes (no decoder, or one that did not decode it). */
function decodedData(d) {
  return d && d.format !== 'bytes' && d.format !== 'null' ? d.value : undefined;
}

/**
 * Record `r` (a KafkaRecord, or anything with its fields: offset, timestamp, key, value, headers,
 * decodedKey and decodedValue when values were decoded) of `topic`/`partition` as filters read it.
 */
export function recordView(topic, partition, r) {
  const headerList = r.headers.map((h) => ({ key: h.key, value: headerText(h.value) }));
  const headers = Object.create(null); // a header named __proto__ is a header like any other
  for (const h of headerList) headers[h.key] = h.value;
  const offset = typeof r.offset === 'bigint' && r.offset <= MAX_SAFE ? Number(r.offset) : r.offset;
  return {
    topic,
    partition,
    offset,
    timestamp: Number(r.timestamp),
    key: decodedData(r.decodedKey) ?? plainValue(r.key),
    value: decodedData(r.decodedValue) ?? plainValue(r.value),
    headers,
    headerList,
  };
}
