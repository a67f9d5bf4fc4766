// Tables as Parquet files, by parquet-wasm (the parquet crate compiled to wasm, vendored in
// vendor/parquet/ and loaded the first time a file is written: 5 MB that the package's load never
// pays). Chosen by measurement over a JavaScript writer (benches/README.md, "Parquet"): about 3x its
// speed, and zstd, which it has not.

import { ArrowStreamWriter } from './ipc.mjs';

const CODECS = { zstd: 'ZSTD', snappy: 'SNAPPY', none: 'UNCOMPRESSED' };

let load = null; // Node's: requires the CommonJS build
let library = null;

export function setParquetLibrary(loader) {
  load = loader;
}

/** parquet-wasm, loaded once: Node's CommonJS build, or the browser build beside this module. */
function parquetLibrary() {
  library ??= load
    ? Promise.resolve(load())
    : import('../vendor/parquet/parquet_wasm.mjs').then(async (m) => {
        await m.default();
        return m;
      });
  return library;
}

/**
 * The rows of `tables` (toArrow's, the same fields: one table, or several in order) as the bytes
 * of a Parquet file with one row group; `compression`: 'zstd' (default), 'snappy' or 'none'. The
 * same tables give the same bytes.
 */
export async function toParquet(tables, { compression = 'zstd' } = {}) {
  if (!CODECS[compression]) throw new Error(`kafka-fetch-decoder: Parquet compression is zstd, snappy or none, got '${compression}'`);
  const pw = await parquetLibrary();
  const pieces = [];
  const writer = new ArrowStreamWriter((bytes) => {
    pieces.push(bytes);
  });
  for (const t of Array.isArray(tables) ? tables : [tables]) writer.write(t);
  writer.end();
  const ipc = concat(pieces);
  const table = pw.Table.fromIPCStream(ipc);
  const props = new pw.WriterPropertiesBuilder()
    .setCompression(pw.Compression[CODECS[compression]])
    .setMaxRowGroupSize(2 ** 31 - 1)
    .build();
  return pw.writeParquet(table, props);
}

function concat(pieces) {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
