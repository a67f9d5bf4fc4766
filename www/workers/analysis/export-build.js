// The export of the view, made in the analysis worker from its copy of the records, in the view's
// order: NDJSON and JSON in the CLI's --json shape, CSV as the CLI's --format csv, with the package's
// own functions for both (recordJson, jsonWithDecoded, csvHeader, csvRow); Arrow as the CLI's --format arrow and Parquet as
// a scan's files (the package's toArrow of each chunk, the view's rows taken from them by its
// takeRows, with key_decoded and value_decoded when the page decodes values). Bytes as base64 or as
// text ({ base64 } where they are not UTF-8); decoded keys and values as the CLI writes them when
// the page decodes values.

const PKG = new URL('../../../pkg/', import.meta.url);
const BATCH = 2000; // records decoded and written per step (progress is told between steps)

/**
 * @typedef {import('../../shared/analysis-protocol.js').ExportFormat} ExportFormat
 * @typedef {import('../../shared/analysis-protocol.js').ExportFile} ExportFile the file, for a Blob of its parts
 * @typedef {import('../../shared/analysis-protocol.js').PartitionName} PartitionName
 * @typedef {import('./analysis-worker.js').Chunk} Chunk
 * @typedef {import('./analysis-worker.js').RecordAt} RecordAt
 * @typedef {import('../../../pkg/web.mjs').ValueDecoder} ValueDecoder
 * @typedef {import('../../shared/chunks.js').Package} Package
 * @typedef {{ viewOf(n: number): RecordAt | null, chunkOf(n: number): Chunk | null,
 *   tableOf(c: Chunk, arrow: typeof import('../../../pkg/arrow.mjs')): import('../../../pkg/arrow.mjs').ArrowTable,
 *   partitions: PartitionName[], source: string | null,
 *   valueDecoder(): Promise<ValueDecoder | null>, loadApi(): Promise<Package>, loadModule(): Promise<Package> }} ExportReader
 *   what the export reads of the analysis worker
 */

/**
 * `numbers`: the records in the order to write; `reader`: the worker's { viewOf(n), chunkOf(n),
 * tableOf(chunk, arrow), partitions, source, valueDecoder(), loadApi() (the package, its wasm started), loadModule() (without) };
 * `progress(done)`. Resolves with { parts: [text or
 * bytes], type, count }.
 * @param {Pick<import('../../shared/analysis-protocol.js').ExportRequest, 'format' | 'encoding' | 'numbers'>} request
 * @param {ExportReader} reader
 * @param {(done: number) => void} progress
 * @returns {Promise<ExportFile>}
 */
export async function buildExport({ format, encoding, numbers }, reader, progress) {
  if (format === 'arrow' || format === 'parquet') return columnsExport(format, numbers, reader);
  const out = await reader.loadModule(); // recordJson and csvRow need no wasm
  const decoder = await reader.valueDecoder();
  /** @type {string[]} */
  const parts = [];
  if (format === 'csv') parts.push(`${out.csvHeader(Boolean(decoder))}\n`);
  if (format === 'json') parts.push('[\n');
  let count = 0;
  for (let start = 0; start < numbers.length; start += BATCH) {
    const views = [];
    for (const n of numbers.subarray(start, start + BATCH)) {
      const v = reader.viewOf(n);
      if (v) views.push(v);
    }
    if (decoder) await decoder.prepare(views.filter((v) => !v.isControl));
    let text = '';
    for (const v of views) {
      const r = recordOf(v, decoder);
      const p = /** @type {Partial<PartitionName>} */ (reader.partitions[v.part] ?? {});
      // as the CLI names them: a record set by its file, with partition '-'
      const topic = p.topic ?? reader.source;
      const partition = p.partition ?? '-';
      if (format === 'csv') {
        text += `${out.csvRow(topic, partition, r, encoding, Boolean(decoder))}\n`;
      } else {
        const json = out.recordJson(topic, partition, r, encoding);
        const line = JSON.stringify(decoder ? out.jsonWithDecoded(json, r) : json);
        text += format === 'json' ? `${count ? ',\n' : ''}${line}` : `${line}\n`;
      }
      count++;
    }
    parts.push(text);
    progress(Math.min(numbers.length, start + BATCH));
  }
  if (format === 'json') parts.push(count ? '\n]\n' : ']\n');
  const type = { csv: 'text/csv', json: 'application/json', ndjson: 'application/x-ndjson' }[format];
  return { parts, type, count };
}

/**
 * A record as recordJson reads one, from the worker's view of it.
 * @param {RecordAt} v
 * @param {ValueDecoder | null} decoder
 */
function recordOf(v, decoder) {
  const { cols, i } = v;
  const batch = cols.batches[cols.batchIndex[i]];
  /** @type {import('../../../pkg/web.mjs').RecordFields} */
  const r = {
    offset: cols.offsets[i],
    timestamp: cols.timestamps[i],
    key: v.key,
    value: v.value,
    headers: v.headers,
    batch,
    leaderEpoch: batch.partitionLeaderEpoch,
    isControl: v.isControl,
    controlType: /** @type {import('../../../pkg/web.mjs').ControlType | null} */ (v.controlType),
  };
  if (decoder && !v.isControl) {
    r.decodedKey = decoder.decodeSide(v, 'key');
    r.decodedValue = decoder.decodeSide(v, 'value');
  }
  return r;
}

/**
 * The view as Arrow IPC (the stream format, the package's record schema), or as a Parquet file of
 * the same columns (the package's toParquet: parquet-wasm, loaded on first use).
 * @param {'arrow' | 'parquet'} format
 * @param {Float64Array} numbers
 * @param {ExportReader} reader
 * @returns {Promise<ExportFile>}
 */
async function columnsExport(format, numbers, reader) {
  await reader.loadApi();
  /** @type {typeof import('../../../pkg/arrow.mjs')} */
  const arrow = await import(new URL('arrow.mjs', PKG).href);
  const tables = [];
  /** @type {Map<Chunk, number>} */
  const index = new Map();
  const table = new Int32Array(numbers.length);
  const row = new Int32Array(numbers.length);
  let count = 0;
  for (const n of numbers) {
    const c = reader.chunkOf(n);
    if (!c) continue;
    if (!index.has(c)) {
      index.set(c, tables.length);
      tables.push(reader.tableOf(c, arrow));
    }
    table[count] = index.get(c);
    // the row of the chunk's table: the chunk's own numbering (the scan test holds the rows to the
    // NDJSON export's records; a record's column position, positionOf, ran past the table's end)
    row[count++] = n - c.base;
  }
  const decoder = await reader.valueDecoder();
  let taken = count
    ? arrow.takeRows(tables, { table: table.subarray(0, count), row: row.subarray(0, count) })
    : arrow.toArrow([], { decoded: Boolean(decoder) });
  // decoded keys and values as the CLI's --format arrow writes them, when the page decodes values
  if (decoder && count) taken = arrow.withDecoded(taken, await decodedSides(numbers, reader, decoder));
  // the package types its bytes loosely: these are new, of an ArrayBuffer of their own (transferred to the page)
  if (format === 'parquet') {
    return { parts: [/** @type {Uint8Array<ArrayBuffer>} */ (await arrow.toParquet(taken))], type: 'application/vnd.apache.parquet', count };
  }
  return { parts: [/** @type {Uint8Array<ArrayBuffer>} */ (arrow.arrowIPC(taken))], type: 'application/vnd.apache.arrow.stream', count };
}

/**
 * The decoded key and value of the records numbered `numbers`, in order ({ decodedKey, decodedValue }; control records have none).
 * @param {Float64Array} numbers
 * @param {ExportReader} reader
 * @param {ValueDecoder} decoder
 */
async function decodedSides(numbers, reader, decoder) {
  const out = [];
  for (let start = 0; start < numbers.length; start += BATCH) {
    const views = [];
    for (const n of numbers.subarray(start, start + BATCH)) {
      const v = reader.viewOf(n);
      if (v) views.push(v);
    }
    await decoder.prepare(views.filter((v) => !v.isControl));
    for (const v of views) out.push(v.isControl ? null : { decodedKey: decoder.decodeSide(v, 'key'), decodedValue: decoder.decodeSide(v, 'value') });
  }
  return out;
}
