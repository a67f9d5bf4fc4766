// A KafkaClient's options: checked, with their defaults, and resolved into the bootstrap addresses
// and what every broker connection needs (the relay resolves its own the same way); and the Node
// entry's defaults (TCP/TLS sockets, the ws package, decode threads).

import { KafkaClientError } from './errors.mjs';
import { parseAddress } from './address.mjs';
import { DEFAULT_MAX_FRAME_BYTES } from './frames.mjs';
import { SASL_MECHANISMS } from './sasl.mjs';
import { webSocketTransport } from './transport-websocket.mjs';

// How to reach brokers without a relay, the WebSocket class where the runtime has none, and how to
// decode on other threads: the Node entry sets them (TCP/TLS sockets, the ws package,
// worker_threads); browsers have WebSocket and need a relay.
let directTransport = null;
let loadFallbackWebSocket = null;
let decodePool = null;
/** The decode threads' pool of the Node entry, or null (browsers). */
export const decodeThreadPool = () => decodePool;
export function setNodeDefaults({ transport, loadWebSocket, decodeThreads }) {
  directTransport = transport;
  loadFallbackWebSocket = loadWebSocket;
  decodePool = decodeThreads;
}

/** How the client opens WebSockets: the caller's class, else Node's default (loaded when first needed), else the runtime's. */
function webSocketOf(options) {
  if (options.webSocket != null) return { WebSocket: options.webSocket };
  if (loadFallbackWebSocket) return { loadWebSocket: loadFallbackWebSocket };
  return { WebSocket: globalThis.WebSocket };
}

function option(options, name, check, fallback) {
  const v = options[name];
  if (v === undefined) return fallback;
  if (!check(v)) throw new KafkaClientError('INVALID_ARGUMENT', `option ${name} is not valid: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  return v;
}

const positiveInt = (v) => Number.isInteger(v) && v > 0;

const CLIENT_OPTIONS = [
  'bootstrap',
  'relay',
  'webSocket',
  'clientId',
  'tls',
  'sasl',
  'requestTimeoutMs',
  'connectTimeoutMs',
  'connectRetryMs',
  'maxFrameBytes',
  'retries',
  'retryBackoffMs',
  'transport',
  'decodeThreads',
];

// Through a relay without a bootstrap list, the relay picks one of its own bootstrap brokers.
const RELAY_BOOTSTRAP = { host: "the relay's bootstrap broker", port: 0 };

/**
 * Checks a client's options and resolves them into the bootstrap addresses and what every broker
 * connection needs (the relay resolves its own the same way).
 */
export function resolveClientOptions(options = {}) {
  for (const name of Object.keys(options)) {
    if (!CLIENT_OPTIONS.includes(name)) throw new KafkaClientError('INVALID_ARGUMENT', `unknown client option '${name}'; valid: ${CLIENT_OPTIONS.join(', ')}`);
  }
  const list = Array.isArray(options.bootstrap)
    ? options.bootstrap
    : String(options.bootstrap ?? '')
        .split(',')
        .filter(Boolean);
  if (!list.length && !options.relay) throw new KafkaClientError('INVALID_ARGUMENT', 'option bootstrap (HOST:PORT[,HOST:PORT...]) is required');
  const bootstrap = list.length ? list.map(parseAddress) : [RELAY_BOOTSTRAP];
  if (options.relay && (options.tls || options.sasl)) {
    throw new KafkaClientError('INVALID_ARGUMENT', "through a relay, TLS and SASL to the brokers are the relay's options (credentials stay on the relay)");
  }
  let sasl = null;
  if (options.sasl) {
    const mechanism = String(options.sasl.mechanism ?? '').toUpperCase();
    if (!SASL_MECHANISMS.includes(mechanism))
      throw new KafkaClientError('INVALID_ARGUMENT', `sasl.mechanism must be one of ${SASL_MECHANISMS.map((m) => m.toLowerCase()).join(', ')}`);
    if (typeof options.sasl.username !== 'string' || typeof options.sasl.password !== 'string') {
      throw new KafkaClientError('INVALID_ARGUMENT', 'sasl needs a username and a password (strings)');
    }
    sasl = { mechanism, username: options.sasl.username, password: options.sasl.password };
  }
  let transport;
  try {
    transport = options.transport ?? (options.relay ? webSocketTransport(options.relay, webSocketOf(options)) : directTransport);
  } catch (e) {
    throw new KafkaClientError('INVALID_ARGUMENT', e.message.replace(/^kafka-fetch-decoder: /, ''), { cause: e });
  }
  if (!transport) throw new KafkaClientError('INVALID_ARGUMENT', "no transport: in browsers, give the relay's URL (option relay)");
  const connection = {
    transport,
    clientId: option(options, 'clientId', (v) => typeof v === 'string', 'kafka-fetch-decoder'),
    tls: options.tls === true ? {} : options.tls || null,
    sasl,
    requestTimeoutMs: option(options, 'requestTimeoutMs', positiveInt, 30_000),
    connectTimeoutMs: option(options, 'connectTimeoutMs', positiveInt, 10_000),
    connectRetryMs: option(options, 'connectRetryMs', (v) => Number.isInteger(v) && v >= 0, 0),
    maxFrameBytes: option(options, 'maxFrameBytes', positiveInt, DEFAULT_MAX_FRAME_BYTES),
    retries: option(options, 'retries', (v) => Number.isInteger(v) && v >= 0, 10),
    retryBackoffMs: option(options, 'retryBackoffMs', positiveInt, 100),
    decodeThreads: option(options, 'decodeThreads', (v) => Number.isInteger(v) && v >= 0 && v <= 64, 0),
  };
  if (connection.decodeThreads > 0 && !decodePool) {
    throw new KafkaClientError('INVALID_ARGUMENT', 'option decodeThreads needs Node (worker_threads); in browsers, run the client in a worker');
  }
  return { bootstrap, connection };
}
