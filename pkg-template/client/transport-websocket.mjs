// How the client reaches brokers through the relay (`kafka-fetch-decoder relay` or `ui`): one
// WebSocket per broker, binary messages carrying Kafka's bytes unchanged. The relay picks the broker
// from the `broker` query parameter and checks it against the cluster's metadata; without it, the
// relay connects to one of its bootstrap brokers. The relay closes with a 4xxx code and a reason
// when it refuses (origin, target, a non-read request, a frame too large, too many connections).

import { addressName } from './address.mjs';

/** The relay's close codes (4000-4999: the application's), with the reason the page shows. */
export const RELAY_CLOSE = {
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

// Refusals that trying again cannot cure, by the client error code they become: a page whose
// origin the relay does not allow is refused at every try
const REFUSALS = { [RELAY_CLOSE.ORIGIN_REFUSED]: 'ORIGIN_REFUSED' };

/**
 * A transport for `KafkaClient` over the relay at `relayUrl` (ws:// or wss://), by a `WebSocket`
 * class, or one that `loadWebSocket()` resolves to on the first connection (Node's default: the ws
 * package, which decoding alone never needs).
 */
export function webSocketTransport(relayUrl, { WebSocket: WebSocketClass = null, loadWebSocket = null }) {
  if (typeof WebSocketClass !== 'function' && typeof loadWebSocket !== 'function') {
    throw new TypeError('kafka-fetch-decoder: this runtime has no WebSocket; pass a WebSocket class (for example the ws package) as option webSocket');
  }
  const base = new URL(relayUrl);
  if (base.protocol !== 'ws:' && base.protocol !== 'wss:') {
    throw new TypeError(`kafka-fetch-decoder: the relay URL must start with ws:// or wss://, got '${relayUrl}'`);
  }
  return {
    async connect({ host, port, timeoutMs }) {
      const url = new URL(base);
      if (port) url.searchParams.set('broker', addressName({ host, port }));
      WebSocketClass ??= await loadWebSocket();
      return new Promise((resolve, reject) => {
        const ws = new WebSocketClass(url.href);
        ws.binaryType = 'arraybuffer';
        let opened = false;
        let closeReason = null;
        const timer = setTimeout(() => {
          ws.close();
          reject(new Error(`no connection to the relay ${base.href} within ${timeoutMs} ms`));
        }, timeoutMs);
        const dataHandlers = [];
        const closeHandlers = [];
        ws.onmessage = (event) => {
          if (!(event.data instanceof ArrayBuffer)) return; // the relay sends binary messages only
          const chunk = new Uint8Array(event.data);
          for (const fn of dataHandlers) fn(chunk);
        };
        ws.onclose = (event) => {
          clearTimeout(timer);
          // 4xxx: the relay says why; 1006 before opening: the relay is not there (or refused the upgrade)
          closeReason =
            event.code >= 4000
              ? Object.assign(new Error(`relay: ${event.reason || `closed with code ${event.code}`}`), { clientCode: REFUSALS[event.code] })
              : opened
                ? event.code === 1000
                  ? null
                  : new Error(`the relay connection closed (code ${event.code})`)
                : new Error(`cannot reach the relay at ${base.href}`);
          if (!opened) reject(closeReason);
          for (const fn of closeHandlers) fn(closeReason);
        };
        // an error before opening is a relay not reached; WebKit sends no close after it when the
        // port is one browsers block (9, for one), so this is not left to the close
        ws.onerror = () => {
          if (opened) return;
          clearTimeout(timer);
          reject(new Error(`cannot reach the relay at ${base.href}`));
        };
        ws.onopen = () => {
          clearTimeout(timer);
          opened = true;
          resolve({
            write: (bytes) => ws.send(bytes),
            close: () => ws.close(1000),
            onData: (fn) => dataHandlers.push(fn),
            onClose: (fn) => closeHandlers.push(fn),
          });
        };
      });
    },
  };
}
