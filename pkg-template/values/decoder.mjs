// ValueDecoder: a record's key and value as data. Each side has a format (`auto`, `avro`,
// `protobuf`, `json-schema`, `json`, `text`, `msgpack`, `protobuf-raw` or `bytes`); schemas come
// from a registry (by the id the bytes or headers carry: framing.mjs) or from local schemas, are fetched once per
// id (registry.mjs) and compiled once per id (avro.mjs, protobuf.mjs), and every record of that
// schema shares the compiled decoder.
//
// `auto` tries, in order: the registry's schema when the bytes are framed (and a registry or a local
// schema is there), JSON, UTF-8 text, MessagePack (a map or an array, whole), Protobuf without a
// schema (protobuf-raw.mjs), and keeps the bytes; the result says which won and, in `tried`, why
// each one before it failed. A value that does not decode keeps its bytes and says
// why: a record is never lost for its value.
//
// A decoded side: { format, value, schemaId?, guid?, registry?, messageType?, messageIndexes?,
// invalidUtf8At?, error?, errorCode?, tried? }. `format` is what it decoded as ('bytes' when nothing did, with
// `error` for a format that was asked for); `value` the data ('null' format: a null key or value).

import { compileAvro } from './avro.mjs';
import { FramingError, framingOf, messageIndexes } from './framing.mjs';
import { msgpackDecoder, parseJson, utf8Text } from './plain.mjs';
import { jsonForm } from './json-form.mjs';
import { compileProto } from './protobuf.mjs';
import { decodeProtobufRaw } from './protobuf-raw.mjs';
import { RegistryClient, RegistryError } from './registry.mjs';

export const VALUE_FORMATS = ['auto', 'avro', 'protobuf', 'json-schema', 'json', 'text', 'msgpack', 'protobuf-raw', 'bytes'];
const SCHEMA_FORMATS = new Set(['auto', 'avro', 'protobuf', 'json-schema']);
const TYPE_FORMAT = { AVRO: 'avro', PROTOBUF: 'protobuf', JSON: 'json-schema' };

const errorText = (e) => e?.message ?? String(e);
const CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/;

// Why a side did not decode, as a code beside the text: FRAMING (the id or indexes cannot be read),
// REGISTRY (no answer, 404, too large), SCHEMA (it does not parse, or is of another format),
// NO_SCHEMA (nothing to decode it with), UNLOADED (decodeLoaded before prepare), DECODE (the bytes
// do not fit the schema or format), LIMIT (past a bound of limits.mjs: the value, or its schema's
// references).
class ValueError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}
const CODES = new Set(['FRAMING', 'REGISTRY', 'SCHEMA', 'NO_SCHEMA', 'UNLOADED', 'DECODE', 'LIMIT']);
const codeOf = (e) => (CODES.has(e?.code) ? e.code : e instanceof FramingError ? 'FRAMING' : e instanceof RegistryError ? 'REGISTRY' : 'DECODE');

export class ValueDecoder {
  /**
   * options: key and value (formats; 'auto' by default), registry (a RegistryClient, or its
   * options: { url, username, password, token, timeoutMs, maxResponseBytes, fetch }), local schemas
   * for payloads without a registry's framing: keySchema / valueSchema as { avro: schema } or
   * { protobuf: { source, type, references? } }, int64 ('number' or 'bigint', as the decoder's), json
   * (values in their JSON form, as the CLI prints them: Protobuf by the proto3 JSON mapping, the
   * others with bytes as base64 and 64-bit integers as strings).
   */
  constructor({ key = 'auto', value = 'auto', registry = null, keySchema = null, valueSchema = null, int64 = 'number', json = false } = {}) {
    for (const [side, format] of [
      ['key', key],
      ['value', value],
    ]) {
      if (!VALUE_FORMATS.includes(format))
        throw new TypeError(`kafka-fetch-decoder: ${side} format must be one of ${VALUE_FORMATS.join(', ')}, got '${format}'`);
    }
    if (int64 !== 'number' && int64 !== 'bigint') throw new TypeError(`kafka-fetch-decoder: int64 must be 'number' or 'bigint', got '${int64}'`);
    this.formats = { key, value };
    this.registry = registry === null || registry instanceof RegistryClient ? registry : new RegistryClient(registry);
    this.local = { key: keySchema, value: valueSchema };
    // the JSON form needs every integer exact: BigInts first, strings at the end
    this.int64 = json ? 'bigint' : int64;
    this.json = Boolean(json);
    this.form = json ? jsonForm : (v) => v;
    // 'confluent:7', 'guid:...', 'apicurio:9' -> { ready: compiled } | { error } once loaded; a promise while loading
    this.schemas = new Map();
    this.localCompiled = { key: undefined, value: undefined };
    this.msgpack = null;
  }

  /** Loads and compiles every schema `records` refer to (never throws: a failure stays with its id). */
  async prepare(records) {
    const loads = [];
    // MessagePack's decoder, for msgpack and for auto's last try (a failed load: said per record, as UNLOADED)
    if (!this.msgpack && Object.values(this.formats).some((f) => f === 'msgpack' || f === 'auto')) {
      loads.push(
        msgpackDecoder({ int64: this.int64 }).then(
          (d) => {
            this.msgpack = d;
          },
          () => {},
        ),
      );
    }
    for (const side of ['key', 'value']) {
      const format = this.formats[side];
      if (!SCHEMA_FORMATS.has(format)) continue;
      if (this.local[side] && this.localCompiled[side] === undefined) loads.push(this.#compileLocal(side));
      for (const r of records) {
        let framing;
        try {
          framing = framingOf(r[side], r.headers, side);
        } catch {
          continue; // said when the record is decoded
        }
        if (framing) loads.push(this.#load(framing));
      }
    }
    await Promise.all(loads);
  }

  /**
   * Decodes the keys and values of `records` (their schemas loaded first) onto them: each record gets
   * `decodedKey` and `decodedValue`. Returns `records`.
   */
  async attach(records) {
    await this.prepare(records);
    for (const r of records) {
      r.decodedKey = this.decodeSide(r, 'key');
      r.decodedValue = this.decodeSide(r, 'value');
    }
    return records;
  }

  /** `record`'s key and value decoded, its schemas loaded first: { key, value }. */
  async decode(record) {
    await this.prepare([record]);
    return this.decodeLoaded(record);
  }

  /** `record`'s key and value decoded with the schemas loaded so far (prepare): { key, value }. */
  decodeLoaded(record) {
    return { key: this.decodeSide(record, 'key'), value: this.decodeSide(record, 'value') };
  }

  /** One side ('key' or 'value') of `record` decoded with the schemas loaded so far. */
  decodeSide(record, side) {
    const bytes = record[side];
    if (bytes === null) return { format: 'null', value: null };
    const format = this.formats[side];
    switch (format) {
      case 'auto':
        return this.#auto(bytes, record.headers, side);
      case 'bytes':
        return { format: 'bytes', value: bytes };
      case 'text': {
        const { text, invalidAt } = utf8Text(bytes);
        return invalidAt === null ? { format: 'text', value: text } : { format: 'text', value: text, invalidUtf8At: invalidAt };
      }
      case 'json':
        return attempt(format, bytes, () => ({ format: 'json', value: this.form(parseJson(bytes, 0, this.int64)) }));
      case 'protobuf-raw':
        return attempt(format, bytes, () => ({ format, value: this.form(decodeProtobufRaw(bytes, { int64: this.int64 })) }));
      case 'msgpack':
        return attempt(format, bytes, () => {
          if (!this.msgpack) throw new ValueError('UNLOADED', 'the MessagePack decoder is not loaded (prepare the records first)');
          return { format: 'msgpack', value: this.form(this.msgpack(bytes)) };
        });
      default:
        return attempt(format, bytes, () => this.#withSchema(bytes, record.headers, side, format));
    }
  }

  #auto(bytes, headers, side) {
    const tried = [];
    let failed = null; // a schema there to use that failed: said as the result's error
    try {
      return this.#withSchema(bytes, headers, side, 'auto');
    } catch (e) {
      if (!(e instanceof NoSchema)) {
        const code = codeOf(e);
        tried.push({ format: 'registry', code, error: errorText(e) });
        // bytes that merely look framed (FRAMING), or an id with nothing to ask (NO_SCHEMA), are no failure
        if (code === 'REGISTRY' || code === 'SCHEMA' || code === 'DECODE' || code === 'LIMIT') failed = { code, error: `registry: ${errorText(e)}` };
      }
    }
    const out = this.#unframed(bytes, tried);
    if (tried.length) out.tried = tried;
    if (failed) {
      out.error = failed.error;
      out.errorCode = failed.code;
    }
    return out;
  }

  /**
   * auto past the registry's schema: JSON, then text, then MessagePack (a map or an array, whole),
   * then Protobuf without a schema, then the bytes (each failure added to `tried`).
   */
  #unframed(bytes, tried) {
    try {
      return { format: 'json', value: this.form(parseJson(bytes, 0, this.int64)) };
    } catch (e) {
      tried.push({ format: 'json', code: 'DECODE', error: errorText(e) });
    }
    // text, for auto, is UTF-8 without control characters other than tab and line ends: bytes
    // with a NUL or an escape in them are data, whatever UTF-8 says
    const { text, invalidAt } = utf8Text(bytes);
    const control = invalidAt === null ? text.search(CONTROL) : -1;
    if (invalidAt === null && control < 0) return { format: 'text', value: text };
    tried.push({
      format: 'text',
      code: 'DECODE',
      error:
        invalidAt !== null
          ? `not UTF-8 (byte ${invalidAt})`
          : `control character U+${text.charCodeAt(control).toString(16).padStart(4, '0').toUpperCase()} at character ${control}`,
    });
    const msgpack = this.#msgpack(bytes, tried);
    if (msgpack) return msgpack;
    try {
      return { format: 'protobuf-raw', value: this.form(decodeProtobufRaw(bytes, { int64: this.int64 })) };
    } catch (e) {
      tried.push({ format: 'protobuf-raw', code: 'DECODE', error: errorText(e) });
    }
    return { format: 'bytes', value: bytes };
  }

  /** auto's MessagePack: a map or an array that parses whole, or null (the failure added to `tried`). */
  #msgpack(bytes, tried) {
    if (!this.msgpack) {
      tried.push({ format: 'msgpack', code: 'UNLOADED', error: 'the MessagePack decoder is not loaded (prepare the records first)' });
      return null;
    }
    if (!startsMsgpackContainer(bytes)) {
      tried.push({ format: 'msgpack', code: 'DECODE', error: 'not a MessagePack map or array' });
      return null;
    }
    try {
      return { format: 'msgpack', value: this.form(this.msgpack(bytes)) };
    } catch (e) {
      tried.push({ format: 'msgpack', code: 'DECODE', error: errorText(e) });
      return null;
    }
  }

  /**
   * The side decoded by a schema: the registry's when the bytes or headers carry an id, else the
   * local one. `asked` is the format asked ('auto', 'avro', 'protobuf' or 'json-schema'): a schema of
   * another type is an error. NoSchema when there is neither (auto then tries the rest).
   */
  #withSchema(bytes, headers, side, asked) {
    const framing = framingOf(bytes, headers, side, asked !== 'auto' && !this.local[side]);
    let compiled;
    if (framing) {
      if (!this.registry && !this.local[side])
        throw new ValueError('NO_SCHEMA', `schema ${framing.id ?? framing.guid}, and no registry to ask (option registry)`);
      if (this.registry) {
        const loaded = this.schemas.get(keyOf(framing));
        if (!loaded || loaded instanceof Promise)
          throw new ValueError('UNLOADED', `schema ${framing.id ?? framing.guid} is not loaded (prepare the records first)`);
        if (loaded.error) throw loaded.error;
        compiled = loaded.ready;
      } else {
        compiled = this.localCompiled[side];
        if (!compiled) throw new ValueError('UNLOADED', `the local ${side} schema is not compiled (prepare the records first)`);
        if (compiled.error) throw compiled.error;
      }
    } else {
      if (!this.local[side]) {
        if (asked === 'auto') throw new NoSchema('no framing');
        throw new ValueError('NO_SCHEMA', `no schema id in the ${side} (Confluent's magic byte 0 or 1) and no local schema`);
      }
      compiled = this.localCompiled[side];
      if (!compiled) throw new ValueError('UNLOADED', `the local ${side} schema is not compiled (prepare the records first)`);
      if (compiled.error) throw compiled.error;
    }
    const format = compiled.format;
    if (asked !== 'auto' && asked !== format) throw new ValueError('SCHEMA', `the ${side}'s schema is ${format}, not ${asked}`);
    const at = framing?.source === 'payload' ? framing.bodyAt : 0;
    if (format === 'avro') return withIds({ format, value: this.form(compiled.decode(bytes, at)) }, framing);
    if (format === 'json-schema') return withIds({ format, value: this.form(parseJson(bytes, at, this.int64)) }, framing);
    // Protobuf: the message indexes say which message of the file (a local schema names its type)
    if (framing) {
      const { indexes, end } = messageIndexes(framing.indexesIn, framing.indexesAt);
      const type = compiled.proto.typeAt(indexes);
      const out = withIds({ format, value: type.decode(bytes, framing.source === 'payload' ? end : 0) }, framing);
      out.messageType = type.name;
      out.messageIndexes = indexes;
      return out;
    }
    return { format, value: compiled.type.decode(bytes, 0), messageType: compiled.type.name };
  }

  /** Fetches and compiles the schema `framing` names, once. */
  #load(framing) {
    if (!this.registry) return null;
    const key = keyOf(framing);
    const known = this.schemas.get(key);
    if (known) return known instanceof Promise ? known : null;
    const loading = (framing.guid ? this.registry.schemaByGuid(framing.guid) : this.registry.schemaById(framing.id))
      .then((s) => compileSchema(s.schemaType, s.schema, s.references, { int64: this.int64, json: this.json }))
      .then(
        (ready) => ({ ready }),
        (error) => ({ error }),
      )
      .then((entry) => {
        this.schemas.set(key, entry);
      });
    this.schemas.set(key, loading);
    return loading;
  }

  async #compileLocal(side) {
    const local = this.local[side];
    try {
      if (local.avro !== undefined) {
        this.localCompiled[side] = await compileSchema('AVRO', local.avro, [], { int64: this.int64, json: this.json });
      } else if (local.protobuf) {
        const { source, type, references = [] } = local.protobuf;
        const proto = await compileProto(source, references, { int64: this.int64, json: this.json });
        this.localCompiled[side] = { format: 'protobuf', proto, type: proto.typeNamed(type) };
      } else {
        throw new Error('a local schema is { avro: schema } or { protobuf: { source, type } }');
      }
    } catch (e) {
      this.localCompiled[side] = { error: new ValueError('SCHEMA', `the local ${side} schema: ${errorText(e)}`) };
    }
  }
}

/**
 * Whether `bytes` start a MessagePack map or array (fixmap, fixarray, map 16/32, array 16/32): auto
 * takes nothing else for MessagePack, where any lone byte that is not text would pass (0x00 is 0).
 */
function startsMsgpackContainer(bytes) {
  const b = bytes[0];
  return (b >= 0x80 && b <= 0x9f) || (b >= 0xdc && b <= 0xdf);
}

/** The bytes carry no schema id and there is no local schema: auto goes on with JSON and text. */
class NoSchema extends Error {}

/** A decoded side with the schema id its framing carried (properties added: no object spread per record). */
function withIds(out, framing) {
  if (!framing) return out;
  if (framing.guid !== undefined) out.guid = framing.guid;
  else out.schemaId = framing.id;
  out.registry = framing.registry;
  return out;
}

const keyOf = (framing) => (framing.guid ? `guid:${framing.guid}` : `${framing.registry}:${framing.id}`);

/** A schema of the registry compiled: { format, decode } (Avro), { format, proto } (Protobuf), { format } (JSON Schema). */
async function compileSchema(schemaType, schema, references, { int64, json }) {
  const format = Object.hasOwn(TYPE_FORMAT, schemaType) ? TYPE_FORMAT[schemaType] : null;
  if (!format) throw new ValueError('SCHEMA', `a schema of type ${schemaType}, which is not Avro, Protobuf or JSON`);
  try {
    if (format === 'avro') return { format, decode: await compileAvro(schema, references, { int64 }) };
    if (format === 'protobuf') return { format, proto: await compileProto(schema, references, { int64, json }) };
    JSON.parse(schema);
    return { format };
  } catch (e) {
    throw new ValueError('SCHEMA', `its ${format} schema does not parse: ${errorText(e)}`);
  }
}

/** `decode()`, or the bytes with the reason when the format asked for does not apply. */
function attempt(format, bytes, decode) {
  try {
    return decode();
  } catch (e) {
    const why = e instanceof FramingError ? `framing: ${e.message}` : errorText(e);
    return { format: 'bytes', value: bytes, errorCode: codeOf(e), error: `${format}: ${why}` };
  }
}
