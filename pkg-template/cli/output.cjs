// How the CLI prints records: a table for people, or one JSON object per line for tools (the same
// for a capture file and for a live topic).
'use strict';

// the JSON and CSV forms of a record are shared with the inspection page's export (decoder/record-json.mjs)
const { jsonForm, printable, protobufRawText, recordOutput } = require('../lib.cjs');

const { csvHeader, csvRow, encodeBytes, recordJson } = recordOutput;
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false });

// What JSON.stringify leaves as it is and a terminal would act on: C1 controls, DEL, bidirectional
// marks and overrides, line and paragraph separators (as printable() knows them)
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/g;

/** JSON text whose strings carry no character a terminal acts on (escaped as \uXXXX: the same data). */
function jsonText(value, space) {
  return JSON.stringify(value, null, space).replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function preview(bytes, width) {
  if (bytes === null) return '(null)';
  let s = lenientUtf8.decode(bytes.subarray(0, width * 4)).replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '.');
  if (s.length > width) s = `${s.slice(0, width - 1)}…`;
  return s;
}

// [name, width, whether a longer value is cut]: text is cut with an ellipsis; numbers never are (an
// offset past the column's width widens its row rather than print as another offset)
/** @type {[name: string, width: number, cut: boolean][]} */
const COLUMNS = [
  ['topic', 20, true],
  ['part', 4, false],
  ['offset', 8, false],
  ['time', 24, false],
  ['key', 16, true],
  ['value', 40, true],
  ['hdrs', 4, false],
  ['codec', 6, true],
  ['flags', 12, true],
];
const cell = (value, [, width, cut]) => {
  const s = String(value);
  return cut && s.length > width ? `${s.slice(0, width - 1)}…` : s.padEnd(width);
};
const line = (cells) =>
  cells
    .map((c, i) => cell(c, COLUMNS[i]))
    .join('  ')
    .trimEnd();

function tableHeader() {
  return `${line(COLUMNS.map((c) => c[0]))}\n${COLUMNS.map((c) => '-'.repeat(c[1])).join('  ')}`;
}

/** A decoded key or value (ValueDecoder's) as compact text, or null to show the bytes themselves. */
function decodedText(d) {
  if (!d || d.format === 'null' || d.format === 'bytes') return null;
  if (d.format === 'protobuf-raw') return protobufRawText(d.value).replace(/[\u0000-\u001f\u007f-\u009f]/g, '.');
  return (typeof d.value === 'string' ? d.value : JSON.stringify(jsonForm(d.value))).replace(/[\u0000-\u001f\u007f-\u009f]/g, '.');
}

/** One table row; `flags` marks what a reader must not miss (a bad CRC, an aborted transaction). */
function tableRow(topic, partition, r) {
  const ts = Number(r.timestamp);
  const time = ts >= 0 ? new Date(ts).toISOString() : '-';
  const value = r.isControl ? `[${r.controlType} marker]` : (decodedText(r.decodedValue) ?? preview(r.value, 40));
  const key = decodedText(r.decodedKey) ?? preview(r.key, 16);
  const flags = [r.batch.crcValid === false && 'BAD-CRC', r.batch.isAborted && 'aborted'].filter(Boolean).join(',');
  return line([printable(topic), partition, r.offset, time, key, value, r.headers.length, r.batch.compression, flags]);
}

// kcat -J's line (its json.c, through yajl): topic, partition, offset, tstype and ts (when the
// record has a timestamp), broker (its node id; -1 when unknown), headers as a flat [name, value,
// ...] list (only when there are any), key, payload. Bytes are text: kcat writes them as they are,
// so bytes that are not UTF-8 make its line something else than JSON; here they are U+FFFD.
// Strings are escaped as yajl escapes them (\u001B in capitals), and as jsonText escapes the
// characters a terminal acts on: the same data for a JSON reader, the same bytes as kcat otherwise.
const KCAT_ESCAPES = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const KCAT_TSTYPE = { CREATE_TIME: 'create', LOG_APPEND_TIME: 'logappend' };
const kcatString = (s) =>
  `"${s.replace(/["\\\u0000-\u001f]/g, (c) => KCAT_ESCAPES[c] ?? `\\u00${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)}"`;
const kcatText = (bytes) => (bytes === null ? 'null' : kcatString(lenientUtf8.decode(bytes)));

/** A decoded side as kcat -s avro writes it (the data itself), or null to write the bytes. */
const kcatDecoded = (d) => (d && d.format !== 'null' && d.format !== 'bytes' ? jsonText(jsonForm(d.value)) : null);

/** One record as kcat -J prints it (`brokerId`: the node id it came from, -1 when unknown). */
function kcatJson(topic, partition, r, brokerId) {
  let line = `{"topic":${kcatString(String(topic))},"partition":${partition === '-' ? -1 : partition},"offset":${r.offset}`;
  const tstype = KCAT_TSTYPE[r.batch.timestampType];
  if (tstype) line += `,"tstype":"${tstype}","ts":${r.timestamp}`;
  line += `,"broker":${brokerId}`;
  if (r.headers.length) line += `,"headers":[${r.headers.map((h) => `${kcatString(h.key)},${kcatText(h.value)}`).join(',')}]`;
  const key = kcatDecoded(r.decodedKey);
  line += `,"key":${key ?? kcatText(r.key)}`;
  if (key !== null && r.decodedKey.schemaId !== undefined) line += `,"key_schema_id":${r.decodedKey.schemaId}`;
  const value = kcatDecoded(r.decodedValue);
  line += `,"payload":${value ?? kcatText(r.value)}`;
  if (value !== null && r.decodedValue.schemaId !== undefined) line += `,"value_schema_id":${r.decodedValue.schemaId}`;
  return `${line}}`.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Rows of cells as columns padded to their widest cell, as Kafka's own tools print them: `header`
 * is the first row; null and undefined cells are '-'; every cell made printable.
 */
function alignedTable(header, rows) {
  const text = [header, ...rows].map((row) => row.map((c) => (c === null || c === undefined ? '-' : printable(String(c)))));
  const widths = header.map((_, i) => Math.max(...text.map((row) => row[i].length)));
  return text
    .map((row) =>
      row
        .map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

module.exports = { alignedTable, csvHeader, csvRow, encodeBytes, jsonText, kcatJson, recordJson, tableHeader, tableRow };
