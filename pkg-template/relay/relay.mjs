// The relay: browsers cannot open TCP connections, so the page's client talks to brokers through a
// WebSocket per broker, and the relay moves the bytes. It decodes nothing and keeps no records; it is a
// security boundary, so it
//   - listens on loopback unless told otherwise;
//   - connects only to its bootstrap brokers and the brokers the cluster's latest metadata lists
//     (`?broker=host:port` is checked against them: targets.mjs), never to another address a browser names;
//   - checks the Origin of every WebSocket (its own pages, plus --allow-origin);
//   - forwards only read requests (ApiVersions, Metadata without topic creation, ListOffsets and
//     Fetch of a consumer), one whole request per WebSocket message, as the Rust core's check says
//     (src/protocol/read_only.rs, fuzzed), and closes the connection on anything else (pipe.mjs);
//   - does TLS and SASL to the brokers itself, so credentials never reach a browser (nor their names,
//     in a close reason);
//   - bounds request frames, connections (handshakes in progress included), handshake and idle time,
//     and the bytes held for slow browsers, per connection and in all;
//   - keeps at most HTTP_SOCKETS sockets that are not WebSockets (a handshake still coming in, a
//     page request, a keep-alive socket): a new one past that closes the one open longest, so that
//     slow sockets cannot hold the relay and a page that connects always gets its turn;
//   - with a schema registry, lets browsers read schemas from it at /registry, GET only, schema
//     paths only, with the relay's credentials (registry.mjs).
// A refusal completes the WebSocket handshake and closes at once with a 4xxx code and a reason the
// page can show. A broker connection is opened only once the handshake has completed.

import http from 'node:http';
import { parseAddress } from '../client/address.mjs';
import { KafkaClient } from '../client/client.mjs';
import { resolveClientOptions } from '../client/options.mjs';
import { KafkaClientError } from '../client/errors.mjs';
import { loadWs } from '../optional-ws.mjs';
import { closeReason, printable } from '../printable.mjs';
import { BufferBudget, CLOSE, relayConnection } from './pipe.mjs';
import { registryProxy } from './registry.mjs';
import { Targets } from './targets.mjs';

export { CLOSE };

const DEFAULTS = {
  path: '/kafka',
  maxConnections: 64,
  maxRequestBytes: 64 * 1024,
  idleTimeoutMs: 120_000,
  // an HTTP request (a WebSocket handshake included) must be complete within this
  handshakeTimeoutMs: 10_000,
  // pause reading from a broker while this much is queued towards a slow browser
  maxBufferedBytes: 16 * 1024 * 1024,
  // ... or towards all browsers together
  maxTotalBufferedBytes: 64 * 1024 * 1024,
  // how old the broker list may be when a browser names a broker that is not a bootstrap one
  metadataMaxAgeMs: 30_000,
};
// Sockets that are not (yet) WebSockets: handshakes in progress, the page's own HTTP requests, idle
// keep-alive sockets. A new one past this closes the oldest of them.
const HTTP_SOCKETS = 16;

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
// where browsers read schemas, with option schemaRegistry
const REGISTRY_PATH = '/registry';

/**
 * Starts a relay. options: bootstrap (required), listen ('host:port'; default 127.0.0.1:0, a free
 * port), allowOrigins (more origins than the relay's own), tls, sasl, clientId, connectTimeoutMs,
 * maxConnections (64), maxRequestBytes (64 KiB), idleTimeoutMs (120 s), handshakeTimeoutMs (10 s),
 * maxBufferedBytes (16 MiB per connection), maxTotalBufferedBytes (64 MiB in all), metadataMaxAgeMs
 * (30 s), path ('/kafka'), log (a function of one line; default stderr), handleHttp(req, res) (other
 * HTTP requests: the `ui` command serves the page with it), schemaRegistry ({ url, username,
 * password, token, timeoutMs, maxResponseBytes }: served read-only at /registry). Resolves once
 * listening with { url, relayUrl, registryUrl, origins, close() }.
 * @param {import('../index.d.ts').KafkaClientOptions & Record<string, any>} [options] node-only.d.ts's RelayOptions
 */
export async function startRelay(options = {}) {
  const {
    listen = '127.0.0.1:0',
    allowOrigins = [],
    log: writeLog = (line) => process.stderr.write(`relay: ${line}\n`),
    handleHttp = null,
    schemaRegistry = null,
    path = DEFAULTS.path,
    maxConnections = DEFAULTS.maxConnections,
    maxRequestBytes = DEFAULTS.maxRequestBytes,
    idleTimeoutMs = DEFAULTS.idleTimeoutMs,
    handshakeTimeoutMs = DEFAULTS.handshakeTimeoutMs,
    maxBufferedBytes = DEFAULTS.maxBufferedBytes,
    maxTotalBufferedBytes = DEFAULTS.maxTotalBufferedBytes,
    metadataMaxAgeMs = DEFAULTS.metadataMaxAgeMs,
    ...clientOptions
  } = options;
  if (clientOptions.relay || clientOptions.transport)
    throw new KafkaClientError('INVALID_ARGUMENT', 'a relay connects to brokers itself (no relay or transport option)');
  for (const origin of allowOrigins) {
    if (!/^https?:\/\/[^/]+$/.test(origin))
      throw new KafkaClientError('INVALID_ARGUMENT', `an origin is scheme://host[:port] with nothing after it, got '${origin}'`);
  }
  // loaded here, not with the package: decoding alone never needs it (a third of the load time),
  // and it is an optional dependency; first, so that nothing is started without it
  const { WebSocketServer } = await loadWs('the relay');
  // every line printable: they carry what clients and brokers sent (origins, host names, errors)
  const log = (line) => writeLog(printable(line));
  const { bootstrap, connection: connectionOptions } = resolveClientOptions(clientOptions);
  const where = parseListen(listen);
  const targets = new Targets(bootstrap, new KafkaClient(clientOptions), log, metadataMaxAgeMs);
  const budget = new BufferBudget(maxTotalBufferedBytes);
  const origins = new Set(allowOrigins);
  const ownHosts = new Set(); // the Host names of requests to the relay itself, once listening (loopback only)
  // a browser's request to the relay's HTTP side: its own names, an allowed Origin, and no
  // cross-site request that hides its Origin (an <img> or <script> of another site)
  const refusal = (req) => {
    if (ownHosts.size && !ownHosts.has(req.headers.host)) return `host ${printable(req.headers.host ?? '(none)', 100)} is not the relay's`;
    const origin = req.headers.origin;
    if (origin !== undefined) return origins.has(origin) ? null : `origin ${printable(origin, 120)} is not allowed (relay option --allow-origin)`;
    const site = req.headers['sec-fetch-site'];
    return site === undefined || site === 'same-origin' || site === 'none' ? null : `a ${printable(site, 20)} request without an Origin`;
  };
  let registry = null;
  if (schemaRegistry) {
    try {
      registry = registryProxy(schemaRegistry, { prefix: REGISTRY_PATH, refusal, log });
    } catch (e) {
      throw new KafkaClientError('INVALID_ARGUMENT', e.message);
    }
  }

  // a request (a handshake included) that is not complete within handshakeTimeoutMs is dropped,
  // checked every second; the sockets, slow ones included, are bounded
  const server = http.createServer(
    { headersTimeout: handshakeTimeoutMs, requestTimeout: handshakeTimeoutMs, connectionsCheckingInterval: 1000 },
    async (req, res) => {
      httpSockets.touch(req.socket);
      if (registry) {
        try {
          if (await registry(req, res)) return;
        } catch (e) {
          log(`registry request failed: ${printable(e?.message ?? e, 300)}`);
          if (!res.headersSent) res.writeHead(500);
          return res.end();
        }
      }
      if (handleHttp) {
        try {
          return handleHttp(req, res);
        } catch (e) {
          // a bug in the page server ends that request, not the relay
          log(`request failed: ${printable(e?.message ?? e, 300)}`);
          if (!res.headersSent) res.writeHead(500);
          return res.end();
        }
      }
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`kafka-fetch-decoder relay: WebSocket connections at ${path}\n`);
    },
  );
  const httpSockets = new OldestFirst(HTTP_SOCKETS);
  server.on('connection', (socket) => httpSockets.add(socket));
  // a ceiling for the two bounds together (WebSockets are counted at their handshake, below)
  server.maxConnections = maxConnections + 2 * HTTP_SOCKETS;
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxRequestBytes + 4 });
  // WebSocket connections from their handshake's first check to their end
  let open = 0;
  const connections = new Set();

  const upgrade = async (req, socket, head) => {
    httpSockets.delete(socket); // a WebSocket now: bounded by maxConnections
    const origin = req.headers.origin;
    const from = origin === undefined ? 'a client without an Origin' : printable(origin, 120);
    // a refusal still completes the handshake, so that the browser sees the code and the reason
    const refuse = (code, reason) => {
      log(`refused ${from}: ${printable(reason, 300)}`);
      wss.handleUpgrade(req, socket, head, (ws) => ws.close(code, closeReason(reason)));
    };
    // Browsers always send an Origin; a client without one is not a web page (a Node tool)
    if (origin !== undefined && !origins.has(origin)) return refuse(CLOSE.ORIGIN_REFUSED, `origin ${origin} is not allowed (relay option --allow-origin)`);
    let url;
    try {
      url = new URL(req.url, 'http://relay');
    } catch {
      return refuse(CLOSE.BAD_REQUEST, `no relay at ${req.url}; it is at ${path}`);
    }
    if (url.pathname !== path) return refuse(CLOSE.BAD_REQUEST, `no relay at ${url.pathname}; it is at ${path}`);
    if (open >= maxConnections) return refuse(CLOSE.TOO_MANY_CONNECTIONS, `too many connections (${maxConnections})`);
    open++;
    let counted = true;
    const release = () => {
      if (counted) open--;
      counted = false;
    };
    socket.once('close', release);
    let target;
    try {
      target = await targets.check(url.searchParams.get('broker'));
    } catch (e) {
      return refuse(e.code === 'TARGET_REFUSED' ? CLOSE.TARGET_REFUSED : CLOSE.BAD_REQUEST, e.message);
    }
    if (socket.destroyed) return;
    // the broker connection is opened once the handshake has completed: one that fails opens none
    wss.handleUpgrade(req, socket, head, (ws) => {
      connections.add(ws);
      relayConnection(ws, target, {
        targets,
        connectionOptions,
        from,
        log,
        maxRequestBytes,
        idleTimeoutMs,
        maxBufferedBytes,
        budget,
        onEnd: () => {
          connections.delete(ws);
          release();
        },
      });
    });
  };
  server.on('upgrade', (req, socket, head) => {
    upgrade(req, socket, head).catch((e) => {
      // a bug, not a client's doing: that connection ends, the relay goes on
      log(`upgrade failed: ${printable(e?.message ?? e, 300)}`);
      socket.destroy();
    });
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = /** @type {import('node:net').AddressInfo} listening on TCP */ (server.address());
  const host = where.host.includes(':') ? `[${where.host}]` : where.host;
  // the relay's own pages: the names a browser may use for where it listens
  for (const name of new Set([host, ...(isLoopback(where.host) ? LOOPBACK_NAMES : [])])) origins.add(`http://${name}:${port}`);
  if (isLoopback(where.host)) {
    for (const name of new Set([host, ...LOOPBACK_NAMES])) for (const h of port === 80 ? [name, `${name}:80`] : [`${name}:${port}`]) ownHosts.add(h);
  }
  return {
    url: `http://${host}:${port}/`,
    relayUrl: `ws://${host}:${port}${path}`,
    registryUrl: registry ? `http://${host}:${port}${REGISTRY_PATH}` : null,
    origins: [...origins],
    server,
    /** What the relay holds now: WebSocket connections, bytes waiting for browsers (for tests and monitoring). */
    stats: () => ({ connections: connections.size, handshakes: open - connections.size, bufferedBytes: budget.total }),
    close: () =>
      new Promise((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        targets.close();
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

/**
 * Sockets in the order they were opened or last began a request, at most `max`: adding one more
 * destroys the one that has been there longest.
 */
class OldestFirst {
  constructor(max) {
    this.max = max;
    this.sockets = new Set(); // a Set keeps insertion order
  }

  add(socket) {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    if (this.sockets.size > this.max) {
      const oldest = this.sockets.values().next().value;
      this.sockets.delete(oldest);
      oldest.destroy();
    }
  }

  /** A socket that began a request: now the newest. */
  touch(socket) {
    if (this.sockets.delete(socket)) this.sockets.add(socket);
  }

  delete(socket) {
    this.sockets.delete(socket);
  }
}

function parseListen(text) {
  try {
    return text.endsWith(':0') ? { host: parseAddress(text.replace(/:0$/, ':1')).host, port: 0 } : parseAddress(text);
  } catch {
    throw new KafkaClientError('INVALID_ARGUMENT', `--listen is HOST:PORT, got '${text}'`);
  }
}

const isLoopback = (host) => host === 'localhost' || host === '::1' || host.startsWith('127.');
