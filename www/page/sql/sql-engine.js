// DuckDB-wasm in a worker, loaded when the SQL panel first opens, from /duckdb/ on the page's own
// server (`kafka-fetch-decoder ui`, or scripts/serve-www.mjs in the repository): nothing from the network.
// Before the first query of the user, DuckDB's external access is turned off (no URL, file or
// extension is read: read_text('http://...'), INSTALL and LOAD fail) and its configuration locked
// (no SET turns it on again), so that a query, typed or from a link, reads the records and nothing
// else, and sends nothing anywhere; the page's Content-Security-Policy holds DuckDB's worker to its
// own origin as well. What DuckDB has built in works (aggregates, window functions, regexp_*,
// date_trunc, quantiles, structs and lists), the json extension does not.
//
// Only DuckDB's byte-level calls are used: Arrow IPC in (insertArrowFromIPCStream), Arrow IPC out
// (runQuery), read with the package's own Arrow library; so the `apache-arrow` import of DuckDB's
// module is never needed, and index.html maps it to an empty module (no-apache-arrow.js).

import { loadFlechette } from './sql-data.js';

const BASE = new URL('../../../duckdb/', import.meta.url);

/**
 * What the page uses of DuckDB-wasm's module (loaded by URL, so typed here): its asynchronous
 * database in a worker, and byte-level calls on a connection (its id).
 * @typedef {{
 *   instantiate(mainModuleURL: string): Promise<unknown>,
 *   connectInternal(): Promise<number>,
 *   runQuery(conn: number, text: string): Promise<Uint8Array>,
 *   insertArrowFromIPCStream(conn: number, buffer: Uint8Array, options: { name: string, create?: boolean }): Promise<void>,
 * }} AsyncDuckDB
 * @typedef {{ AsyncDuckDB: new (logger: object, worker: Worker) => AsyncDuckDB, VoidLogger: new () => object }} DuckDBModule
 */

/** @typedef {import('./sql-data.js').Flechette} Flechette */
/** @typedef {{ db: AsyncDuckDB, conn: number, flechette: Flechette, version: string }} Engine */

/**
 * How a column's values are shown (kindOf): times (their unit: s, ms, us, ns, or day), number, bytes or other.
 * @typedef {'s' | 'ms' | 'us' | 'ns' | 'day' | 'number' | 'bytes' | 'other'} Kind
 */

/**
 * A query's answer (query): its columns, row count and time taken; a column's values, and a cell as text (null for NULL).
 * @typedef {{
 *   columns: { name: string, type: import('./sql-data.js').ArrowType, kind: Kind }[],
 *   rows: number,
 *   ms: number,
 *   column(c: number): unknown[],
 *   cell(r: number, c: number): string | null,
 * }} QueryResult
 */

/** @type {Promise<Engine>} */
let engine = null; // a promise of { db, conn, flechette }

/**
 * DuckDB, started once: resolves with the engine, or rejects with an error that says what to do.
 * @returns {Promise<Engine>}
 */
export function startEngine() {
  engine ??= open().catch((e) => {
    engine = null;
    throw e;
  });
  return engine;
}

/** @returns {Promise<Engine>} */
async function open() {
  const check = await fetch(new URL('duckdb-eh.wasm', BASE), { method: 'HEAD' }).catch(/** @returns {null} */ () => null);
  if (!check?.ok)
    throw new Error('DuckDB-wasm is not served here: install it beside the package (npm install @duckdb/duckdb-wasm) and start kafka-fetch-decoder ui again');
  const duckdb = /** @type {DuckDBModule} */ (await import(new URL('duckdb-browser.mjs', BASE).href));
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), new Worker(new URL('duckdb-browser-eh.worker.js', BASE)));
  await db.instantiate(new URL('duckdb-eh.wasm', BASE).href);
  const conn = await db.connectInternal();
  for (const setting of [
    'autoinstall_known_extensions = false',
    'autoload_known_extensions = false',
    'enable_external_access = false',
    'lock_configuration = true',
  ]) {
    await db.runQuery(conn, `SET ${setting}`);
  }
  const f = await loadFlechette();
  return { db, conn, flechette: f, version: await versionOf(db, conn, f) };
}

/**
 * @param {AsyncDuckDB} db
 * @param {number} conn
 * @param {Flechette} f
 */
async function versionOf(db, conn, f) {
  const table = f.tableFromIPC(await db.runQuery(conn, 'SELECT version() AS v'));
  // version() is a VARCHAR
  return /** @type {string} */ (table.getChild('v').at(0));
}

// Arrow's timestamp carries its zone (UTC), which DuckDB reads as TIMESTAMP WITH TIME ZONE, whose
// functions (date_trunc, strftime, ...) come from the ICU extension: not loaded offline, and
// DuckDB-wasm traps when one is called. The table keeps the same instants as plain TIMESTAMPs in UTC.
const UTC_TIMESTAMP = 'REPLACE ("timestamp"::TIMESTAMP AS "timestamp")';

/**
 * Replaces the table `records` with `tables` (sql-data.js's tablesOf): the envelope columns, joined
 * row for row with value_decoded / value_fields when there are any, less the rows the cap dropped.
 * @param {import('./sql-data.js').Tables} tables
 */
export async function loadRecords(tables) {
  const { db, conn } = await startEngine();
  const run = (/** @type {string} */ sql) => db.runQuery(conn, sql);
  await run('DROP TABLE IF EXISTS records');
  // insertArrowFromIPCStream hands its buffer to the worker: give it copies the page does not need back
  await db.insertArrowFromIPCStream(conn, tables.records.slice(), { name: '_records', create: true });
  if (tables.fields) {
    await db.insertArrowFromIPCStream(conn, tables.fields.slice(), { name: '_fields', create: true });
    await run(`CREATE TABLE records AS SELECT * ${UTC_TIMESTAMP} FROM _records POSITIONAL JOIN _fields`);
    await run('DROP TABLE _fields');
  } else {
    await run(`CREATE TABLE records AS SELECT * ${UTC_TIMESTAMP} FROM _records`);
  }
  await run('DROP TABLE _records');
  if (tables.dropped) await run(`DELETE FROM records WHERE rowid < ${tables.dropped}`);
}

/**
 * Runs `sql`; resolves with { columns: [{ name, type }], rows: count, cell(row, column) -> text, column(i) -> values, ms }.
 * @param {string} sql
 * @returns {Promise<QueryResult>}
 */
export async function query(sql) {
  const { db, conn, flechette: f } = await startEngine();
  const started = performance.now();
  // 64-bit integers as BigInts: exact, and never an error past 2^53 (an id, a sum, a hash)
  const table = f.tableFromIPC(await db.runQuery(conn, sql), { useDate: false, useBigInt: true });
  const ms = performance.now() - started;
  const columns = table.schema.fields.map((field) => ({ name: field.name, type: field.type, kind: kindOf(f, field.type) }));
  const children = table.children;
  return {
    columns,
    rows: table.numRows,
    ms,
    column: (/** @type {number} */ c) => Array.from({ length: table.numRows }, (_, r) => children[c].at(r)),
    cell: (/** @type {number} */ r, /** @type {number} */ c) => textOf(children[c].at(r), columns[c].kind),
  };
}

/**
 * How a column's values are shown: time (ms since the epoch), number, bytes or other.
 * @param {Flechette} f
 * @param {import('./sql-data.js').ArrowType} type
 * @returns {Kind}
 */
function kindOf(f, type) {
  switch (type.typeId) {
    case f.Type.Timestamp:
      return type.unit === f.TimeUnit.MILLISECOND ? 'ms' : type.unit === f.TimeUnit.MICROSECOND ? 'us' : type.unit === f.TimeUnit.NANOSECOND ? 'ns' : 's';
    case f.Type.Date:
      return type.unit === f.DateUnit.DAY ? 'day' : 'ms';
    case f.Type.Int:
    case f.Type.Float:
    case f.Type.Decimal:
      return 'number';
    case f.Type.Binary:
    case f.Type.LargeBinary:
    case f.Type.BinaryView:
    case f.Type.FixedSizeBinary:
      return 'bytes';
    default:
      return 'other';
  }
}

const TIME_KINDS = new Set(['s', 'ms', 'us', 'ns', 'day']);

/**
 * Milliseconds since the epoch of a time column's value (the Arrow library reads every unit as ms).
 * @param {unknown} v
 */
function timeOf(v) {
  return Number(v);
}

export const isTime = (/** @type {string} */ kind) => TIME_KINDS.has(kind);

/**
 * @param {unknown} v a cell's value as the Arrow library reads it: of any column type
 * @param {Kind} kind
 */
function textOf(v, kind) {
  if (v === null || v === undefined) return null;
  if (isTime(kind)) {
    const ms = timeOf(v);
    return Number.isFinite(ms) && Math.abs(ms) < 8.64e15
      ? new Date(ms)
          .toISOString()
          .replace('T', ' ')
          .replace(/\.000Z$|Z$/, '')
      : String(v);
  }
  if (v instanceof Uint8Array) return bytesText(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'object') return JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() : x instanceof Uint8Array ? bytesText(x) : x));
  return String(v);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Bytes as UTF-8 text when they are (and printable), else hex.
 * @param {Uint8Array} bytes
 */
function bytesText(bytes) {
  try {
    const text = utf8.decode(bytes);
    if (!/[\u0000-\u0008\u000e-\u001f\u007f]/.test(text)) return text;
  } catch {
    /* not UTF-8 */
  }
  return Array.from(bytes.subarray(0, 64), (b) => b.toString(16).padStart(2, '0')).join(' ') + (bytes.length > 64 ? ' …' : '');
}
