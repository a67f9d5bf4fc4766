// A record as the command line's --json and CSV write it, and as the inspection page exports it:
// one definition for both, and public (recordJson, jsonWithDecoded, csvHeader, csvRow), so that any
// other export writes what the CLI writes. A record here is anything with a KafkaRecord's fields
// (offset, timestamp, key, value, headers, batch, leaderEpoch, isControl, controlType; decodedKey and
// decodedValue when values are decoded): the page passes light objects made from its columns.

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

function base64(bytes) {
  // Node's Buffer where there is one (the CLI); the browser's own encoder, else btoa
  if (typeof Buffer === 'function') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  if (typeof bytes.toBase64 === 'function') return bytes.toBase64();
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function hex(bytes) {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]];
  return out;
}

/** Bytes for JSON: base64 (default), hex, or UTF-8 text (bytes that are not UTF-8: { base64 }). */
export function encodeBytes(bytes, encoding) {
  if (bytes === null) return null;
  if (encoding === 'hex') return hex(bytes);
  if (encoding === 'utf8') {
    try {
      return strictUtf8.decode(bytes);
    } catch {
      return { base64: base64(bytes) };
    }
  }
  return base64(bytes);
}

/**
 * One record as a JSON line's object. int64 values are strings, so that no tool rounds them; a
 * control record says its type, a record of an aborted transaction `aborted`, a bad CRC `crcValid`.
 */
export function recordJson(topic, partition, r, encoding) {
  const out = {
    topic,
    partition,
    offset: String(r.offset),
    timestamp: String(r.timestamp),
    key: encodeBytes(r.key, encoding),
    value: encodeBytes(r.value, encoding),
    headers: r.headers.map((h) => ({ key: h.key, value: encodeBytes(h.value, encoding) })),
    compression: r.batch.compression,
    leaderEpoch: r.leaderEpoch,
  };
  if (r.isControl) out.control = r.controlType;
  if (r.batch.isAborted) out.aborted = true;
  if (r.batch.crcValid === false) out.crcValid = false;
  return out;
}

/** A record's JSON line (recordJson's object) with its decoded key and value in place of their bytes. */
export function jsonWithDecoded(json, r) {
  for (const side of ['key', 'value']) {
    const d = side === 'key' ? r.decodedKey : r.decodedValue;
    if (!d || d.format === 'null') continue;
    if (d.format !== 'bytes') json[side] = d.value;
    json[`${side}Format`] = d.format;
    if (d.schemaId !== undefined) json[`${side}SchemaId`] = d.schemaId;
    if (d.guid !== undefined) json[`${side}SchemaGuid`] = d.guid;
    if (d.messageType !== undefined) json[`${side}MessageType`] = d.messageType;
    if (d.invalidUtf8At !== undefined) json[`${side}InvalidUtf8At`] = d.invalidUtf8At;
    if (d.error) json[`${side}Error`] = d.error;
  }
  return json;
}

// CSV (RFC 4180): a field with a comma, a quote or a line end is quoted, its quotes doubled
export const CSV_COLUMNS = ['topic', 'partition', 'offset', 'timestamp', 'key', 'value', 'headers', 'compression', 'leader_epoch'];
// A spreadsheet runs a cell that starts with one of these as a formula (=HYPERLINK(...), =cmd|...,
// @SUM(...)); OWASP's advice is a leading ', which makes the cell text. Plain numbers (-1, +3.5)
// are no formula and stay numbers, a lone - stays as it is. So that a reader can take the ' off
// again, a cell that starts with ' itself gets one too: a leading ' is always one added.
const FORMULA_START = /^[=+\-@\t\r]/;
const NO_FORMULA = /^([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|-)$/;
const csvField = (v, keepFormulas) => {
  let s = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  if (!keepFormulas && (s.startsWith("'") || (FORMULA_START.test(s) && !NO_FORMULA.test(s)))) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
// A key or value cell that starts with "base64:" holds the base64 of its bytes, always: bytes
// that are not UTF-8 under --encoding utf8, and text that itself starts with "base64:".
const BASE64_MARK = 'base64:';
const textEncoder = new TextEncoder();
const textCell = (s) => (s.startsWith(BASE64_MARK) ? `${BASE64_MARK}${base64(textEncoder.encode(s))}` : s);

/** CSV's header line (with the decoded values' format columns when values are decoded). */
export function csvHeader(decoded) {
  return (decoded ? [...CSV_COLUMNS, 'key_format', 'value_format'] : CSV_COLUMNS).join(',');
}

/**
 * One record as a CSV line: bytes per `encoding` (not UTF-8 under utf8: "base64:" and the
 * base64), null as an empty field, headers as their JSON; decoded keys and values as their JSON
 * text (strings as they are). A key or value cell that starts with "base64:" is always the base64
 * of the bytes (a text that starts so is written that way too). Cells a spreadsheet would run as a
 * formula get a leading ' unless `keepFormulas`.
 */
export function csvRow(topic, partition, r, encoding, decoded, keepFormulas = false) {
  const bytes = (b) => {
    const e = encodeBytes(b, encoding);
    return e !== null && typeof e === 'object' ? `${BASE64_MARK}${e.base64}` : e === null ? null : textCell(e);
  };
  const side = (b, d) => {
    if (!decoded || !d || d.format === 'bytes' || d.format === 'null') return bytes(b);
    return typeof d.value === 'string' ? textCell(d.value) : JSON.stringify(d.value);
  };
  const headers = r.headers.map((h) => ({ key: h.key, value: encodeBytes(h.value, encoding) }));
  const row = [
    topic,
    partition,
    String(r.offset),
    String(r.timestamp),
    side(r.key, r.decodedKey),
    side(r.value, r.decodedValue),
    headers,
    r.batch.compression,
    r.leaderEpoch,
  ];
  if (decoded) row.push(r.decodedKey?.format ?? '', r.decodedValue?.format ?? '');
  return row.map((v) => csvField(v, keepFormulas)).join(',');
}
