// How the CLI prints records: a table for people, or one JSON object per line for tools (the same
// for a capture file and for a live topic).
'use strict';

const { jsonForm, printable } = require('../lib.cjs');

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false });

/** Bytes for JSON: base64 (default), hex, or UTF-8 text (bytes that are not UTF-8: { base64 }). */
function encodeBytes(bytes, encoding) {
  if (bytes === null) return null;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (encoding === 'hex') return buf.toString('hex');
  if (encoding === 'utf8') {
    try {
      return strictUtf8.decode(bytes);
    } catch {
      return { base64: buf.toString('base64') };
    }
  }
  return buf.toString('base64');
}

/** One record as a JSON line's object. int64 values are strings, so that no tool rounds them. */
function recordJson(topic, partition, r, encoding) {
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
  if (r.batch.crcValid === false) out.crcValid = false;
  return out;
}

// What JSON.stringify leaves as it is and a terminal would act on: C1 controls, DEL, bidirectional
// marks and overrides, line and paragraph separators (as printable() knows them)
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/g;

/** JSON text whose strings carry no character a terminal acts on (escaped as \uXXXX: the same data). */
function jsonText(value, space) {
  return JSON.stringify(value, null, space).replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// CSV (RFC 4180): a field with a comma, a quote or a line end is quoted, its quotes doubled
const CSV_COLUMNS = ['topic', 'partition', 'offset', 'timestamp', 'key', 'value', 'headers', 'compression', 'leader_epoch'];
const csvField = (v) => {
  const s = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** CSV's header line (with the decoded values' format columns when values are decoded). */
function csvHeader(decoded) {
  return (decoded ? [...CSV_COLUMNS, 'key_format', 'value_format'] : CSV_COLUMNS).join(',');
}

/**
 * One record as a CSV line: bytes per `encoding` (not UTF-8 under utf8: "base64:" and the
 * base64), null as an empty field, headers as their JSON; decoded keys and values as their JSON
 * text (strings as they are).
 */
function csvRow(topic, partition, r, encoding, decoded) {
  const bytes = (b) => {
    const e = encodeBytes(b, encoding);
    return e !== null && typeof e === 'object' ? `base64:${e.base64}` : e;
  };
  const side = (b, d) => {
    if (!decoded || !d || d.format === 'bytes' || d.format === 'null') return bytes(b);
    return typeof d.value === 'string' ? d.value : JSON.stringify(d.value);
  };
  const headers = r.headers.map((h) => ({ key: h.key, value: encodeBytes(h.value, encoding) }));
  const row = [topic, partition, String(r.offset), String(r.timestamp), side(r.key, r.decodedKey), side(r.value, r.decodedValue), headers, r.batch.compression, r.leaderEpoch];
  if (decoded) row.push(r.decodedKey?.format ?? '', r.decodedValue?.format ?? '');
  return row.map(csvField).join(',');
}

function preview(bytes, width) {
  if (bytes === null) return '(null)';
  let s = lenientUtf8.decode(bytes.subarray(0, width * 4)).replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '.');
  if (s.length > width) s = `${s.slice(0, width - 1)}…`;
  return s;
}

// [name, width, whether a longer value is cut]: text is cut with an ellipsis; numbers never are (an
// offset past the column's width widens its row rather than print as another offset)
const COLUMNS = [['topic', 20, true], ['part', 4, false], ['offset', 8, false], ['time', 24, false], ['key', 16, true],
  ['value', 40, true], ['hdrs', 4, false], ['codec', 6, true], ['flags', 12, true]];
const cell = (value, [, width, cut]) => {
  const s = String(value);
  return cut && s.length > width ? `${s.slice(0, width - 1)}…` : s.padEnd(width);
};
const line = (cells) => cells.map((c, i) => cell(c, COLUMNS[i])).join('  ').trimEnd();

function tableHeader() {
  return `${line(COLUMNS.map((c) => c[0]))}\n${COLUMNS.map((c) => '-'.repeat(c[1])).join('  ')}`;
}

/** A decoded key or value (ValueDecoder's) as compact text, or null to show the bytes themselves. */
function decodedText(d) {
  if (!d || d.format === 'null' || d.format === 'bytes') return null;
  return (typeof d.value === 'string' ? d.value : JSON.stringify(jsonForm(d.value))).replace(/[\u0000-\u001f\u007f-\u009f]/g, '.');
}

/** One table row; `flags` marks what a reader must not miss (a bad CRC, an aborted transaction). */
function tableRow(topic, partition, r) {
  const ts = Number(r.timestamp);
  const time = ts >= 0 ? new Date(ts).toISOString() : '-';
  const value = r.isControl ? `[${r.controlType} marker]` : decodedText(r.decodedValue) ?? preview(r.value, 40);
  const key = decodedText(r.decodedKey) ?? preview(r.key, 16);
  const flags = [r.batch.crcValid === false && 'BAD-CRC', r.batch.isAborted && 'aborted'].filter(Boolean).join(',');
  return line([printable(topic), partition, r.offset, time, key, value, r.headers.length, r.batch.compression, flags]);
}

module.exports = { csvHeader, csvRow, encodeBytes, jsonText, recordJson, tableHeader, tableRow };
