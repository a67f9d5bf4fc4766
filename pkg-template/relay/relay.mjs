// The relay: browsers cannot open TCP connections, so the page's client talks to brokers through a
// WebSocket per broker, and the relay moves the bytes. It decodes nothing and keeps no records; it is a
// security boundary, so it
//   - listens on loopback unless told otherwise;
//   - connects only to its bootstrap brokers and the brokers their metadata lists (`?broker=host:port`
//     is checked against them), never to another address a browser names;
//   - checks the Origin of every WebSocket (its own pages, plus --allow-origin);
//   - forwards only read requests (ApiVersions, Metadata without topic creation, ListOffsets and
//     Fetch of a consumer), one whole request per WebSocket message, as the Rust core's check says
//     (src/protocol/read_only.rs, fuzzed), and closes the connection on anything else;
//   - does TLS and SASL to the brokers itself, so credentials never reach a browser;
//   - bounds request frames, connections and idle time.
// A refusal completes the WebSocket handshake and closes at once with a 4xxx code and a reason the
// page can show; no broker connection is made before every check has passed.

import http from 'node:http';
import { addressName, parseAddress } from '../client/address.mjs';
import { KafkaClient, resolveClientOptions } from '../client/client.mjs';
import { BrokerConnection } from '../client/connection.mjs';
import { KafkaClientError } from '../client/errors.mjs';
import { checkReadRequest } from '../client/protocol.mjs';

/** Close codes (4000-4999: the application's); the page shows the reason. */
export const CLOSE = {
  BAD_REQUEST: 4400,
  ORIGIN_REFUSED: 4403,
  TARGET_REFUSED: 4404,
  IDLE: 4408,
  NOT_READ_ONLY: 4405,
  FRAME_TOO_LARGE: 4413,
  TOO_MANY_CONNECTIONS: 4429,
  BROKER_UNREACHABLE: 4502,
  BROKER_CLOSED: 4503,
};

const DEFAULTS = {
  path: '/kafka',
  maxConnections: 64,
  maxRequestBytes: 64 * 1024,
  idleTimeoutMs: 120_000,
  // pause reading from a broker while this much is queued towards a slow browser
  maxBufferedBytes: 16 * 1024 * 1024,
};

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

// What a client sent, fit for a log line and a close reason: printable ASCII (a close reason is at
// most 123 bytes of UTF-8, and a log line must not carry a client's control characters), cut short.
const printable = (text, max = 120) => String(text).replace(/[^\x20-\x7e]/g, '?').slice(0, max);

/**
 * Starts a relay. options: bootstrap (required), listen ('host:port'; default 127.0.0.1:0, a free
 * port), allowOrigins (more origins than the relay's own), tls, sasl, clientId, connectTimeoutMs,
 * maxConnections (64), maxRequestBytes (64 KiB), idleTimeoutMs (120 s), path ('/kafka'), log (a
 * function of one line; default stderr), handleHttp(req, res) (other HTTP requests: the `ui`
 * command serves the page with it). Resolves once listening with { url, relayUrl, origins, close() }.
 */
export async function startRelay(options = {}) {
  const {
    listen = '127.0.0.1:0', allowOrigins = [], log = (line) => process.stderr.write(`relay: ${line}\n`), handleHttp = null,
    path = DEFAULTS.path, maxConnections = DEFAULTS.maxConnections, maxRequestBytes = DEFAULTS.maxRequestBytes,
    idleTimeoutMs = DEFAULTS.idleTimeoutMs, maxBufferedBytes = DEFAULTS.maxBufferedBytes, ...clientOptions
  } = options;
  if (clientOptions.relay || clientOptions.transport) throw new KafkaClientError('INVALID_ARGUMENT', 'a relay connects to brokers itself (no relay or transport option)');
  for (const origin of allowOrigins) {
    if (!/^https?:\/\/[^/]+$/.test(origin)) throw new KafkaClientError('INVALID_ARGUMENT', `an origin is scheme://host[:port] with nothing after it, got '${origin}'`);
  }
  const { bootstrap, connection: connectionOptions } = resolveClientOptions(clientOptions);
  const where = parseListen(listen);
  const targets = new Targets(bootstrap, new KafkaClient(clientOptions), log);

  const server = http.createServer((req, res) => {
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
  });
  // loaded here, not with the package: decoding alone never needs it (a third of the load time)
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxRequestBytes + 4 });
  const origins = new Set(allowOrigins);
  // connections counted from their first check to their socket's close, whatever ends them
  let open = 0;
  const brokers = new Set();

  const upgrade = async (req, socket, head) => {
    const origin = req.headers.origin;
    const from = origin === undefined ? 'a client without an Origin' : printable(origin);
    // every check before any broker connection; a refusal still completes the handshake so that the
    // browser sees the code and the reason
    const refuse = (code, reason) => {
      log(`refused ${from}: ${printable(reason, 300)}`);
      wss.handleUpgrade(req, socket, head, (ws) => ws.close(code, printable(reason)));
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
    let broker = null;
    let piped = false;
    // the slot and the broker connection end with the socket, also when the handshake turns out
    // invalid or the client leaves while the broker connection opens
    socket.once('close', () => {
      open--;
      if (broker && !piped) broker.close();
    });
    try {
      broker = await targets.connect(url.searchParams.get('broker'), connectionOptions);
    } catch (e) {
      const code = e.code === 'TARGET_REFUSED' ? CLOSE.TARGET_REFUSED : e.code === 'INVALID_ARGUMENT' ? CLOSE.BAD_REQUEST : CLOSE.BROKER_UNREACHABLE;
      return refuse(code, e.message);
    }
    if (socket.destroyed) return broker.close();
    brokers.add(broker);
    wss.handleUpgrade(req, socket, head, (ws) => {
      piped = true;
      pipe(ws, broker, { from, log, maxRequestBytes, idleTimeoutMs, maxBufferedBytes });
      ws.once('close', () => brokers.delete(broker));
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
  const port = server.address().port;
  const host = where.host.includes(':') ? `[${where.host}]` : where.host;
  // the relay's own pages: the names a browser may use for where it listens
  for (const name of new Set([host, ...(isLoopback(where.host) ? LOOPBACK_NAMES : [])])) origins.add(`http://${name}:${port}`);
  return {
    url: `http://${host}:${port}/`,
    relayUrl: `ws://${host}:${port}${path}`,
    origins: [...origins],
    server,
    close: () => new Promise((resolve) => {
      for (const ws of wss.clients) ws.terminate();
      for (const broker of brokers) broker.close();
      targets.close();
      server.close(() => resolve());
      server.closeAllConnections?.();
    }),
  };
}

/** Pipes one browser WebSocket to its broker connection, checking every request frame. */
function pipe(ws, broker, { from, log, maxRequestBytes, idleTimeoutMs, maxBufferedBytes }) {
  let closed = false;
  let paused = false;
  const end = (code, reason) => {
    if (closed) return;
    closed = true;
    clearTimeout(idle);
    socket.close();
    if (ws.readyState === ws.OPEN) ws.close(code, printable(reason));
  };
  const idle = setTimeout(() => end(CLOSE.IDLE, `idle for ${idleTimeoutMs / 1000} s`), idleTimeoutMs);
  const socket = broker.pipe(
    (chunk) => {
      idle.refresh();
      ws.send(chunk, () => {
        if (paused && ws.bufferedAmount < maxBufferedBytes / 4) {
          paused = false;
          socket.resume();
        }
      });
      if (!paused && ws.bufferedAmount > maxBufferedBytes) {
        paused = true;
        socket.pause();
      }
    },
    (error) => end(CLOSE.BROKER_CLOSED, `broker ${broker.name} closed the connection${error ? `: ${error.message}` : ''}`),
  );
  ws.on('message', (data, isBinary) => {
    if (closed) return;
    idle.refresh();
    if (!isBinary) return end(CLOSE.BAD_REQUEST, 'the relay takes binary messages only');
    // one whole request per message, as the client writes them: checked by the Rust core, and
    // forwarded as it is (size prefix included) only when it only reads
    const message = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const size = message.length >= 4 ? new DataView(data.buffer, data.byteOffset, 4).getUint32(0) : 0;
    if (size > maxRequestBytes) {
      log(`closed ${from} to ${broker.name}: a request frame of ${size} bytes, over the ${maxRequestBytes}-byte bound`);
      return end(CLOSE.FRAME_TOO_LARGE, `request frame too large: ${size} bytes, over the ${maxRequestBytes}-byte bound`);
    }
    const check = checkReadRequest(message);
    if (!check.allowed) {
      log(`refused ${from} to ${broker.name}: ${printable(check.reason, 300)}; connection closed`);
      return end(CLOSE.NOT_READ_ONLY, `refused: ${check.reason} (the relay is read-only)`);
    }
    socket.write(message);
  });
  ws.on('close', () => end(1000, ''));
  ws.on('error', () => end(1011, ''));
}

/**
 * The brokers the relay may connect to: its bootstrap list and the brokers the cluster's metadata
 * lists, learned again (at most every few seconds) when a browser names one not yet known.
 */
class Targets {
  constructor(bootstrap, client, log) {
    this.bootstrap = bootstrap;
    this.client = client;
    this.log = log;
    this.known = new Set(bootstrap.map(addressName));
    this.refreshing = null;
    this.refreshedAt = 0;
  }

  async refresh() {
    if (Date.now() - this.refreshedAt < 2000) return;
    this.refreshing ??= this.client.metadata([]).then((md) => {
      for (const b of md.brokers) this.known.add(addressName(b));
    }).catch((e) => this.log(`metadata refresh failed: ${e.message}`)).finally(() => {
      this.refreshedAt = Date.now();
      this.refreshing = null;
    });
    await this.refreshing;
  }

  /** An open, negotiated (and authenticated) connection to the named broker or a bootstrap one. */
  async connect(named, connectionOptions) {
    if (named === null) return this.#first(connectionOptions);
    const address = parseAddress(named);
    const name = addressName(address);
    if (!this.known.has(name)) await this.refresh();
    if (!this.known.has(name)) throw new KafkaClientError('TARGET_REFUSED', `broker ${name} is not in the cluster's metadata`);
    const connection = new BrokerConnection(address, connectionOptions);
    await connection.open();
    return connection;
  }

  async #first(connectionOptions) {
    const failures = [];
    for (const address of this.bootstrap) {
      const connection = new BrokerConnection(address, connectionOptions);
      try {
        await connection.open();
        return connection;
      } catch (e) {
        failures.push(e.message);
      }
    }
    throw new KafkaClientError('CONNECTION', `no bootstrap broker answered: ${failures.join('; ')}`);
  }

  close() {
    this.client.close();
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
