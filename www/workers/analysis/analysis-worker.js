// Module worker: the analysis side of the page, started by analysis.js. It keeps a copy of the
// page's chunks (their transferable form, numbered as the page numbers its records) and answers:
//
//   In:  { type: 'reset', partitions: [{ topic, partition }], source }   another store: forget the chunks
//        { type: 'values', settings }                             the page's value settings (values.js)
//        { type: 'chunk', base, count, data }                     records base..base+count-1
//        { type: 'drop', first }                                  records below `first` are gone
//        { type: 'eval', id, expr: { where, js, run }, numbers }  the Where / JS filter on these records
//        { type: 'stats', id, numbers | null }                    statistics (stats-compute.js)
//        { type: 'export', id, format, encoding, numbers }        the records in that order (export-build.js)
//        { type: 'js-worker', key, port | error }                 a JS filter's worker, started by the page (js-filter.js)
//   Out: { id, matched, notEvaluated, scanned, timedOut: [{ partition, offset }], stopped, boundMs } | { id, error: { field, message } }
//        (notEvaluated: the numbers of the records the JS filter timed out on, or did not run on once stopped)
//        { id, stats } | { id, progress: records written } then { id, export: { parts, type, count } }
//        { type: 'js-worker-start' | 'js-worker-end', key }        the page starts or ends a JS filter's worker
//
// Records reach the filters as plain objects: key and value as their schema or format decoded them
// (the JSON form: 64-bit integers as digits), else parsed JSON, else UTF-8 text, else { base64 };
// headers as an object of texts (the last of a name wins) and as a list. The JS filter runs in a
// worker of its own (js-filter.js), which is ended when a record takes too long.

import { JsFilter, NOT_EVALUATED, jsWorkerAnswered } from './js-filter.js';
import { computeStats } from './stats-compute.js';
import { toBase64 } from '../../shared/bytes.js';
import { buildExport } from './export-build.js';
import { chunkIndex, recordView } from '../../shared/chunks.js';
import { decoderOptions } from '../../shared/value-settings.js';

// The messages with the page are typed in shared/analysis-protocol.js, for both sides.
/**
 * @typedef {import('../../shared/analysis-protocol.js').PartitionName} PartitionName
 * @typedef {import('../../shared/analysis-protocol.js').FilterExpr} FilterExpr
 * @typedef {import('../../shared/analysis-protocol.js').FilterRecord} FilterRecord
 * @typedef {import('../../shared/analysis-protocol.js').AnalysisRequest} AnalysisRequest
 * @typedef {import('../../shared/analysis-protocol.js').EvalRequest} EvalRequest
 * @typedef {import('../../shared/analysis-protocol.js').StatsRequest} StatsRequest
 * @typedef {import('../../shared/analysis-protocol.js').ExportRequest} ExportRequest
 * @typedef {import('../../shared/analysis-protocol.js').EvalMatches} EvalMatches
 * @typedef {import('../../shared/analysis-protocol.js').EvalError} EvalError
 * @typedef {import('../../shared/analysis-protocol.js').EvalAnswer} EvalAnswer
 * @typedef {import('../../shared/analysis-protocol.js').StatsAnswer} StatsAnswer
 * @typedef {import('../../shared/analysis-protocol.js').ExportProgress} ExportProgress
 * @typedef {import('../../shared/analysis-protocol.js').ExportAnswer} ExportAnswer
 * @typedef {import('../../shared/analysis-protocol.js').FatalAnswer} FatalAnswer
 * @typedef {import('../../../pkg/web.mjs').Int64} Int64
 * @typedef {import('../../shared/chunks.js').Package} Package
 * @typedef {import('../../shared/chunks.js').Columns} Columns
 * @typedef {import('../../shared/chunks.js').ChunkData} ChunkData
 * @typedef {typeof import('../../../pkg/arrow.mjs')} Arrow the package's Arrow entry
 * @typedef {import('../../../pkg/arrow.mjs').ArrowTable} ArrowTable
 * @typedef {import('../../shared/value-settings.js').ValueSettings} ValueSettings
 *
 * @typedef {{ base: number, count: number, data: ChunkData, table: ArrowTable | null,
 *   result?: import('../../../pkg/web.mjs').FetchResponse<Int64> | import('../../../pkg/web.mjs').RecordSet<Int64>,
 *   cols?: Columns }} Chunk a chunk the page sent, with its records read when first asked for
 * @typedef {ReturnType<typeof recordView> & { n: number, chunk: Chunk }} RecordAt a record's bytes and place (viewOf)
 */

const PKG = new URL('../../../pkg/', import.meta.url);
/** @type {Package} */
let api = null; // the package's module, its wasm started (loadApi)
/** @type {Package} */
let pkgModule = null; // the package's module, loaded without starting its wasm (loadModule)
/** @type {PartitionName[]} */
let partitions = [];
/** @type {string | null} */
let source = null; // the name of the file or topic (an export names a record set's records by it)
/** @type {Chunk[]} */
let chunks = []; // { base, count, data, table? } by base
let first = 0; // records numbered below were dropped by the page's cap
/** @type {ValueSettings | null} */
let settings = null;
/** @type {import('../../../pkg/web.mjs').ValueDecoder | null} */
let decoder = null;
/** @type {{ source: string, test: ReturnType<Package['parseWhere']> } | null} */
let where = null; // { source, test }
/** @type {JsFilter | null} */
let js = null; // JsFilter
let queue = Promise.resolve(); // requests answered one at a time, in order

/**
 * The package's module: fromTransferable and recordColumns need no wasm (a JS filter reads records with them alone).
 * @returns {Promise<Package>}
 */
async function loadModule() {
  pkgModule ??= await import(new URL('web.mjs', PKG).href);
  return pkgModule;
}

/** @returns {Promise<Package>} */
async function loadApi() {
  if (!api) {
    const mod = await loadModule();
    // the contract (codec, timestamp type and control type names) is the wasm module's: loaded for toArrow
    await (mod.init ?? mod.default)();
    api = mod;
  }
  return api;
}

self.onmessage = (/** @type {MessageEvent<AnalysisRequest>} */ { data: msg }) => {
  switch (msg.type) {
    case 'reset':
      chunks = [];
      first = 0;
      partitions = msg.partitions;
      source = msg.source;
      break;
    case 'values':
      settings = msg.settings;
      decoder = null;
      break;
    case 'chunk':
      chunks.push({ base: msg.base, count: msg.count, data: msg.data, table: null });
      break;
    case 'drop':
      first = msg.first;
      chunks = chunks.filter((c) => c.base + c.count > first);
      break;
    case 'js-worker': // the page started a JS filter's worker (js-filter.js), answered at once
      jsWorkerAnswered(msg);
      break;
    default:
      queue = queue
        .then(() => answer(msg))
        .catch((e) => self.postMessage(/** @satisfies {FatalAnswer} */ ({ id: msg.id, error: { message: String(e?.message ?? e) }, fatal: true })));
  }
};

/** @param {EvalRequest | StatsRequest | ExportRequest} msg */
async function answer(msg) {
  await loadModule(); // the chunks are read through the package's recordColumns
  if (msg.type === 'eval') self.postMessage(/** @satisfies {EvalAnswer} */ ({ id: msg.id, ...(await evaluate(msg.expr, msg.numbers)) }));
  else if (msg.type === 'stats') self.postMessage(/** @satisfies {StatsAnswer} */ ({ id: msg.id, stats: await statistics(msg.numbers) }));
  else if (msg.type === 'export') {
    const reader = { viewOf, chunkOf, tableOf, partitions, source, valueDecoder, loadApi, loadModule };
    const made = await buildExport(msg, reader, (done) => self.postMessage(/** @satisfies {ExportProgress} */ ({ id: msg.id, progress: done })));
    self.postMessage(
      /** @satisfies {ExportAnswer} */ ({ id: msg.id, export: made }),
      made.parts.filter((p) => typeof p !== 'string').map((p) => p.buffer),
    );
  }
}

/**
 * A chunk's records (the package's fromTransferable and recordColumns), made once.
 * @param {Chunk} c
 */
function columnsOfChunk(c) {
  if (!c.cols) {
    c.result = pkgModule.fromTransferable(c.data);
    c.cols = pkgModule.recordColumns(c.result);
  }
  return c.cols;
}

/**
 * A chunk's records as an Arrow table (the package's toArrow), made once.
 * @param {Chunk} c
 * @param {Arrow} arrow
 */
function tableOf(c, arrow) {
  columnsOfChunk(c);
  c.table ??= arrow.toArrow(c.result);
  return c.table;
}

// ---- the records as the filters read them ----------------------------------------------------------

/** @param {number} n */
function chunkOf(n) {
  const c = chunks[chunkIndex(chunks, n)];
  return c && n >= c.base && n < c.base + c.count ? c : null;
}

/**
 * Record number n's position in its chunk's columns (and its row in the chunk's table).
 * @param {Chunk} chunk
 * @param {number} n
 */
function positionOf(chunk, n) {
  const positions = chunk.data.page.positions;
  return positions ? positions[n - chunk.base] : n - chunk.base;
}

/**
 * Record number n's bytes and place: { n, i (its column position), chunk, cols (its recordColumns),
 * data, part (its partition's index), key, value, headers (byte values), isControl, controlType }.
 * @param {number} n
 * @returns {RecordAt | null}
 */
function viewOf(n) {
  const chunk = chunkOf(n);
  if (!chunk) return null;
  return { n, chunk, ...recordView(columnsOfChunk(chunk), chunk.data, positionOf(chunk, n)) };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Bytes as the filters see them without a schema: JSON parsed, else text, else { base64 }.
 * @param {Uint8Array | null} bytes
 * @returns {unknown} the user's data, as parsed
 */
function plainValue(bytes) {
  if (bytes == null) return null;
  let text;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { base64: toBase64(bytes) };
  }
  if (/^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      /* text */
    }
  }
  return text;
}

/** @param {Uint8Array | null} bytes */
const headerText = (bytes) => {
  if (bytes == null) return null;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return { base64: toBase64(bytes) };
  }
};

/** @returns {Promise<import('../../../pkg/web.mjs').ValueDecoder | null>} */
async function valueDecoder() {
  if (!settings) return null;
  if (!decoder) {
    const { ValueDecoder } = await loadApi();
    decoder = new ValueDecoder(decoderOptions(settings, { json: true }));
  }
  return decoder;
}

/**
 * The records numbered `numbers` as plain objects (see the top), in order; missing ones (dropped) are left out.
 * @param {Float64Array} numbers
 * @returns {Promise<FilterRecord[]>}
 */
async function recordsOf(numbers) {
  const views = [];
  for (const n of numbers) {
    const v = viewOf(n);
    if (v) views.push(v);
  }
  const values = await valueDecoder();
  if (values) await values.prepare(views);
  return views.map((v) => {
    const { data, cols } = v;
    const p = /** @type {Partial<PartitionName>} */ (partitions[data.page.part[v.i]] ?? {});
    const offset = cols.offsets[v.i];
    const side = (/** @type {'key' | 'value'} */ name) => {
      const d = values ? values.decodeSide(v, name) : null;
      return d && d.format !== 'bytes' && d.format !== 'null' ? d.value : plainValue(v[name]);
    };
    const headerList = v.headers.map((x) => ({ key: x.key, value: headerText(x.value) }));
    return {
      n: v.n,
      topic: p.topic ?? null,
      partition: p.partition ?? null,
      offset: typeof offset === 'bigint' && offset <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(offset) : offset,
      timestamp: Number((data.page.timestamps ?? cols.timestamps)[v.i]),
      key: side('key'),
      value: side('value'),
      headers: Object.fromEntries(headerList.map((x) => [x.key, x.value])),
      headerList,
    };
  });
}

// ---- the Where and JS filters --------------------------------------------------------------------

/**
 * @param {FilterExpr} expr
 * @param {Float64Array} numbers
 * @returns {Promise<EvalMatches | EvalError>}
 */
async function evaluate(expr, numbers) {
  if (expr.where && where?.source !== expr.where) {
    const { parseWhere } = await loadApi();
    try {
      where = { source: expr.where, test: parseWhere(expr.where) };
    } catch (e) {
      return { error: { field: 'where', message: `Where: ${e.message}` } };
    }
  }
  if (expr.js && js?.source !== expr.js) {
    js?.close();
    js = new JsFilter(expr.js);
  }
  if (expr.js) {
    const problem = await js.compiled();
    if (problem) return { error: { field: 'js', message: `JS: ${problem}` } };
    js.startRun(expr.run);
  }
  // keys and values read as JSON or text: a Where that needs a string skips records whose bytes lack it
  const skip = expr.where && !settings ? where.test.skip : null;
  let present = 0;
  const candidates = skip
    ? numbers.filter((n) => {
        const v = viewOf(n);
        if (v) present++;
        return v && !skip(v);
      })
    : numbers;
  let records = await recordsOf(candidates);
  const scanned = skip ? present : records.length;
  if (expr.where) records = records.filter((r) => safely(() => where.test(r)));
  /** @type {EvalMatches} */
  const out = { matched: null, notEvaluated: new Float64Array(0), scanned, timedOut: [], stopped: false, boundMs: js?.boundMs ?? null };
  if (expr.js) {
    const { results, timedOut, stopped } = await js.run(records);
    out.timedOut = timedOut.map((k) => ({ partition: records[k].partition, offset: String(records[k].offset) }));
    out.stopped = stopped;
    out.notEvaluated = Float64Array.from(
      records.filter((_, k) => results[k] === NOT_EVALUATED),
      (r) => r.n,
    );
    records = records.filter((_, k) => results[k] === 1);
  }
  out.matched = Float64Array.from(records, (r) => r.n);
  return out;
}

/** @param {() => unknown} f */
function safely(f) {
  try {
    return Boolean(f());
  } catch {
    return false;
  }
}

// ---- statistics ----------------------------------------------------------------------------------

/**
 * Arrow tables of the kept chunks (toArrow of each, made once), with the rows `numbers` selects.
 * @param {Float64Array | null} numbers
 */
async function statistics(numbers) {
  await loadApi();
  /** @type {Arrow} */
  const arrow = await import(new URL('arrow.mjs', PKG).href);
  const parts = [];
  let k = 0;
  for (const c of chunks) {
    tableOf(c, arrow);
    let rows = null;
    if (!numbers && c.base < first) {
      rows = new Uint32Array(c.base + c.count - first).map((_, j) => first - c.base + j);
    } else if (numbers) {
      const picked = [];
      while (k < numbers.length && numbers[k] < c.base) k++;
      while (k < numbers.length && numbers[k] < c.base + c.count) picked.push(numbers[k++] - c.base);
      rows = Uint32Array.from(picked);
      if (!rows.length) continue;
    }
    parts.push({ table: c.table, rows, first: 0 });
  }
  return computeStats(parts);
}
