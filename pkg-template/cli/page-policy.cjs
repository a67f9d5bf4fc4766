// The inspection page's Content-Security-Policy, sent by both its servers (`kafka-fetch-decoder ui`,
// serve.cjs, and the repository's scripts/serve-www.mjs) with the page itself and with the scripts its
// workers start from (a worker is held to the policy its own script came with; the modules a page or
// a worker imports are held to theirs). A page link can carry a JS filter and SQL; whatever runs
// there, the browser holds it to this:
//   - scripts from the page's own origin only (and its inline import map, by its hash), WebAssembly,
//     and the functions the value decoders compile (avsc and protobufjs make their readers so:
//     'unsafe-eval');
//   - connections to the page's own origin and its relay (`connect`) only: nothing leaves for
//     another site, or for another local port;
//   - no frames of it elsewhere, no plugins, no forms, no <base>.
// The JS filter's worker (www/workers/js-filter/js-worker.js) gets a policy of its own, which leaves it nothing but
// running the code typed: no fetch, WebSocket, import() or importScripts, no other worker.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const JS_WORKER = '/www/workers/js-filter/js-worker.js';
const JS_WORKER_POLICY = "default-src 'none'; script-src 'unsafe-eval'";
// what starts as a page or a worker: the page (a directory's index.html), its workers, DuckDB's
const STARTS = /(\/|\.html|\/www\/workers\/(decode\/worker|analysis\/analysis-worker|js-filter\/js-worker)\.js|\/duckdb\/duckdb-browser-eh\.worker\.js)$/;

/** The hash sources of the inline scripts of `indexHtml` (the page's import map), for script-src. */
function inlineScriptHashes(indexHtml) {
  let html;
  try {
    html = fs.readFileSync(indexHtml, 'utf8');
  } catch {
    return [];
  }
  return [...html.matchAll(/<script\b[^>]*>([^<]+)<\/script>/g)].map((m) => `'sha256-${crypto.createHash('sha256').update(m[1]).digest('base64')}'`);
}

/**
 * A function of (pathname, connectSources) -> the headers of that file of the page (whose files are
 * in `wwwDir`): its Content-Security-Policy when it starts a page or a worker, and nosniff.
 * `connectSources`: what the page may connect to besides its own origin (its relay's WebSocket URL).
 */
function pageHeaders(wwwDir) {
  const policy = pagePolicy(wwwDir);
  return (pathname, connectSources) =>
    STARTS.test(pathname)
      ? { 'content-security-policy': policy(pathname, connectSources), 'x-content-type-options': 'nosniff' }
      : { 'x-content-type-options': 'nosniff' };
}

function pagePolicy(wwwDir) {
  const hashes = inlineScriptHashes(path.join(wwwDir, 'index.html')).join(' ');
  return (pathname, connectSources) => {
    if (pathname.endsWith(JS_WORKER)) return JS_WORKER_POLICY;
    return [
      "default-src 'self'",
      `script-src 'self' 'wasm-unsafe-eval' 'unsafe-eval' ${hashes}`,
      `connect-src 'self' ${connectSources}`,
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data: blob:",
      "worker-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; ');
  };
}

module.exports = { pageHeaders };
