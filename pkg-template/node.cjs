// Node entry (CommonJS): the wasm module is compiled synchronously at require time.
'use strict';
const path = require('node:path');

let bindings;
try {
  bindings = require('./wasm/kafka_fetch_decoder.js');
} catch (e) {
  // A bundler that copied this file but not the .wasm beside it (mark the package external instead)
  if (e.code !== 'ENOENT') throw e;
  throw new Error(`kafka-fetch-decoder: ${path.join(__dirname, 'wasm', 'kafka_fetch_decoder_bg.wasm')} is missing; when bundling for Node, mark kafka-fetch-decoder as external (esbuild --external:kafka-fetch-decoder)`, { cause: e });
}
const api = require('./api.cjs');

api.attach(bindings);

module.exports = {
  decodeFetchResponse: api.decodeFetchResponse,
  decodeRecordSet: api.decodeRecordSet,
  errorName: api.errorName,
  FetchDecoder: api.FetchDecoder,
  fromTransferable: api.fromTransferable,
  KafkaDecodeError: api.KafkaDecodeError,
  KafkaRecord: api.KafkaRecord,
  toTransferable: api.toTransferable,
  wasmMemory: api.wasmMemory,
  // Browsers must await init(); in Node it is already done, and kept for code shared with browsers.
  init: async () => {},
};
