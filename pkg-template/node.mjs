// Node entry (ES module): the same single instance as the CommonJS entry. The names are listed for
// ES named imports; tests/js/entries.test.mjs checks that they are the CommonJS entry's.
import api from './node.cjs';

export const {
  decodeFetchResponse,
  decodeRecordSet,
  errorName,
  FetchDecoder,
  FrameSplitter,
  fromTransferable,
  KafkaClient,
  KafkaClientError,
  KafkaDecodeError,
  KafkaRecord,
  protocolInfo,
  RegistryClient,
  RegistryError,
  scramClient,
  startRelay,
  toTransferable,
  VALUE_FORMATS,
  ValueDecoder,
  jsonForm,
  parseWhere,
  DistinctKeys,
  wasmMemory,
  init,
  recordColumns,
  RecordColumns,
  recordJson,
  jsonWithDecoded,
  csvHeader,
  csvRow,
  protobufMessageTypes,
} = api;
export default init;
