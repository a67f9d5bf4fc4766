// Protobuf without a schema, as `protoc --decode_raw` reads it: each field's number and wire type,
// varints and fixed-width integers as unsigned numbers, a length-delimited field as a nested
// message where its bytes parse as one (and are not empty), else as a string where they are UTF-8,
// else as bytes; groups (wire types 3 and 4) as nested fields. Nesting is followed 10 levels deep,
// as protoc's text printer does; deeper, a length-delimited field is a string or bytes.
//
// Its own reader, not protobufjs's: the wire format is a few lines, `auto` tries it on every
// unframed binary value (synchronously, without loading a 100 KB library first), and what "parses
// as a message" means must be protoc's, field by field (a zero tag, field 0, wire types 6 and 7,
// an end-group tag that closes no group, a varint over 10 bytes, a length from 2^31 all fail).
//
// A field: { field, type, value }: type 'varint' | 'fixed64' | 'fixed32' (value: a number, or a
// BigInt past 2^53 or with int64 'bigint'), 'group' | 'message' (value: fields), 'string' (value: a
// string) or 'bytes' (value: a Uint8Array).

import { utf8Text } from './plain.mjs';

/** How deep length-delimited fields are read as messages: protoc's text printer's budget for unknown fields. */
const NESTING_LIMIT = 10;
/** The most group levels one parse follows (protobuf's default recursion limit). */
const GROUP_LIMIT = 100;

class NotAMessage extends Error {}
const fail = (at, why) => {
  throw new NotAMessage(`${why} at byte ${at}`);
};

/** A varint from `at`: { value (BigInt), end }; at most 10 bytes, as protobuf reads one. */
function varint(bytes, at, end) {
  let value = 0n;
  for (let i = 0; i < 10; i++) {
    if (at + i >= end) fail(at, 'a varint cut short');
    const b = bytes[at + i];
    value |= BigInt(b & 0x7f) << BigInt(7 * i);
    if (b < 0x80) return { value: BigInt.asUintN(64, value), end: at + i + 1 };
  }
  return fail(at, 'a varint longer than 10 bytes');
}

/** A tag from `at`: { tag, end }: a varint of at most 10 bytes, its low 32 bits (as protobuf's CodedInputStream reads one). */
function tagAt(bytes, at, end) {
  const { value, end: after } = varint(bytes, at, end);
  return { tag: Number(BigInt.asUintN(32, value)), end: after };
}

const littleEndian = (bytes, at, n) => {
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[at + i]);
  return v;
};

/**
 * The fields of bytes[at, end), or of the group `group` (its field number) that starts there:
 * { fields, end }. Length-delimited fields are kept as their byte ranges here (`range`). At most
 * `groupLimit` groups deep (`depth` so far).
 */
function parseFields(bytes, at, end, group, depth, groupLimit) {
  const fields = [];
  let pos = at;
  while (pos < end) {
    const start = pos;
    const { tag, end: afterTag } = tagAt(bytes, pos, end);
    pos = afterTag;
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    if (field === 0) fail(start, 'field number 0');
    switch (wire) {
      case 0: {
        const v = varint(bytes, pos, end);
        fields.push({ field, type: 'varint', raw: v.value });
        pos = v.end;
        break;
      }
      case 1:
        if (pos + 8 > end) fail(pos, 'a fixed64 cut short');
        fields.push({ field, type: 'fixed64', raw: littleEndian(bytes, pos, 8) });
        pos += 8;
        break;
      case 5:
        if (pos + 4 > end) fail(pos, 'a fixed32 cut short');
        fields.push({ field, type: 'fixed32', raw: littleEndian(bytes, pos, 4) });
        pos += 4;
        break;
      case 2: {
        // a length is read as 32 bits, and must be below 2^31
        const n = varint(bytes, pos, end);
        const length = Number(BigInt.asUintN(32, n.value));
        if (length >= 2 ** 31 || length > end - n.end) fail(pos, `a length of ${length}, past the end`);
        pos = n.end;
        fields.push({ field, type: 'len', range: [pos, pos + length] });
        pos += length;
        break;
      }
      case 3: {
        if (depth >= groupLimit) fail(start, 'groups nested too deep');
        const inner = parseFields(bytes, pos, end, field, depth + 1, groupLimit);
        fields.push({ field, type: 'group', value: inner.fields });
        pos = inner.end;
        break;
      }
      case 4:
        if (group !== field) fail(start, group === null ? 'an end-group tag outside a group' : `an end-group tag of field ${field} in group ${group}`);
        return { fields, end: pos };
      default:
        fail(start, `wire type ${wire}`);
    }
  }
  if (group !== null) fail(end, `group ${group} not ended`);
  return { fields, end: pos };
}

/**
 * Fields as they are shown: integers by the int64 option, length-delimited bytes as a message, a
 * string or bytes. `budget`: how many levels of messages may still be read; a message read at
 * budget B may hold B groups, one inside the other (protoc's text printer gives its parse that
 * recursion limit), and groups do not use the budget up.
 */
function shown(bytes, fields, budget, int64) {
  const integer = (v) => (int64 === 'bigint' || v > BigInt(Number.MAX_SAFE_INTEGER) ? v : Number(v));
  return fields.map((f) => {
    if (f.type === 'group') return { field: f.field, type: 'group', value: shown(bytes, f.value, budget, int64) };
    if (f.type !== 'len') return { field: f.field, type: f.type, value: integer(f.raw) };
    const [from, to] = f.range;
    if (to > from && budget > 0) {
      try {
        return { field: f.field, type: 'message', value: shown(bytes, parseFields(bytes, from, to, null, 0, budget).fields, budget - 1, int64) };
      } catch (e) {
        if (!(e instanceof NotAMessage)) throw e;
      }
    }
    const sub = bytes.subarray(from, to);
    const { text, invalidAt } = utf8Text(sub);
    return invalidAt === null ? { field: f.field, type: 'string', value: text } : { field: f.field, type: 'bytes', value: sub };
  });
}

/**
 * `bytes` as Protobuf fields without a schema (see the top); throws when they are not a message
 * (empty bytes are one: no field).
 */
export function decodeProtobufRaw(bytes, { int64 = 'number' } = {}) {
  try {
    return shown(bytes, parseFields(bytes, 0, bytes.length, null, 0, GROUP_LIMIT).fields, NESTING_LIMIT, int64);
  } catch (e) {
    if (e instanceof NotAMessage) throw new TypeError(`not a Protobuf message: ${e.message}`, { cause: e });
    throw e;
  }
}

/** Fields (as decodeProtobufRaw reads them, or their JSON form) on one line, as protoc prints them: `1: 150 2 { 1: "a" }`. */
export function protobufRawText(fields) {
  return fields
    .map((f) => {
      if (f.type === 'message' || f.type === 'group') return `${f.field} { ${protobufRawText(f.value)}${f.value.length ? ' ' : ''}}`;
      if (f.type === 'string') return `${f.field}: ${JSON.stringify(f.value)}`;
      if (f.type === 'bytes') return `${f.field}: <${typeof f.value === 'string' ? `base64 ${f.value}` : `${f.value.length} bytes`}>`;
      return `${f.field}: ${f.value}`;
    })
    .join(' ');
}
