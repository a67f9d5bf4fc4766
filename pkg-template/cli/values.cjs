// The value options of the FILE command and of consume, and how decoded keys and values print: in
// --json the decoded data itself (its JSON form: bytes as base64, 64-bit integers as strings) with
// the format that won and the schema id (the table's compact form is output.cjs's).
'use strict';

const fs = require('node:fs');
const { ValueDecoder, VALUE_FORMATS } = require('../node.cjs');
const { UsageError, parse } = require('./args.cjs');

const valueUsage = `  --schema-registry URL     decode keys and values by the schemas of this (Confluent-compatible)
                            registry; credentials from KAFKA_SCHEMA_REGISTRY_USERNAME and
                            KAFKA_SCHEMA_REGISTRY_PASSWORD, or KAFKA_SCHEMA_REGISTRY_TOKEN (bearer)
  --key-format F            auto (the registry's schema if framed, else JSON, else text, else
                            MessagePack, else Protobuf without a schema, else bytes), avro,
  --value-format F          protobuf, json-schema, json, text, msgpack, protobuf-raw (fields by
                            number, as protoc --decode_raw shows them) or bytes (default auto once
                            any of these value options is given; without them, bytes)
  --avro-schema FILE        the values' Avro schema (.avsc), for a topic without a registry
  --proto FILE              the values' .proto, for a topic without a registry, with
  --proto-type NAME         the message type of the values (e.g. shop.Order)`;

const valueOptions = {
  '--schema-registry': { value: 'URL' },
  '--key-format': { value: 'F', parse: parse.oneOf(...VALUE_FORMATS) },
  '--value-format': { value: 'F', parse: parse.oneOf(...VALUE_FORMATS) },
  '--avro-schema': { value: 'FILE' },
  '--proto': { value: 'FILE' },
  '--proto-type': { value: 'NAME' },
};

function readText(file, option) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`${option} ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
}

/** The registry's credentials, from the environment (never the command line, which ps shows). */
function registryCredentials(env = process.env) {
  if (env.KAFKA_SCHEMA_REGISTRY_TOKEN) return { token: env.KAFKA_SCHEMA_REGISTRY_TOKEN };
  if (env.KAFKA_SCHEMA_REGISTRY_USERNAME) return { username: env.KAFKA_SCHEMA_REGISTRY_USERNAME, password: env.KAFKA_SCHEMA_REGISTRY_PASSWORD ?? '' };
  return {};
}

/** A ValueDecoder from the parsed command line, or null when no value option was given. */
function valueDecoderFrom(o) {
  const asked = o.schemaRegistry || o.keyFormat || o.valueFormat || o.avroSchema || o.proto || o.protoType;
  if (!asked) return null;
  if (o.proto && !o.protoType) throw new UsageError('--proto FILE needs --proto-type NAME (the message type of the values)');
  if (o.protoType && !o.proto) throw new UsageError('--proto-type NAME goes with --proto FILE');
  if (o.avroSchema && o.proto) throw new UsageError('--avro-schema and --proto: one schema for the values');
  let valueSchema = null;
  if (o.avroSchema) {
    const text = readText(o.avroSchema, '--avro-schema');
    try {
      valueSchema = { avro: JSON.parse(text) };
    } catch (e) {
      throw new UsageError(`--avro-schema ${o.avroSchema}: not JSON (${e.message})`);
    }
  }
  if (o.proto) valueSchema = { protobuf: { source: readText(o.proto, '--proto'), type: o.protoType } };
  const registry = o.schemaRegistry ? { url: o.schemaRegistry, ...registryCredentials() } : null;
  try {
    // the JSON form: Protobuf by the proto3 JSON mapping, 64-bit integers as strings, bytes as base64
    return new ValueDecoder({ key: o.keyFormat ?? 'auto', value: o.valueFormat ?? 'auto', registry, valueSchema, json: true });
  } catch (e) {
    throw new UsageError(e.message.replace(/^kafka-fetch-decoder: /, '').replace(/^a registry URL/, '--schema-registry'));
  }
}

/** Keys and values decoded as auto does without a registry (JSON, else text, else MessagePack, else bytes), in their JSON form. */
function autoDecoder() {
  return new ValueDecoder({ key: 'auto', value: 'auto', json: true });
}

// a record's JSON line with its decoded key and value: shared with the page (decoder/record-json.mjs)
const { jsonWithDecoded: withDecoded } = require('../lib.cjs').recordOutput;

/** Why a decoded side is not the data: a format asked for that failed, or a registry or schema that did. */
const failureOf = (d) => d?.error ?? null;

/**
 * Counts the keys and values that stayed bytes for a failure, for one line on stderr at the end:
 * the records themselves carry their reasons (--json), the line says that there were some.
 */
class ValueReport {
  constructor() {
    this.count = { key: 0, value: 0 };
    this.reasons = new Map(); // reason -> count
  }

  add(r) {
    for (const side of ['key', 'value']) {
      const why = failureOf(side === 'key' ? r.decodedKey : r.decodedValue);
      if (!why) continue;
      this.count[side]++;
      this.reasons.set(why, (this.reasons.get(why) ?? 0) + 1);
    }
  }

  /** The line, or null when everything decoded. */
  summary() {
    const { key, value } = this.count;
    if (!key && !value) return null;
    const parts = [value && `${value} value${value === 1 ? '' : 's'}`, key && `${key} key${key === 1 ? '' : 's'}`].filter(Boolean);
    const top = [...this.reasons]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([why, n]) => `${why} (${n})`);
    return `${parts.join(' and ')} not decoded, kept as bytes: ${top.join('; ')}${this.reasons.size > 3 ? '; ...' : ''}`;
  }
}

module.exports = { ValueReport, autoDecoder, registryCredentials, valueDecoderFrom, valueOptions, valueUsage, withDecoded };
