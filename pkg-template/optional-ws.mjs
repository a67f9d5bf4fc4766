// The ws package, an optional dependency: npm installs it with the package unless told not to
// (--omit=optional). Only the relay's server and Node's client through a relay use it, loaded on
// first use; decoding and direct connections to brokers never need it.

const MISSING = 'the ws package is not installed (an optional dependency of kafka-fetch-decoder; npm install ws)';

/** ws's exports, or an Error with code WS_MISSING naming what needed them. */
export async function loadWs(purpose) {
  try {
    return await import('ws');
  } catch (e) {
    if (e?.code !== 'ERR_MODULE_NOT_FOUND' && e?.code !== 'MODULE_NOT_FOUND') throw e;
    throw Object.assign(new Error(`${purpose}: ${MISSING}`), { code: 'WS_MISSING' });
  }
}

/** Node's WebSocket client for a relay: ws's, else the runtime's own (Node 22 and later) when ws is missing. */
export async function nodeWebSocket() {
  try {
    return (await loadWs('a connection through a relay')).default;
  } catch (e) {
    if (e.code === 'WS_MISSING' && typeof globalThis.WebSocket === 'function') return globalThis.WebSocket;
    throw e;
  }
}
