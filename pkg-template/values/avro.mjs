// Avro, by avsc: a writer's schema (from the registry, with the named types its references bring,
// or a local .avsc) compiled once into a decoder that every record of that schema shares.
//
// As JS data (avro-types.mjs reads records, maps, arrays and unions for untrusted bytes): records
// and maps as plain objects with every field or key an own member (`__proto__` included), arrays as arrays, enums as their symbol names,
// unions as the value of the branch written (null for null) except where two branches are the same
// kind of JS value (two records, int and long): there { branchName: value }, as Avro's JSON encoding
// writes every union, so the branch stays known; bytes and fixed as bytes (Buffer in
// Node, Uint8Array elsewhere), longs as numbers (an error beyond 2^53) or, with int64 'bigint',
// BigInts; decimal as its exact decimal text ("-12.34"); the other logical types as their
// underlying values (timestamp-millis and -micros as numbers of ms and µs, date as days, uuid as text).

import { boundedTypeHook, resetBudget } from './avro-types.mjs';
import { vendor } from './vendor.mjs';

/**
 * A decoder of Avro `schema` (text or object), whose named types may come from `references` ([{
 * schema, references }], the registry's): `(bytes, at) => value`, throwing when the bytes from `at`
 * are not one whole value of it.
 */
export async function compileAvro(schema, references, { int64 = 'number' } = {}) {
  const avsc = await vendor('avro');
  const { Type, types, Buffer } = avsc;
  // named types by name: a type named __proto__ (a valid Avro name) is one more name
  const options = { logicalTypes: { decimal: decimalType(types) }, wrapUnions: 'auto', omitRecordMethods: true, registry: Object.create(null) };
  let longs;
  if (int64 === 'bigint') {
    // every long, written 'long' or { type: 'long', ... } (under a logical type: timestamp-millis, ...)
    const long = bigintLong(types, Buffer);
    longs = (schema) => (schema === 'long' || schema?.type === 'long' ? long : undefined);
  }
  options.typeHook = boundedTypeHook(avsc, longs);
  // named types first: each reference registers its names for those after it
  const seen = new Set();
  const register = (refs) => {
    for (const ref of refs ?? []) {
      if (seen.has(ref.schema)) continue;
      seen.add(ref.schema);
      register(ref.references);
      Type.forSchema(parseSchema(ref.schema), options);
    }
  };
  register(references);
  const type = Type.forSchema(parseSchema(schema), options);
  // in browsers avsc reads its polyfill's Buffers: wrap the bytes (a view, no copy)
  const wrap = (b) => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  const decode = (bytes, at) => {
    let decoded;
    resetBudget();
    try {
      decoded = type.decode(wrap(bytes), at);
    } catch (e) {
      if (/precision loss/.test(e?.message))
        throw new RangeError("a long beyond 2^53, which a JS number cannot hold exactly; use int64: 'bigint'", { cause: e });
      throw e;
    }
    const { value, offset } = decoded;
    if (offset === -1) throw new Error('the bytes end inside the Avro value');
    if (offset !== bytes.length) throw new Error(`${bytes.length - offset} bytes after the Avro value`);
    return value;
  };
  return decode;
}

function parseSchema(schema) {
  if (typeof schema !== 'string') return schema;
  let parsed;
  try {
    parsed = JSON.parse(schema);
  } catch {
    return schema;
  }
  // a bare type name ("string", or null, which JSON reads as its null) is a schema too
  return parsed !== null && (typeof parsed === 'object' || typeof parsed === 'string') ? parsed : schema;
}

/** longs as BigInts (avsc's abstract long: the 8 bytes of the value, little-endian). */
function bigintLong(types, Buffer) {
  return types.LongType.__with({
    fromBuffer: (b) => b.readBigInt64LE(),
    toBuffer: (n) => {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(BigInt(n));
      return b;
    },
    fromJSON: (v) => BigInt(v),
    toJSON: (n) => Number(n),
    isValid: (n) => typeof n === 'bigint',
    compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  });
}

/** decimal (bytes or fixed, big-endian two's complement, `scale` digits) as its exact text. */
function decimalType(types) {
  return class DecimalType extends types.LogicalType {
    constructor(schema, options) {
      super(schema, options);
      this.scale = schema.scale ?? 0;
    }

    _fromValue(bytes) {
      let n = 0n;
      for (const b of bytes) n = (n << 8n) | BigInt(b);
      if (bytes.length && bytes[0] & 0x80) n -= 1n << BigInt(8 * bytes.length);
      const negative = n < 0n;
      const digits = (negative ? -n : n).toString().padStart(this.scale + 1, '0');
      const text = this.scale ? `${digits.slice(0, -this.scale)}.${digits.slice(-this.scale)}` : digits;
      return negative ? `-${text}` : text;
    }

    _toValue() {
      throw new Error('kafka-fetch-decoder decodes Avro; it does not encode it');
    }

    _resolve(type) {
      return type.typeName === this.underlyingType.typeName ? (v) => this._fromValue(v) : undefined;
    }
  };
}
