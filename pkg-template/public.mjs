// The package's public names in every runtime: the browser entry (web.mjs) is these and init();
// the Node entries add what only Node can do (lib-node.mjs). tests/js/entries.test.mjs holds the
// entries and the declarations (index.d.ts, node-only.d.ts) to one another.

export {
  decodeFetchResponse,
  decodeRecordSet,
  errorName,
  FetchDecoder,
  fromTransferable,
  KafkaDecodeError,
  KafkaRecord,
  protocolInfo,
  toTransferable,
  wasmMemory,
} from './api.mjs';
export { recordColumns, RecordColumns } from './decoder/record-columns.mjs';
export { csvHeader, csvRow, jsonWithDecoded, recordJson } from './decoder/record-json.mjs';
export { KafkaClient } from './client/client.mjs';
export { KafkaClientError } from './client/errors.mjs';
export { FrameSplitter } from './client/frames.mjs';
export { parseWhere } from './filters/where.mjs';
export { DistinctKeys } from './scan/keys.mjs';
export { scramClient } from './client/sasl.mjs';
export { ValueDecoder, VALUE_FORMATS } from './values/decoder.mjs';
export { jsonForm } from './values/json-form.mjs';
export { protobufMessageTypes } from './values/protobuf.mjs';
export { RegistryClient, RegistryError } from './values/registry.mjs';
