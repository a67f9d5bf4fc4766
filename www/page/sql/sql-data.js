// What the SQL panel queries: the records the page keeps (a decoded file, or a live tail's kept
// chunks) as Arrow IPC for DuckDB, made by the package's column layer (kafka-fetch-decoder/arrow)
// from each chunk's columns: no record objects for the envelope. Beside it, when values are objects
// (decoded by the page's value settings, or JSON text), `value_decoded` (their JSON text) and
// `value_fields` (a struct of their top-level fields, so that SQL reaches a field without DuckDB's
// json extension, which the page does not load: nothing is fetched from the network).

import { valueSettings } from '../values/values.js';
import { loadPackage } from '../store.js';

// value_fields: the fields found in the first SAMPLE objects, at most MAX_FIELDS of them
const SAMPLE = 2000;
const MAX_FIELDS = 64;

/**
 * What the page uses of the Arrow library the package's tables are made with (flechette: the
 * package's arrowLibrary(), typed there as any): reading IPC, a column's type id and unit, and
 * building the table of decoded fields.
 * @typedef {{ typeId: number, unit?: number }} ArrowType a column's data type (unit: of times and dates)
 * @typedef {{ name: string, type: ArrowType }} ArrowField
 * @typedef {import('../../../pkg/arrow.mjs').ArrowColumn} ArrowColumn
 * @typedef {import('../../../pkg/arrow.mjs').ArrowTable & { children: ArrowColumn[] }} FlechetteTable
 * @typedef {{
 *   tableFromIPC(bytes: Uint8Array, options?: { useDate?: boolean, useBigInt?: boolean }): FlechetteTable,
 *   tableFromArrays(data: Record<string, unknown[]>, options?: { types?: Record<string, ArrowType> }): FlechetteTable,
 *   struct(fields: ArrowField[]): ArrowType,
 *   field(name: string, type: ArrowType): ArrowField,
 *   utf8(): ArrowType,
 *   float64(): ArrowType,
 *   bool(): ArrowType,
 *   Type: Record<'Timestamp' | 'Date' | 'Int' | 'Float' | 'Decimal' | 'Binary' | 'LargeBinary' | 'BinaryView' | 'FixedSizeBinary', number>,
 *   TimeUnit: Record<'SECOND' | 'MILLISECOND' | 'MICROSECOND' | 'NANOSECOND', number>,
 *   DateUnit: Record<'DAY' | 'MILLISECOND', number>,
 * }} Flechette
 */

/**
 * The records as sql-engine.js loads them (tablesOf).
 * @typedef {{ records: Uint8Array, fields: Uint8Array | null, dropped: number, count: number, fieldNames: string[] }} Tables
 */

/** @typedef {'number' | 'boolean' | 'text'} FieldKind how a value_fields column holds its values */

/** @type {typeof import('../../../pkg/arrow.mjs')} */
let arrowEntry = null;
// the page thread decodes nothing (worker.js does), so the module's contract (the codec, timestamp
// and control type names the Arrow dictionaries hold) is loaded here when the panel first needs it
const loadArrow = async () => {
  if (!arrowEntry) {
    await (await loadPackage()).init();
    arrowEntry = await import(new URL('../../../pkg/arrow.mjs', import.meta.url).href);
  }
  return arrowEntry;
};
// the Arrow library the package's tables are made with (flechette, its arrowLibrary), for the table
// of decoded fields and for reading DuckDB's answers (sql-engine.js)
/** @type {() => Promise<Flechette>} */
export const loadFlechette = async () => (await import(new URL('../../../pkg/arrow.mjs', import.meta.url).href)).arrowLibrary();

/**
 * The records of `store` for DuckDB: { records (IPC stream bytes of the envelope columns), fields
 * (IPC bytes of value_decoded / value_fields, row for row, or null), dropped (rows at the start
 * that the live cap has dropped: the table must leave them out), count, fieldNames }.
 * @param {import('../store.js').RecordStore} store
 * @returns {Promise<Tables>}
 */
export async function tablesOf(store) {
  const arrow = await loadArrow();
  const chunks = store.chunks.slice();
  // compact: the IPC holds the records' own bytes, not the frames around them
  const table = arrow.compact(arrow.toArrow(chunks.map((c) => c.result)));
  const records = arrow.arrowIPC(table);
  const dropped = chunks.length ? chunks[0].start : 0;
  const values = await valuesOf(chunks);
  return { records, dropped, count: table.numRows - dropped, ...(values ?? { fields: null, fieldNames: [] }) };
}

/**
 * value_decoded and value_fields for every row of `chunks` (in toArrow's order), or null when no value is an object.
 * @param {import('../store.js').RecordStore['chunks']} chunks
 * @returns {Promise<{ fields: Uint8Array, fieldNames: string[] } | null>}
 */
async function valuesOf(chunks) {
  const settings = valueSettings();
  const decoder = settings ? await decoderFor(settings) : null;
  /** @type {string[]} */
  const texts = [];
  /** @type {Record<string, unknown>[]} the decoded values that are objects (null for the others) */
  const objects = [];
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let found = false;
  for (const chunk of chunks) {
    const views = [];
    for (let k = 0; k < chunk.count; k++) {
      const i = chunk.position(chunk.base + k);
      views.push({ i, key: chunk.key(i), value: chunk.value(i), headers: chunk.headers(i) });
    }
    if (decoder) await decoder.prepare(views);
    for (const r of views) {
      let value = null;
      let text = null;
      if (decoder) {
        const d = decoder.decodeSide(r, 'value');
        if (d.format !== 'bytes' && d.format !== 'null') {
          value = d.value;
          text = typeof value === 'string' ? value : JSON.stringify(value);
        }
      } else if (r.value && r.value[0] === 0x7b) {
        // '{': a JSON object, perhaps
        try {
          text = utf8.decode(r.value);
          value = JSON.parse(text);
        } catch {
          text = null;
          value = null;
        }
      }
      const object = value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
      found ||= object !== null;
      texts.push(text);
      objects.push(object);
    }
  }
  if (!found) return null;
  const { tableFromArrays, struct, field, ...types } = await loadFlechette();
  const fieldTypes = inferFields(objects, types);
  const names = Object.keys(fieldTypes);
  const rows = objects.map((o) => (o === null ? null : Object.fromEntries(names.map((n) => [n, cell(o[n], fieldTypes[n].kind)]))));
  const fields = tableFromArrays(
    { value_decoded: texts, value_fields: rows },
    {
      types: { value_decoded: types.utf8(), value_fields: struct(names.map((n) => field(n, fieldTypes[n].type))) },
    },
  );
  const { arrowIPC } = await loadArrow();
  return { fields: arrowIPC(fields), fieldNames: names };
}

/**
 * The page's value settings as a ValueDecoder giving JSON-ready values (64-bit integers as exact strings).
 * @param {ReturnType<typeof valueSettings>} settings
 */
async function decoderFor(settings) {
  const api = await loadPackage();
  // the menus' values are the package's format names
  return new api.ValueDecoder({
    key: /** @type {import('../../../pkg/web.mjs').ValueFormat} */ (settings.key),
    value: /** @type {import('../../../pkg/web.mjs').ValueFormat} */ (settings.value),
    registry: settings.registryUrl ? { url: settings.registryUrl } : null,
    valueSchema: settings.schema,
    json: true,
  });
}

/**
 * { name: { kind, type } } of the top-level fields of the first objects: numbers, booleans, else text.
 * @param {Record<string, unknown>[]} objects
 * @param {Pick<Flechette, 'float64' | 'bool' | 'utf8'>} types
 * @returns {Record<string, { kind: FieldKind, type: ArrowType }>}
 */
function inferFields(objects, types) {
  /** @type {Map<string, FieldKind | null>} null: only null values seen so far */
  const kinds = new Map();
  let seen = 0;
  for (const o of objects) {
    if (o === null) continue;
    if (++seen > SAMPLE) break;
    for (const [name, v] of Object.entries(o)) {
      if (!kinds.has(name) && kinds.size >= MAX_FIELDS) continue;
      if (v === null || v === undefined) {
        if (!kinds.has(name)) kinds.set(name, null);
        continue;
      }
      const kind = typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'text';
      const before = kinds.get(name);
      kinds.set(name, before == null || before === kind ? kind : 'text');
    }
  }
  const typeOf = { number: types.float64(), boolean: types.bool(), text: types.utf8() };
  return Object.fromEntries([...kinds].map(([name, kind]) => [name, { kind: kind ?? 'text', type: typeOf[kind ?? 'text'] }]));
}

/**
 * A field's value as its column holds it: numbers and booleans as they are, the rest as text (JSON for objects).
 * @param {unknown} v a decoded value's field: any JSON-ready value
 * @param {FieldKind} kind
 */
function cell(v, kind) {
  if (v === null || v === undefined) return null;
  if (kind === 'number') return typeof v === 'number' ? v : null;
  if (kind === 'boolean') return typeof v === 'boolean' ? v : null;
  return typeof v === 'string' ? v : JSON.stringify(v);
}
