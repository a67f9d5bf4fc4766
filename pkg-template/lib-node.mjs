// What the Node entries (node.cjs, node.mjs) export, bundled by the build into lib.cjs: the public
// names of every runtime, the live client's Node defaults (TCP or TLS sockets; a WebSocket through
// a relay with the `relay` option; decode threads), and what only Node has (the relay itself);
// `attach` (connects the wasm module), `printable`, `protobufRawText` and `recordOutput` are the
// package's own (node.cjs, the CLI).
import { setNodeDefaults } from './client/options.mjs';
import { nodeDecodePool } from './client/decode-pool-node.mjs';
import { nodeTransport } from './client/transport-node.mjs';
import { nodeCores, nodeScanWorker } from './scan/pool-node.mjs';
import * as internals from './scan/internals.mjs';
import { setScanDefaults } from './scan/scan.mjs';
import { setArrowLibrary } from './columns/library.mjs';
import { setParquetLibrary } from './columns/parquet.mjs';
import * as arrow from './columns/public.mjs';
import { setVendorLoaders } from './values/vendor.mjs';
import nodeVendor from './vendor-node.cjs';
import { nodeWebSocket } from './optional-ws.mjs';

// the ws package is loaded on the first connection through a relay, not with the package: decoding
// alone never needs it (a third of the load time), and it is an optional dependency (optional-ws.mjs)
setNodeDefaults({ transport: nodeTransport, loadWebSocket: nodeWebSocket, decodeThreads: nodeDecodePool });
// the value layer's decoders: their CommonJS builds, with Node's own Buffer; the column layer's
// Arrow library, required the first time a table is made
const { arrow: loadArrow, parquet: loadParquet, ...valueLibraries } = nodeVendor;
setVendorLoaders(valueLibraries);
// scans run on worker threads, as many as the cores by default
setScanDefaults({ startWorker: nodeScanWorker, cores: nodeCores });
setArrowLibrary(loadArrow);
setParquetLibrary(loadParquet);

export { attach } from './api.mjs';
// the command line's and the scan workers' own: filters and the scan's parts
export * as filters from './filters/index.mjs';
export const scanInternals = { ...internals, startWorker: nodeScanWorker, cores: nodeCores };
// the CLI's JSON and CSV forms of a record (the page imports the module itself)
export * as recordOutput from './decoder/record-json.mjs';
export { printable } from './printable.mjs';
// the CLI's one-line form of Protobuf read without a schema
export { protobufRawText } from './values/protobuf-raw.mjs';
export * from './public.mjs';
export { startRelay } from './relay/relay.mjs';
// the entry 'kafka-fetch-decoder/arrow' (arrow-node.cjs), not the main one's
export { arrow };
