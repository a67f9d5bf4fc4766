// Node entry (CommonJS): the wasm module is compiled synchronously at require time.
'use strict';
const path = require('node:path');

let bindings;
try {
  bindings = require('./kafka_fetch_decoder.js');
} catch (e) {
  // A bundler that copied this file but not the .wasm beside it (mark the package external instead)
  if (e.code !== 'ENOENT') throw e;
  throw new Error(
    `kafka-fetch-decoder: ${path.join(__dirname, 'kafka_fetch_decoder_bg.wasm')} is missing; when bundling for Node, mark kafka-fetch-decoder as external (esbuild --external:kafka-fetch-decoder)`,
    { cause: e },
  );
}
// attach, printable, protobufRawText, recordOutput, filters and scanInternals are for the package's
// own modules (here and the CLI), not its users; arrow is the entry 'kafka-fetch-decoder/arrow' (arrow-node.cjs)
const lib = require('./lib.cjs');
const { attach, printable, protobufRawText, recordOutput, arrow, filters, scanInternals, ...api } = lib;

attach(bindings);

module.exports = {
  ...api,
  // Browsers must await init(); in Node it is already done, and kept for code shared with browsers.
  init: async () => {},
};
