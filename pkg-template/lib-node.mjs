// What the Node entries (node.cjs, node.mjs) export, bundled by the build into lib.cjs: the decoder
// API and the live client, whose connections are TCP or TLS sockets.
import { setDefaultTransport } from './client/client.mjs';
import { nodeTransport } from './client/transport-node.mjs';

setDefaultTransport(() => nodeTransport);

export * from './api.mjs';
export { KafkaClient } from './client/client.mjs';
export { KafkaClientError } from './client/errors.mjs';
export { FrameSplitter } from './client/frames.mjs';
export { scramClient } from './client/sasl.mjs';
