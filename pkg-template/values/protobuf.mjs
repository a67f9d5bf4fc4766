// Protobuf, by protobufjs: a schema (the .proto text a registry answers, with the files it imports as
// references; or base64 FileDescriptorProtos, as serializers register them and registries answer
// ?format=serialized; or a local .proto) parsed once; a message type picked by the record's message
// indexes or by name, compiled once and shared.
//
// Message indexes (Confluent's MessageIndexes) are the path from the file's first-level messages
// down through nested ones, counted as protoc's descriptors count them: the nested types of a
// message include the entry type protoc makes for each map field, where the field stands in the
// source (Confluent's serializers take the indexes from those descriptors). protobufjs keeps no
// map entry types, so the order is read from the file's tokens (messageTree).
//
// As JS data (protobufjs's toObject): every field present (defaults for those not set), messages
// as plain objects, repeated fields as arrays, maps as plain objects, enums as their names, bytes as
// bytes, 64-bit integers as numbers (an error beyond 2^53) or, with int64 'bigint', BigInts, and for
// a set oneof its name holding the name of the field set (`oneofs: true`). As JSON (option json):
// the proto3 JSON mapping (protobufjs's ProtoJSON: lowerCamelCase names, 64-bit integers as
// strings, bytes as base64, Timestamp and Duration as text, fields at their default left out).
// Well-known types (google/protobuf/*.proto) are protobufjs's own definitions.

import { FramingError } from './framing.mjs';
import { vendor } from './vendor.mjs';

const LONG_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/**
 * A parsed .proto `schema` (text or base64 descriptor) whose imports are `references` ([{ name (the
 * import path), schema, references }]): { typeAt(indexes) and typeNamed(name), each giving
 * { name (the type's full name), decode: (bytes, at) => value } }. `json`: values in their JSON form.
 */
export async function compileProto(schema, references, { int64 = 'number', json = false } = {}) {
  const lib = await vendor('protobuf');
  const { root, tree, pkg } = isDescriptor(schema) ? fromDescriptors(lib, schema, references) : fromText(lib, schema, references);
  const decoders = new Map();
  const decoderOf = (fullName) => {
    let d = decoders.get(fullName);
    if (!d) {
      d = messageDecoder(lib, root.lookupType(fullName), int64, json);
      decoders.set(fullName, d);
    }
    return d;
  };
  return {
    typeAt(indexes) {
      let level = tree;
      const path = [];
      for (const [depth, i] of indexes.entries()) {
        const node = level[i];
        if (!node)
          throw new FramingError(
            `message indexes [${indexes}]: the schema has ${level.length} message type${level.length === 1 ? '' : 's'} at depth ${depth}`,
            0,
          );
        if (node.mapEntry) throw new FramingError(`message indexes [${indexes}]: the entry type of map field ${node.field}, not a message of the schema`, 0);
        path.push(node.name);
        level = node.nested;
      }
      const name = [pkg, ...path].filter(Boolean).join('.');
      return { name, decode: decoderOf(name) };
    },
    typeNamed(name) {
      const full = root.lookupType(name).fullName.replace(/^\./, '');
      return { name: full, decode: decoderOf(full) };
    },
  };
}

// protobufjs leaves out a field, enum value or oneof named __proto__ when it reads a schema (its guard
// of its own objects), so that such a member's values would vanish without a word: the schema is
// refused instead (a SCHEMA error for its values).
const PROTO_NAME = '__proto__';
const protoNameError = (file) => new Error(`${file} names a member __proto__, which protobufjs leaves out of the schema: its values would be lost`);

/** The identifiers of .proto `source` (string literals left out). */
function tokensOf(protobuf, source) {
  const tokens = protobuf.tokenize(source, false);
  const out = [];
  for (let t = tokens.next(); t !== null; t = tokens.next()) {
    if (t === '"' || t === "'") {
      tokens.next(); // the string's text
      tokens.next(); // its closing quote
    } else {
      out.push(t);
    }
  }
  return out;
}

/** Every `name` in a decoded FileDescriptorProto (messages, fields, enums, values, oneofs, nested). */
function namesIn(node, out = []) {
  if (Array.isArray(node)) for (const x of node) namesIn(x, out);
  else if (node && typeof node === 'object' && !(node instanceof Uint8Array)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'name' && typeof v === 'string') out.push(v);
      else if (typeof v === 'object') namesIn(v, out);
    }
  }
  return out;
}

/** A schema of text always holds `;` or `{`; base64 never does. */
const isDescriptor = (schema) => !/[;{]/.test(schema);

function fromText({ protobuf }, schema, references) {
  const root = new protobuf.Root();
  const parsed = new Set();
  const parseInto = (source, name) => {
    if (parsed.has(name)) return;
    parsed.add(name);
    if (isDescriptor(source)) throw new Error(`reference ${name} is a descriptor, and the schema is .proto text: give both in one form`);
    if (tokensOf(protobuf, source).includes(PROTO_NAME)) throw protoNameError(name);
    const { imports = [], weakImports = [] } = protobuf.parse(source, root, { keepCase: true });
    for (const file of [...imports, ...weakImports]) {
      // the well-known types protobufjs knows (timestamp, any, ...), when no reference gives them
      const common = protobuf.common.get(file);
      if (common && !parsed.has(file) && !findReference(references, file)) {
        parsed.add(file);
        root.addJSON(common.nested);
      }
    }
  };
  eachReference(references, (ref) => parseInto(ref.schema, ref.name));
  parseInto(schema, '(the schema)');
  root.resolveAll();
  const { package: pkg = '' } = protobuf.parse(schema, new protobuf.Root(), { keepCase: true });
  return { root, pkg, tree: messageTree(protobuf, schema) };
}

function fromDescriptors({ protobuf, descriptor }, schema, references) {
  const decode = (text, name) => {
    if (!isDescriptor(text)) throw new Error(`reference ${name} is .proto text, and the schema is a descriptor: give both in one form`);
    const file = descriptor.FileDescriptorProto.decode(base64Bytes(text));
    if (namesIn(file).includes(PROTO_NAME)) throw protoNameError(name);
    return file;
  };
  const files = [];
  const names = new Set();
  eachReference(references, (ref) => {
    if (names.has(ref.name)) return;
    names.add(ref.name);
    files.push(decode(ref.schema, ref.name));
  });
  const main = decode(schema, '(the schema)');
  // the well-known types the files import and no reference gives, as descriptors
  const wellKnown = new protobuf.Root();
  let needed = false;
  for (const f of [...files, main]) {
    for (const dep of f.dependency ?? []) {
      const common = protobuf.common.get(dep);
      if (common && !names.has(dep)) {
        names.add(dep);
        wellKnown.addJSON(common.nested);
        needed = true;
      }
    }
  }
  if (needed) files.unshift(...wellKnown.toDescriptor('proto3').file);
  const root = protobuf.Root.fromDescriptor({ file: [...files, main] }, { keepCase: true });
  const treeOf = (messages) =>
    messages.map((m) => (m.options?.mapEntry ? { mapEntry: true, field: m.name, nested: [] } : { name: m.name, nested: treeOf(m.nestedType ?? []) }));
  return { root, pkg: main.package ?? '', tree: treeOf(main.messageType ?? []) };
}

function base64Bytes(text) {
  const clean = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) throw new Error('the schema is neither .proto text nor a base64 FileDescriptorProto');
  return Uint8Array.from(atob(clean), (c) => c.charCodeAt(0));
}

/** Each file the references name once (a file imported twice is one file), its own imports before it. */
function eachReference(refs, visit, seen = new Set()) {
  for (const ref of refs ?? []) {
    if (seen.has(ref.name ?? ref)) continue;
    seen.add(ref.name ?? ref);
    eachReference(ref.references, visit, seen);
    visit(ref);
  }
}

function findReference(refs, name) {
  let found = false;
  eachReference(refs, (ref) => {
    found ||= ref.name === name;
  });
  return found;
}

/**
 * The message types of .proto `source` as protoc's descriptors order them: per scope, each message
 * and group declared and each map field's entry type, in source order. [{ name, nested } |
 * { mapEntry, field }].
 */
export function messageTree(protobuf, source) {
  const tokens = protobuf.tokenize(source, false);
  const next = () => {
    const t = tokens.next();
    if (t === '"' || t === "'") {
      tokens.next(); // the string's text: never a keyword
      tokens.next(); // its closing quote
      return 'string literal';
    }
    return t;
  };
  const top = [];
  // scopes: the message list each open brace adds to (null: a brace of anything else: enum,
  // service, an option's value); a oneof's groups belong to its message
  const scopes = [top];
  let pending = null; // what the next `{` opens
  let previous = null;
  for (let t = next(); t !== null; previous = t, t = next()) {
    const here = scopes[scopes.length - 1];
    if (t === '{') {
      scopes.push(pending ? pending.nested : pending === undefined ? here : null);
      pending = null;
    } else if (t === '}') {
      scopes.pop();
    } else if (here && (t === 'message' || t === 'group') && previous !== '.' && (previous === null || /^[;{}\]]$/.test(previous) || isLabel(previous))) {
      // `message Name {`, or `group Name = N {` (a group's type is a nested message)
      const node = { name: next(), nested: [] };
      here.push(node);
      pending = node;
    } else if (here && t === 'map' && /^[;{}\]]$/.test(previous ?? ';')) {
      // map<K, V> name = N: an entry type where the field stands
      let depth = 0;
      let u = next();
      do {
        if (u === '<') depth++;
        if (u === '>') depth--;
        if (depth > 0) u = next();
      } while (depth > 0 && u !== null);
      here.push({ mapEntry: true, field: next(), nested: [] });
    } else if (here && t === 'oneof' && /^[;{}\]]$/.test(previous ?? ';')) {
      next(); // its name
      pending = undefined; // its braces add to the message around it
    } else if (t === 'enum' || t === 'service' || t === 'extend') {
      pending = null;
    }
  }
  return top;
}

/** The message types of .proto `source` (nested ones too), by full name, in the order declared. */
export async function protobufMessageTypes(source) {
  const { protobuf } = await vendor('protobuf');
  const { root } = protobuf.parse(source, new protobuf.Root(), { keepCase: true });
  const out = [];
  const walk = (ns) => {
    for (const n of ns.nestedArray) {
      if (n instanceof protobuf.Type) out.push(n.fullName.replace(/^\./, ''));
      if (n.nestedArray) walk(n);
    }
  };
  walk(root);
  return out;
}

const isLabel = (t) => t === 'optional' || t === 'required' || t === 'repeated';

/** `(bytes, at) => value` of one message type. */
function messageDecoder({ protojson }, type, int64, json) {
  if (json) return (bytes, at) => protojson.toJson(type, type.decode(at ? bytes.subarray(at) : bytes));
  const toLong =
    int64 === 'bigint'
      ? BigInt
      : (s) => {
          const n = Number(s);
          if (!Number.isSafeInteger(n)) throw new RangeError(`${s} is beyond 2^53 and cannot be a JS number exactly; use int64: 'bigint'`);
          return n;
        };
  const convert = longConverter(type, toLong, new Map());
  const options = { longs: String, enums: String, defaults: true, arrays: true, objects: true, oneofs: true };
  return (bytes, at) => convert(type.toObject(type.decode(at ? bytes.subarray(at) : bytes), options));
}

/**
 * A function that turns the 64-bit integers of a `type` object (toObject gives them as strings) into
 * numbers or BigInts, in place, nested messages, repeated fields and maps included; the identity for
 * types without any.
 */
function longConverter(type, toLong, seen) {
  if (seen.has(type)) return seen.get(type);
  const steps = [];
  const converter = (obj) => {
    for (const step of steps) step(obj);
    return obj;
  };
  seen.set(type, converter);
  for (const field of type.fieldsArray) {
    field.resolve();
    const name = field.name;
    let one = null;
    if (LONG_TYPES.has(field.type)) one = toLong;
    else if (field.resolvedType?.fieldsArray) {
      const nested = longConverter(field.resolvedType, toLong, seen);
      one = (v) => (v == null ? v : nested(v));
    }
    // map keys stay the strings object keys are
    if (field.map && one) {
      steps.push((o) => {
        const m = o[name];
        if (m) for (const k of Object.keys(m)) m[k] = one(m[k]);
      });
    } else if (field.repeated && one) {
      steps.push((o) => {
        const a = o[name];
        if (a) for (let i = 0; i < a.length; i++) a[i] = one(a[i]);
      });
    } else if (one) {
      steps.push((o) => {
        if (o[name] != null) o[name] = one(o[name]);
      });
    }
  }
  return steps.length ? converter : (obj) => obj;
}
