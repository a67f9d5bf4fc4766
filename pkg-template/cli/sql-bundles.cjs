// DuckDB-wasm for the page's SQL panel, served from where npm installed @duckdb/duckdb-wasm (an
// optional peer dependency: `npm install @duckdb/duckdb-wasm` beside this package), never fetched
// from the network. Shared by `kafka-fetch-decoder ui` (serve.cjs) and the repository's
// development server (scripts/serve-www.mjs). Only the three files the page loads are served: the
// module, its worker and the wasm binary of the exception-handling build (every current browser).
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/** The URL prefix the page loads DuckDB-wasm from (www/page/sql/sql-engine.js). */
const SQL_PREFIX = '/duckdb/';
const SQL_FILES = ['duckdb-browser.mjs', 'duckdb-browser-eh.worker.js', 'duckdb-eh.wasm'];

/** The dist/ directory of @duckdb/duckdb-wasm as seen from `paths` (directories), or null. */
function findSqlBundles(paths) {
  try {
    const wasm = require.resolve('@duckdb/duckdb-wasm/dist/duckdb-eh.wasm', { paths });
    const dir = path.dirname(wasm);
    return SQL_FILES.every((f) => fs.existsSync(path.join(dir, f))) ? dir : null;
  } catch {
    return null;
  }
}

/**
 * Serves `pathname` (under SQL_PREFIX) from `dir` with `send(status, text)` for errors and
 * `headers` added (the page's policy: it holds DuckDB's worker too); true when it handled the
 * request. The files are large (34 MB of wasm): streamed, and cached by the browser for an hour,
 * as they change only with the installed version.
 */
function serveSqlBundle(dir, pathname, req, res, send, types, headers = {}) {
  if (!pathname.startsWith(SQL_PREFIX)) return false;
  const name = pathname.slice(SQL_PREFIX.length);
  if (!dir || !SQL_FILES.includes(name)) {
    send(404, dir ? `not found: ${pathname}` : 'the SQL panel needs @duckdb/duckdb-wasm: npm install @duckdb/duckdb-wasm');
    return true;
  }
  const file = path.join(dir, name);
  fs.stat(file, (err, stat) => {
    if (err) return send(404, `not found: ${pathname}`);
    res.writeHead(200, {
      'content-type': types[path.extname(name)] ?? 'application/octet-stream',
      'content-length': stat.size,
      'cache-control': 'max-age=3600',
      ...headers,
    });
    if (req.method === 'HEAD') return res.end();
    fs.createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  });
  return true;
}

module.exports = { SQL_PREFIX, SQL_FILES, findSqlBundles, serveSqlBundle };
