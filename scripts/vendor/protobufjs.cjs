// protobufjs with its .proto parser (registries answer .proto text), its descriptor extension (or
// base64 FileDescriptorProtos, as they are registered) and its ProtoJSON extension (the proto3 JSON
// mapping, for the JSON form).
const protobuf = require('protobufjs');
const descriptor = require('protobufjs/ext/descriptor');
const protojson = require('protobufjs/ext/protojson');

module.exports = { protobuf, descriptor, protojson };
