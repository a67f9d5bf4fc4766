// Node entry (CommonJS): the wasm module is compiled synchronously at require time.
'use strict';
const bindings = require('./wasm/kafka_fetch_decoder.js');
const api = require('./api.cjs');

api.attach(bindings);

module.exports = {
  decodeFetchResponse: api.decodeFetchResponse,
  decodeRecordSet: api.decodeRecordSet,
  FetchDecoder: api.FetchDecoder,
  KafkaDecodeError: api.KafkaDecodeError,
  KafkaRecord: api.KafkaRecord,
  wasmMemory: api.wasmMemory,
  // Browsers must await init(); in Node it is already done, and kept for code shared with browsers.
  init: async () => module.exports,
};
