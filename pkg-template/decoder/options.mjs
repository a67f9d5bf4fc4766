// The decode options: each one's check, what a call takes of them (the flags and limits of the wasm
// call), and the helpers they need (topic ids, fetch offsets, int64 values).

import { base64Decode } from './bytes.mjs';
import { contract, kafkaFacts } from './contract.mjs';

const DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_DECOMPRESSED_BYTES_PER_CALL = 256 * 1024 * 1024;
// Byte positions reach JS as 32-bit signed integers: no call's bytes pass 2 GiB.
const MAX_ADDRESSABLE_BYTES = 2 ** 31 - 1;

const oneOf =
  (...allowed) =>
  (v) =>
    allowed.includes(v) || `one of ${allowed.map((a) => `'${a}'`).join(', ')}`;
const isBoolean = (v) => typeof v === 'boolean' || 'true or false';
const byteCount = (v) => (Number.isInteger(v) && v >= 0 && v <= MAX_ADDRESSABLE_BYTES) || `an integer from 0 to ${MAX_ADDRESSABLE_BYTES} (2 GiB - 1)`;
const isOffset = (v) => typeof v === 'bigint' || Number.isSafeInteger(v) || 'an offset (an integer or a BigInt)';
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const offsetsByTopic = (v) => {
  if (!isPlainObject(v) && !(v instanceof Map)) return 'an object (or Map) of topic -> { partition: offset }';
  for (const [, partitions] of v instanceof Map ? v : Object.entries(v)) {
    if (!isPlainObject(partitions) && !(partitions instanceof Map)) return 'an object (or Map) of topic -> { partition: offset }';
    for (const [, offset] of partitions instanceof Map ? partitions : Object.entries(partitions)) {
      if (isOffset(offset) !== true) return 'an object (or Map) of topic -> { partition: offset } with integer or BigInt offsets';
    }
  }
  return true;
};
const topicNameMap = (v) => {
  if (!isPlainObject(v) && !(v instanceof Map)) return 'an object (or Map) of topic id -> topic name';
  for (const [id, name] of v instanceof Map ? v : Object.entries(v)) {
    if (typeof name !== 'string' || normalizeTopicId(id) === null) return 'an object (or Map) of topic id (UUID or base64url) -> topic name';
  }
  return true;
};
/** "0 to 18": the FetchResponse versions the module decodes. */
const fetchVersions = () => {
  const { min, max } = kafkaFacts().fetchResponseVersions;
  return `${min} to ${max}`;
};

// Every option, with the check of its value. Record-set calls take all but the frame ones.
const OPTIONS = {
  apiVersion: (v) => (Number.isInteger(v) && v >= 0) || `the FetchResponse version, an integer (${fetchVersions()})`,
  header: isBoolean,
  isolationLevel: oneOf('read_uncommitted', 'read_committed'),
  crc: oneOf('verify', 'report', 'skip'),
  int64: oneOf('number', 'bigint'),
  maxDecompressedBytes: byteCount,
  maxDecompressedBytesPerCall: byteCount,
  includeControlRecords: isBoolean,
  onError: oneOf('throw', 'partition'),
  transient: isBoolean,
  arrow: isBoolean,
  fetchOffsets: offsetsByTopic,
  topicNames: topicNameMap,
  fetchOffset: isOffset,
};
const FRAME_ONLY = ['apiVersion', 'header', 'fetchOffsets', 'topicNames'];
const RECORD_SET_ONLY = ['fetchOffset'];
// the options each kind of call takes, listed once
const VALID_OPTIONS = {
  frame: Object.keys(OPTIONS).filter((k) => !RECORD_SET_ONLY.includes(k)),
  recordSet: Object.keys(OPTIONS).filter((k) => !FRAME_ONLY.includes(k)),
};

/** Checks the options of a call and resolves them into what the wasm call and the result need. */
export function parseOptions(options, recordSet) {
  if (options != null && !isPlainObject(options)) {
    throw new TypeError('kafka-fetch-decoder: options must be an object');
  }
  const o = options ?? {};
  const valid = recordSet ? VALID_OPTIONS.recordSet : VALID_OPTIONS.frame;
  for (const [name, value] of Object.entries(o)) {
    if (!valid.includes(name)) {
      const where = OPTIONS[name] ? ` (it is for ${recordSet ? 'decodeFetchResponse' : 'decodeRecordSet'})` : '';
      throw new TypeError(`kafka-fetch-decoder: unknown option '${name}'${where}; valid options: ${valid.join(', ')}`);
    }
    const ok = value === undefined || OPTIONS[name](value);
    if (ok !== true) {
      const got = typeof value === 'string' ? `'${value}'` : typeof value === 'object' ? typeof value : String(value);
      throw new TypeError(`kafka-fetch-decoder: option ${name} must be ${ok}, got ${got}`);
    }
  }
  if (!recordSet && o.apiVersion === undefined) {
    throw new TypeError(`kafka-fetch-decoder: options.apiVersion (the FetchResponse version, ${fetchVersions()}) is required`);
  }
  const bit = contract.flags;
  let flags = 0;
  if (o.header !== false) flags |= bit.header;
  if (o.isolationLevel === 'read_committed') flags |= bit.readCommitted;
  if (o.crc === 'report') flags |= bit.crcReport;
  if (o.crc === 'skip') flags |= bit.crcSkip;
  if (o.includeControlRecords === true) flags |= bit.includeControl;
  if (o.int64 === 'bigint') flags |= bit.bigint;
  if (o.onError === 'partition') flags |= bit.onErrorPartition;
  if (o.arrow === true) flags |= bit.arrow;
  return {
    apiVersion: o.apiVersion ?? 0,
    flags,
    max: o.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES,
    maxPerCall: o.maxDecompressedBytesPerCall ?? DEFAULT_MAX_DECOMPRESSED_BYTES_PER_CALL,
    bigint: o.int64 === 'bigint',
    transient: o.transient === true,
    fetchOffsets: o.fetchOffsets,
    fetchOffset: o.fetchOffset,
    topicNames:
      o.topicNames &&
      new Map([...(o.topicNames instanceof Map ? o.topicNames : Object.entries(o.topicNames))].map(([id, name]) => [normalizeTopicId(id), name])),
  };
}

/** A topic id as the response shows it (8-4-4-4-12 hex), from that form or Kafka tools' base64url. */
function normalizeTopicId(id) {
  if (typeof id !== 'string') return null;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return id.toLowerCase();
  if (!/^[A-Za-z0-9_-]{22}$/.test(id)) return null;
  const bytes = base64Decode(id.replace(/-/g, '+').replace(/_/g, '/'));
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The offset records of `topic`/`partition` must reach to be returned (fetchOffsets), or null. */
export function fetchOffsetFor(fetchOffsets, topic, topicId, partition) {
  if (!fetchOffsets) return null;
  const get = (m, k) => (m instanceof Map ? m.get(k) : Object.hasOwn(m, k) ? m[k] : undefined);
  const byPartition = (topic != null && get(fetchOffsets, topic)) || (topicId != null && get(fetchOffsets, topicId)) || null;
  if (!byPartition) return null;
  return (byPartition instanceof Map ? (byPartition.get(partition) ?? byPartition.get(String(partition))) : byPartition[partition]) ?? null;
}

/** The input as a Uint8Array (no copy). */
export function toBytes(input) {
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError('kafka-fetch-decoder: input must be a Uint8Array, Buffer, ArrayBuffer or typed array');
}

/** How int64 values of the metadata (numbers, or decimal strings beyond 2^53) become JS values. */
export function int64Converter(bigint) {
  if (bigint) return (s) => (s == null ? null : BigInt(s));
  return (s) => {
    if (s == null) return null;
    const n = Number(s);
    if (!Number.isSafeInteger(n)) throw new RangeError(`${s} is beyond 2^53 and cannot be a JS number exactly; use int64: 'bigint'`);
    return n;
  };
}
