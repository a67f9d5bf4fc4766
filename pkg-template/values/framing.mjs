// Where a key or value says which schema wrote it, read as the registries' own serializers write
// it (Confluent's schema-serializer SchemaId.java and MessageIndexes.java, Apicurio's id handlers):
//
//   Confluent   magic 0, a 4-byte big-endian schema id, then the body; or magic 1 and a 16-byte GUID
//   headers     __key_schema_id / __value_schema_id carry those 5 or 17 bytes instead of the payload
//   Apicurio    magic 0 and an 8-byte global id (its legacy form: the first 4 id bytes are 0, which no
//               Confluent id is; ids from 1), or the apicurio.key.globalId / apicurio.value.globalId header
//   Protobuf    after the id, the message indexes: a zigzag varint count and as many zigzag varint
//               indexes (the path from the file's first-level messages down); the single byte 0 is [0]

/** Thrown for framing that cannot be read: the record keeps its bytes, with this as the reason. */
export class FramingError extends Error {
  constructor(message, at) {
    super(message);
    this.name = 'FramingError';
    this.at = at;
  }
}

// More indexes than this is no path through real nested messages (Redpanda Console bounds it too).
const MAX_INDEXES = 128;

const HEADER_IDS = {
  key: { confluent: '__key_schema_id', apicurio: 'apicurio.key.globalId' },
  value: { confluent: '__value_schema_id', apicurio: 'apicurio.value.globalId' },
};

/**
 * The schema reference of one side ('key' or 'value') of a record, or null when it carries none:
 * `{ registry: 'confluent' | 'apicurio', id } | { registry: 'confluent', guid }`, with `source`
 * ('payload' or the header's name) and `bodyAt` (where the schema's bytes start in `bytes`). Ids in
 * a header leave the whole payload to the body; `indexesIn` is the bytes to read Protobuf message
 * indexes from (the payload, or the header), at `indexesAt`. `strict` (a schema format was asked
 * for, and there is no local schema to read unframed bytes): bytes that do not start with a whole
 * id are a FramingError, not "no framing".
 */
export function framingOf(bytes, headers, side, strict = false) {
  const names = HEADER_IDS[side];
  for (let i = headers.length - 1; i >= 0; i--) {
    const h = headers[i];
    if (h.key === names.confluent && h.value !== null) {
      const id = confluentId(h.value, h.key);
      return framing('confluent', id.id, id.guid, h.key, 0, h.value, id.end);
    }
    if (h.key === names.apicurio && h.value !== null) {
      if (h.value.length !== 8) throw new FramingError(`header ${h.key} is ${h.value.length} bytes, not an 8-byte global id`, 0);
      return framing('apicurio', Number(readInt64(h.value, 0)), undefined, h.key, 0, bytes, 0);
    }
  }
  if (bytes === null) return null;
  if (bytes.length < 5 || (bytes[0] !== 0 && bytes[0] !== 1)) {
    if (!strict) return null;
    if (bytes.length === 0) throw new FramingError('payload: empty, no magic byte and schema id', 0);
    confluentId(bytes, 'payload'); // throws, saying what is missing
  }
  // Apicurio's legacy 8-byte global id: a Confluent id is never 0, so four zero bytes say which
  if (
    bytes[0] === 0 &&
    bytes.length >= 9 &&
    bytes[1] === 0 &&
    bytes[2] === 0 &&
    bytes[3] === 0 &&
    bytes[4] === 0 &&
    bytes.subarray(5, 9).some((b) => b !== 0)
  ) {
    return framing('apicurio', Number(readInt64(bytes, 1)), undefined, 'payload', 9, bytes, 9);
  }
  const id = confluentId(bytes, 'payload');
  return framing('confluent', id.id, id.guid, 'payload', id.end, bytes, id.end);
}

// one shape for every framing (an object spread here costs microseconds per record)
const framing = (registry, id, guid, source, bodyAt, indexesIn, indexesAt) => ({ registry, id, guid, source, bodyAt, indexesIn, indexesAt });

/** A Confluent schema id at the start of `bytes`: magic 0 and an int32, or magic 1 and a GUID. */
function confluentId(bytes, where) {
  if (bytes[0] === 0) {
    if (bytes.length < 5) throw new FramingError(`${where}: magic byte 0 with no 4-byte schema id after it`, 1);
    const id = ((bytes[1] << 24) | (bytes[2] << 16) | (bytes[3] << 8) | bytes[4]) >>> 0;
    if (id === 0 || id > 0x7fffffff) throw new FramingError(`${where}: schema id ${id} (ids are 1 to 2^31-1)`, 1);
    return { id, guid: undefined, end: 5 };
  }
  if (bytes[0] === 1) {
    if (bytes.length < 17) throw new FramingError(`${where}: magic byte 1 with no 16-byte schema GUID after it`, 1);
    return { id: undefined, guid: formatGuid(bytes.subarray(1, 17)), end: 17 };
  }
  throw new FramingError(`${where}: magic byte ${bytes[0]}, not 0 or 1`, 0);
}

/**
 * The Protobuf message indexes at `bytes[at]`: `{ indexes, end }`. `[0]` is written as the single
 * byte 0; the long form (count 1, index 0) reads the same. A negative index or count, one past
 * MAX_INDEXES, or bytes that end first are a FramingError.
 */
export function messageIndexes(bytes, at) {
  const count = zigzag(bytes, at, 'message index count');
  if (count.value === 0) return { indexes: [0], end: count.end };
  if (count.value < 0 || count.value > MAX_INDEXES) {
    throw new FramingError(`message index count ${count.value} (0 to ${MAX_INDEXES})`, at);
  }
  const indexes = [];
  let pos = count.end;
  for (let i = 0; i < count.value; i++) {
    const index = zigzag(bytes, pos, 'message index');
    if (index.value < 0) throw new FramingError(`message index ${index.value}: indexes are not negative`, pos);
    indexes.push(index.value);
    pos = index.end;
  }
  return { indexes, end: pos };
}

/** A zigzag varint (Kafka's ByteUtils.readVarint) of at most 5 bytes. */
function zigzag(bytes, at, what) {
  let raw = 0;
  for (let i = 0; i < 5; i++) {
    if (at + i >= bytes.length) throw new FramingError(`${what}: the bytes end inside its varint`, at);
    const b = bytes[at + i];
    raw += (b & 0x7f) * 2 ** (7 * i);
    if (b < 0x80) return { value: raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2, end: at + i + 1 };
  }
  throw new FramingError(`${what}: a varint longer than 5 bytes`, at);
}

function readInt64(bytes, at) {
  let v = 0n;
  for (let i = 0; i < 8; i++) v = (v << 8n) | BigInt(bytes[at + i]);
  return BigInt.asIntN(64, v);
}

/** A GUID's 16 bytes as 8-4-4-4-12 hex. */
function formatGuid(b) {
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
