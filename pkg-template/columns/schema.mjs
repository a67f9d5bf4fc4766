// The Arrow schema of records, one definition for both ways a record batch is made (from-wasm.mjs,
// from-columns.mjs): the columns in order, and the dictionaries of the names a record has one of
// (codec, timestamp type, control type), which are the contract's name tables, so that every batch
// and every stream shares them. The topic is a dictionary too, of the topics of one table
// (topicField): a record holds a 4-byte index.
//
// topic, partition, offset, timestamp (ms, UTC; null for Kafka's -1), timestamp_type, key, value,
// headers (list<struct<key, value>>, in wire order, duplicates kept), leader_epoch, compression,
// producer_id, is_transactional, is_control, control_type (null but for control records),
// is_aborted; with decoded values, key_decoded and value_decoded (their JSON text).

import { contract } from '../decoder/contract.mjs';

let built = null; // per library: { fields, decodedFields, dictionaries: { name: { names, column } } }

/** The schema's fields (flechette types) and dictionaries, made once. */
export function recordSchema(f) {
  if (built?.f === f) return built;
  const namesOf = (field) => contract.batchFields.find((b) => b.name === field).names;
  const dictionaries = {};
  const dictionaryField = (name, names, nullable) => {
    // the dictionary's type is its column's own: flechette finds a dictionary's id by it
    const column = f.columnFromArray(names, f.utf8());
    const type = f.dictionary(column.type, f.int8());
    dictionaries[name] = { names, column, type };
    return f.field(name, type, nullable);
  };
  const fields = [
    topicField(f, []).field, // each table's own (toArrow)
    f.field('partition', f.int32(), false),
    f.field('offset', f.int64(), false),
    f.field('timestamp', f.timestamp(f.TimeUnit.MILLISECOND, 'UTC'), true),
    dictionaryField('timestamp_type', namesOf('timestampType'), false),
    f.field('key', f.binaryView(), true),
    f.field('value', f.binaryView(), true),
    f.field('headers', f.list(f.field('item', f.struct([f.field('key', f.utf8View(), false), f.field('value', f.binaryView(), true)]), false)), false),
    f.field('leader_epoch', f.int32(), false),
    dictionaryField('compression', namesOf('compression'), false),
    f.field('producer_id', f.int64(), false),
    f.field('is_transactional', f.bool(), false),
    f.field('is_control', f.bool(), false),
    dictionaryField('control_type', [...contract.controlTypes, 'UNKNOWN'], true),
    f.field('is_aborted', f.bool(), false),
  ];
  const decodedFields = [f.field('key_decoded', f.utf8View(), true), f.field('value_decoded', f.utf8View(), true)];
  built = { f, fields, decodedFields, dictionaries, index: new Map(fields.map((field, i) => [field.name, i])) };
  return built;
}

/** The topic field of a table whose records are of `topics` (their dictionary, in that order). */
export function topicField(f, topics) {
  const column = f.columnFromArray(topics, f.utf8());
  return { field: f.field('topic', f.dictionary(column.type, f.int32()), false), column };
}

/**
 * A batch of field `field` with `n` values: `p` holds its buffers (values, offsets, data, children)
 * and, with nulls, validity and nullCount. (Its properties are read one by one: an object spread
 * here took most of a partition's time.)
 */
export function batchOf(f, field, n, p) {
  const batch = new (f.batchType(field.type))({
    type: field.type,
    length: n,
    nullCount: p.nullCount ?? 0,
    validity: p.validity ?? NO_BYTES,
    values: p.values,
    offsets: p.offsets,
    children: p.children,
    data: p.data,
  });
  const dictionary = p.dictionary ?? built.dictionaries[field.name]?.column;
  return dictionary && field.type.typeId === f.Type.Dictionary ? batch.setDictionary(dictionary) : batch;
}

export const NO_BYTES = new Uint8Array(0);
