// The value and column layers' libraries in Node: their CommonJS builds in vendor/ (see
// values/vendor.mjs, columns/library.mjs), required from the package's folder when first needed.
'use strict';
const path = require('node:path');

const at = (name) => path.join(__dirname, 'vendor', `${name}.cjs`);
module.exports = {
  avro: async () => require(at('avsc')),
  protobuf: async () => require(at('protobufjs')),
  msgpack: async () => require(at('msgpackr')),
  // synchronous: the column layer's API is (Node can require on first use)
  arrow: () => require(at('flechette')),
  parquet: () => require(path.join(__dirname, 'vendor', 'parquet', 'parquet_wasm.cjs')),
};
