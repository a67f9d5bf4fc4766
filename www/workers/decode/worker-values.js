// The worker's side of decoded values: one ValueDecoder per value settings of the page (schemas
// fetched and compiled once, then shared by every chunk), and, per chunk, a short text of each
// decoded key and value for the table, and the value's format and schema id for its Schema column
// (the detail pane decodes the one record it shows itself).
//
// Settings, as the page sends them (values.js): { key, value (formats), registryUrl, schema:
// { avro } | { protobuf: { source, type } } | null } or null (nothing decoded).

/** @typedef {import('../../shared/value-settings.js').ValueSettings} ValueSettings */

import { recordViews } from '../../shared/chunks.js';
import { decoderOptions } from '../../shared/value-settings.js';

// what the table shows of a decoded value: the start of its compact JSON
const PREVIEW_CHARS = 200;

/** @type {{ text: string, decoder: import('../../../pkg/web.mjs').ValueDecoder } | null} */
let current = null; // { settings (as JSON), decoder }

/**
 * The ValueDecoder of `settings` (the same one while they do not change), or null.
 * @param {import('../../shared/chunks.js').Package} api
 * @param {ValueSettings | null} settings
 */
export function valueDecoderFor(api, settings) {
  if (!settings) return null;
  const text = JSON.stringify(settings);
  if (current?.text !== text) {
    current = {
      text,
      // what the table shows is text: the JSON form, 64-bit integers exact
      decoder: new api.ValueDecoder(decoderOptions(settings, { json: true })),
    };
  }
  return current.decoder;
}

/**
 * Decodes the keys and values of a chunk (`cols`: its records, chunks.js's columnsOf; `data`:
 * toTransferable's form with prepareChunk's page columns) and adds to data.page.decoded, per side, `text` (per column position: the preview, or
 * null), `format` (the format that won) and `failures` (position -> why a registry or a schema
 * failed). Never rejects: what does not decode stays bytes.
 * @param {import('../../../pkg/web.mjs').ValueDecoder} decoder
 * @param {import('../../shared/chunks.js').Columns} cols
 * @param {import('../../shared/chunks.js').ChunkData} data
 */
export async function attachPreviews(decoder, cols, data) {
  const records = recordViews(cols, data.page);
  await decoder.prepare(records);
  const n = cols.length;
  /** @type {{ key?: import('../../shared/chunks.js').SidePreviews, value?: import('../../shared/chunks.js').SidePreviews }} */
  const sides = {};
  for (const side of /** @type {const} */ (['key', 'value']))
    sides[side] = { text: new Array(n).fill(null), format: new Array(n).fill(null), schema: new Array(n).fill(null), failures: new Map() };
  const max = data.page.max;
  // the widest key as the table shows it: decoded text, or the bytes' preview (as chunks.js guesses it)
  let keyChars = 0;
  for (const r of records) {
    for (const side of /** @type {const} */ (['key', 'value'])) {
      const d = decoder.decodeSide(r, side);
      const out = sides[side];
      const failure = d.error ?? null;
      if (failure) out.failures.set(r.i, failure);
      if (d.format === 'bytes' || d.format === 'null') {
        if (side === 'key') keyChars = Math.max(keyChars, r.key ? previewChars(r.key) : 4);
        continue;
      }
      const text = typeof d.value === 'string' ? d.value : JSON.stringify(d.value);
      out.text[r.i] = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
      out.format[r.i] = d.messageType ? `${d.format} ${d.messageType}` : d.format;
      // the Schema column: the format and the schema's id or guid
      const id = d.schemaId ?? d.guid;
      out.schema[r.i] = id === undefined ? out.format[r.i] : `${out.format[r.i]} #${id}`;
      if (side === 'value') max.schemaChars = Math.max(max.schemaChars, out.schema[r.i].length);
      else keyChars = Math.max(keyChars, Math.min(text.length, PREVIEW_CHARS));
    }
  }
  if (records.length) max.keyChars = keyChars;
  data.page.decoded = sides;
}

/**
 * About how many characters the table's preview of raw bytes takes: text as it is, else hex.
 * @param {Uint8Array} bytes
 */
function previewChars(bytes) {
  for (let j = 0; j < Math.min(bytes.length, 64); j++) if (bytes[j] < 0x20 || bytes[j] >= 0x7f) return 3 * Math.min(bytes.length, 32) + 2;
  return bytes.length;
}
