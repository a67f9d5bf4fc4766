// avsc's types (Avro schemas compiled to decoders), without its files and containers, and the
// Buffer it reads (Node's own; in browsers the buffer package's), to wrap bytes in.
const { Buffer } = require('buffer');

// avsc reads strings with Buffer's utf8Slice where there is one (Node's is native); the buffer
// package has none and decodes UTF-8 in JS, three times slower than TextDecoder. Set before avsc
// loads: it looks once.
if (typeof Buffer.prototype.utf8Slice !== 'function') {
  const utf8 = new TextDecoder();
  Buffer.prototype.utf8Slice = function utf8Slice(start, end) {
    return utf8.decode(this.subarray(start, end));
  };
}

const avsc = require('avsc/etc/browser/avsc-types.js');
module.exports = { Type: avsc.Type, types: avsc.types, Buffer };
