#!/usr/bin/env node
// Serves the repository root on 127.0.0.1 so that /www/ (the inspection page), /pkg/ (the built
// package) and /samples/ resolve as the page expects. No relay: live mode needs one started apart
// (kafka-fetch-decoder relay --allow-origin http://127.0.0.1:PORT); /duckdb/ serves the SQL
// panel's DuckDB-wasm from node_modules. No dependencies.
//   node scripts/serve-www.mjs [--port 8080]      (--port 0 picks a free port)
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// one table with the package's `ui` server
const require = createRequire(import.meta.url);
const TYPES = require('../pkg-template/cli/content-types.cjs');
// the SQL panel's DuckDB-wasm, from the repository's node_modules (a devDependency)
const { findSqlBundles, serveSqlBundle } = require('../pkg-template/cli/sql-bundles.cjs');
const SQL_BUNDLES = findSqlBundles([ROOT]);
// the page's Content-Security-Policy, as `ui` sends it; its relay and registry are started apart
// here, on loopback ports of their own
const { pageHeaders } = require('../pkg-template/cli/page-policy.cjs');
const policyHeaders = pageHeaders(path.join(ROOT, 'www'));
const LOOPBACK = ['127.0.0.1', 'localhost'].flatMap((h) => [`ws://${h}:*`, `http://${h}:*`]).join(' ');
const headers = (pathname) => policyHeaders(pathname, LOOPBACK);

function parsePort(argv) {
  const i = argv.findIndex((a) => a === '--port' || a.startsWith('--port='));
  if (i < 0) return 8080;
  const value = argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1];
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: invalid --port ${value}`);
    process.exit(2);
  }
  return port;
}

function send(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

const server = http.createServer((req, res) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed');
  let pathname;
  try {
    pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  } catch {
    return send(res, 400, 'bad request');
  }
  if (pathname === '/') {
    res.writeHead(302, { location: '/www/' });
    return res.end();
  }
  // `kafka-fetch-decoder ui` names its relay here; this server has none, so the page asks for its URL.
  if (pathname === '/ui.json') {
    res.writeHead(200, { 'content-type': TYPES['.json'], 'cache-control': 'no-store' });
    return res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ sql: Boolean(SQL_BUNDLES) }));
  }
  if (serveSqlBundle(SQL_BUNDLES, pathname, req, res, (status, text) => send(res, status, text), TYPES, headers(pathname))) return;
  // No dot segments: this keeps ".." escapes out as well as .git and other dotfiles.
  if (pathname.split('/').some((segment) => segment.startsWith('.'))) return send(res, 404, `not found: ${pathname}`);
  let file = path.join(ROOT, pathname);
  fs.stat(file, (err, stat) => {
    if (!err && stat.isDirectory()) {
      if (!pathname.endsWith('/')) {
        res.writeHead(301, { location: `${pathname}/` });
        return res.end();
      }
      file = path.join(file, 'index.html');
    }
    fs.stat(file, (err2, stat2) => {
      if (err2 || !stat2.isFile()) return send(res, 404, `not found: ${pathname}`);
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
        'content-length': stat2.size,
        // A rebuilt package must be picked up on reload.
        'cache-control': 'no-store',
        ...headers(pathname),
      });
      if (req.method === 'HEAD') return res.end();
      fs.createReadStream(file).pipe(res);
    });
  });
});

server.on('error', (err) => {
  console.error(err.code === 'EADDRINUSE' ? `serve: port ${err.port} is in use; pick another with --port` : `serve: ${err.message}`);
  process.exit(1);
});

server.listen(parsePort(process.argv.slice(2)), '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`Kafka fetch inspector: http://127.0.0.1:${port}/www/`);
  if (!fs.existsSync(path.join(ROOT, 'pkg', 'web.mjs'))) {
    console.log('note: pkg/web.mjs is missing; build the package first (npm run build)');
  }
});
