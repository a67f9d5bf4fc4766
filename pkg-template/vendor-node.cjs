// The value layer's third-party decoders in Node: their CommonJS builds in vendor/ (see
// values/vendor.mjs), required from the package's folder when first needed.
'use strict';
const path = require('node:path');

const at = (name) => path.join(__dirname, 'vendor', `${name}.cjs`);
module.exports = {
  avro: async () => require(at('avsc')),
  protobuf: async () => require(at('protobufjs')),
  msgpack: async () => require(at('msgpackr')),
};
