// How the page shows some Kafka values. Kafka's own facts (error names, the FetchResponse versions
// the decoder reads) come from the package (protocolInfo(), sent by the worker when it is ready).

/** Timestamp types as the table's narrow column shows them. */
export const TIMESTAMP_TYPE_SHORT = {
  CREATE_TIME: 'create',
  LOG_APPEND_TIME: 'append',
  NO_TIMESTAMP: 'none',
};

/** The api version a frame is opened with until the user or the capture's .json says otherwise. */
export const DEFAULT_API_VERSION = 12;

/** The value formats (the package's VALUE_FORMATS) as the page names them; bytes: nothing decoded. */
export const VALUE_FORMAT_NAMES = {
  auto: 'auto',
  avro: 'Avro',
  protobuf: 'Protobuf',
  'json-schema': 'JSON Schema',
  json: 'JSON',
  text: 'text',
  msgpack: 'MessagePack',
  'protobuf-raw': 'Protobuf (no schema)',
  bytes: 'bytes',
  null: 'null',
};
