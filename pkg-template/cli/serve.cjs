// `kafka-fetch-decoder relay` runs the read-only WebSocket relay through which browsers reach the
// brokers; `ui` serves the inspection page shipped in the package and the relay on one loopback port,
// so that `npx kafka-fetch-decoder ui --bootstrap HOST:PORT` is a live inspector.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { KafkaClient, KafkaClientError, startRelay } = require('../node.cjs');
const { UsageError, parseArgs, parse } = require('./args.cjs');
const { brokerOptions, brokerUsage, clientOptions } = require('./brokers.cjs');
const { registryCredentials } = require('./values.cjs');

const limits = `  --max-connections N       WebSocket connections open at once (default 64)
  --idle-timeout-ms N       close a connection with no traffic for this long (default 120000)
  --schema-registry URL     let pages read schemas from this registry through the relay, at /registry
                            (GET of schema paths only); credentials from KAFKA_SCHEMA_REGISTRY_USERNAME
                            and KAFKA_SCHEMA_REGISTRY_PASSWORD, or KAFKA_SCHEMA_REGISTRY_TOKEN`;

const relayUsage = `kafka-fetch-decoder relay --bootstrap HOST:PORT [options]
  A read-only WebSocket relay for the package's client in browsers (option relay): it connects only
  to the bootstrap brokers and those their metadata lists, forwards only ApiVersions, Metadata,
  ListOffsets and Fetch, checks the Origin of every connection, and does TLS and SASL itself.
${brokerUsage}
  --listen HOST:PORT        where to listen (default 127.0.0.1:8081; loopback unless told otherwise)
  --allow-origin ORIGIN     a web page origin allowed to connect (repeatable), e.g. http://localhost:5173
${limits}`;

const uiUsage = `kafka-fetch-decoder ui --bootstrap HOST:PORT [options]
  Serves the inspection page and the relay on one loopback port and prints the URL: open it to list
  the topics and tail one live.
${brokerUsage}
  --port N                  the port on 127.0.0.1 (default 8080; 0 picks a free one)
  --open                    open the page in the default browser
${limits}`;

const serveOptions = {
  ...brokerOptions,
  '--max-connections': { value: 'N', parse: parse.integer(1, 10_000) },
  '--idle-timeout-ms': { value: 'N', parse: parse.integer(1000, 2 ** 31 - 1) },
  '--schema-registry': { value: 'URL' },
};

const TYPES = require('./content-types.cjs');
const { findSqlBundles, serveSqlBundle } = require('./sql-bundles.cjs');
const { pageHeaders } = require('./page-policy.cjs');

const ROOT = path.resolve(__dirname, '..');
// URL prefix -> what it serves of the package: the page, the browser build it imports, the samples
const SERVED = { '/www/': 'www', '/pkg/': '', '/samples/': 'samples' };
// the browser build's modules (the Node-only ones are inside lib.cjs), the wasm module, and
// parquet-wasm's browser build (vendor/parquet/, loaded by Parquet output only)
const PKG_FILES =
  /^([\w-]+\.mjs|(client|columns|decoder|filters|scan|values|vendor)\/[\w-]+\.mjs|vendor\/parquet\/parquet_wasm(\.mjs|_bg\.wasm)|kafka_fetch_decoder_(web\.mjs|bg\.wasm))$/;

/**
 * Serves the page files shipped in the package (GET and HEAD only, no listing, no dot files), to
 * requests addressed to a loopback name only: a page of another site that its DNS points at
 * 127.0.0.1 (DNS rebinding) names its own host, and is refused. Every answer carries the page's
 * Content-Security-Policy (page-policy.cjs): connections to this origin and its relay only.
 */
function pageHandler(config) {
  // DuckDB-wasm as installed beside the package or in the directory ui runs in
  const sqlBundles = findSqlBundles([process.cwd(), ROOT]);
  config = { ...config, sql: Boolean(sqlBundles) };
  const policyHeaders = pageHeaders(path.join(ROOT, SERVED['/www/']));
  return (req, res) => {
    // the relay is this origin's /kafka: 'self' covers its ws: URL in current browsers, and older ones
    // get it by the name the page was opened with (checked below; [::1] is no host a policy can name)
    const relay = req.headers.host?.startsWith('[') ? '' : `ws://${req.headers.host}`;
    const headers = (pathname) => policyHeaders(pathname, relay);
    const send = (status, text, type = 'text/plain; charset=utf-8', pathname = '/') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers(pathname) });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed');
    const port = req.socket.localPort;
    const hosts = ['127.0.0.1', 'localhost', '[::1]'].flatMap((h) => (port === 80 ? [h, `${h}:80`] : [`${h}:${port}`]));
    if (!hosts.includes(req.headers.host)) return send(421, 'this page is served at 127.0.0.1, localhost or [::1] only');
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://ui').pathname);
    } catch {
      return send(400, 'bad request');
    }
    // a NUL or another control character names no file of the page (and node:fs throws on a NUL)
    if (/[\u0000-\u001f\u007f]/.test(pathname)) return send(400, 'bad request');
    if (pathname === '/') {
      res.writeHead(302, { location: '/www/' });
      return res.end();
    }
    if (pathname === '/ui.json') return send(200, JSON.stringify(config), TYPES['.json']);
    if (serveSqlBundle(sqlBundles, pathname, req, res, send, TYPES, headers(pathname))) return;
    const prefix = Object.keys(SERVED).find((p) => pathname.startsWith(p));
    let rest = prefix === undefined ? null : pathname.slice(prefix.length) || 'index.html';
    if (rest !== null && rest.endsWith('/')) rest += 'index.html';
    if (rest === null || rest.split('/').some((s) => s === '' || s.startsWith('.')) || (prefix === '/pkg/' && !PKG_FILES.test(rest))) {
      return send(404, `not found: ${pathname}`);
    }
    fs.readFile(path.join(ROOT, SERVED[prefix], rest), (err, data) => {
      if (err) return send(404, `not found: ${pathname}`);
      send(200, data, TYPES[path.extname(rest)] ?? 'application/octet-stream', pathname);
    });
  };
}

function openInBrowser(url) {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', () => process.stderr.write(`kafka-fetch-decoder: could not open a browser (${command}); open ${url}\n`));
  child.unref();
}

/** Runs relay or ui until SIGINT or SIGTERM; resolves with the exit code. */
async function run(command, argv, out = process.stdout, err = process.stderr) {
  const spec =
    command === 'relay'
      ? { ...serveOptions, '--listen': { value: 'HOST:PORT' }, '--allow-origin': { value: 'ORIGIN', repeat: true } }
      : { ...serveOptions, '--port': { value: 'N', parse: parse.integer(0, 65535) }, '--open': {} };
  const { options: o } = parseArgs(argv, spec, []);
  if (o.help) {
    out.write(`${command === 'relay' ? relayUsage : uiUsage}\n`);
    return 0;
  }
  const listen = command === 'relay' ? (o.listen ?? '127.0.0.1:8081') : `127.0.0.1:${o.port ?? 8080}`;
  if (!/^(\[[0-9a-fA-F:]+\]|[\w.-]+):\d{1,5}$/.test(listen)) throw new UsageError(`--listen is HOST:PORT, got '${listen}'`);
  /** @type {Parameters<typeof startRelay>[0]} */
  const options = {
    ...clientOptions(o),
    listen,
    allowOrigins: o.allowOrigin ?? [],
    maxConnections: o.maxConnections,
    idleTimeoutMs: o.idleTimeoutMs,
    log: (line) => err.write(`kafka-fetch-decoder ${command}: ${line}\n`),
  };
  if (o.schemaRegistry) options.schemaRegistry = { url: o.schemaRegistry, ...registryCredentials() };
  if (command === 'ui')
    options.handleHttp = pageHandler({ relayPath: '/kafka', bootstrap: o.bootstrap, ...(o.schemaRegistry ? { registryPath: '/registry' } : {}) });
  for (const k of Object.keys(options)) if (options[k] === undefined) delete options[k];
  // fail at once, in one line, when the brokers cannot be reached at all
  const probe = new KafkaClient({ ...clientOptions(o), retries: 0 });
  try {
    await probe.metadata([]);
  } catch (e) {
    if (!(e instanceof KafkaClientError)) throw e;
    err.write(`kafka-fetch-decoder ${command}: ${e.message}\n`);
    return 1;
  } finally {
    probe.close();
  }
  let relay;
  try {
    relay = await startRelay(options);
  } catch (e) {
    if (e instanceof KafkaClientError) throw new UsageError(e.message);
    if (e.code === 'EADDRINUSE') throw new UsageError(`${listen} is in use; choose another with ${command === 'relay' ? '--listen' : '--port'}`);
    if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') throw new UsageError(`cannot listen on ${listen}: ${e.code}`);
    throw e;
  }
  if (command === 'ui') {
    out.write(`kafka-fetch-decoder ui: ${relay.url} (brokers ${o.bootstrap}; Ctrl-C to stop)\n`);
    if (o.open) openInBrowser(relay.url);
  } else {
    out.write(`kafka-fetch-decoder relay: ${relay.relayUrl} (brokers ${o.bootstrap}; origins ${relay.origins.join(' ')}; Ctrl-C to stop)\n`);
    if (relay.registryUrl) out.write(`kafka-fetch-decoder relay: schemas at ${relay.registryUrl} (from ${o.schemaRegistry})\n`);
    if (!/^(127\.|localhost:|\[::1\]:)/.test(listen)) err.write(`kafka-fetch-decoder relay: listening on ${listen}, reachable from other machines\n`);
  }
  await new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await relay.close();
  return 0;
}

module.exports = { run, relayUsage, uiUsage };
