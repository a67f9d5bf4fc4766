// What the Node entries (node.cjs, node.mjs) export, bundled by the build into lib.cjs: the decoder
// API, the live client (TCP or TLS sockets; a WebSocket through a relay with the `relay` option;
// decode threads) and the relay itself.
import { setNodeDefaults } from './client/client.mjs';
import { nodeDecodePool } from './client/decode-pool-node.mjs';
import { nodeTransport } from './client/transport-node.mjs';

// the ws package is loaded on the first connection through a relay, not with the package: decoding
// alone never needs it (a third of the load time)
setNodeDefaults({ transport: nodeTransport, loadWebSocket: async () => (await import('ws')).default, decodeThreads: nodeDecodePool });

export * from './api.mjs';
export { KafkaClient } from './client/client.mjs';
export { KafkaClientError } from './client/errors.mjs';
export { FrameSplitter } from './client/frames.mjs';
export { scramClient } from './client/sasl.mjs';
export { startRelay } from './relay/relay.mjs';
