// How avsc's types read, for untrusted bytes: compileAvro builds its types through this hook, which
// changes the reading of records, maps, arrays and ambiguous unions (nothing else):
//   - records, maps and wrapped unions are plain objects whose members are all their own: a field or
//     key named `__proto__` is data, never the object's prototype; a record is not an instance of a
//     class of avsc's;
//   - an array's or map's item count is checked against the bytes left before any item is read (avsc
//     reads on past the end and only checks at the end: a count of 2^62 in 9 bytes ran for hours);
//     items that take no bytes at all (null, an empty record) count against MAX_EMPTY_ITEMS per value;
//   - a record that can hold itself (a list, a tree) nests at most MAX_NESTING deep (any other
//     nesting is the schema's own).
// A value past a bound throws ValueLimitError (code LIMIT); a count past the bytes left, an Error
// (the bytes do not hold it: code DECODE).

import { MAX_EMPTY_ITEMS, MAX_NESTING, ValueLimitError, setOwn } from './limits.mjs';

// what one value has used so far (decoding is synchronous: one value at a time)
const budget = { empty: 0, depth: 0 };

/** Starts a value's budget afresh (before each value). */
export function resetBudget() {
  budget.empty = MAX_EMPTY_ITEMS;
  budget.depth = 0;
}

/**
 * A typeHook for avsc's Type.forSchema (after `inner`, the hook of other options, if any): records,
 * maps, arrays and unions built as the classes below.
 */
export function boundedTypeHook({ Type, types }, inner) {
  const classes = boundedClasses(types);
  const hook = (schema, opts) => {
    const own = inner?.(schema, opts);
    if (own) return own;
    if (Array.isArray(schema)) {
      // the union avsc would make of the same branches (wrapped where they are ambiguous)
      const branches = schema.map((s) => Type.forSchema(s, opts));
      const union = Type.forSchema(branches, { ...opts, typeHook: undefined });
      return union instanceof types.WrappedUnionType ? new classes.WrappedUnion(branches, opts) : union;
    }
    if (schema === null || typeof schema !== 'object') return undefined;
    if (schema.type === 'record' || schema.type === 'error') return new classes.Record(schema, opts);
    if (schema.type === 'map') return new classes.Map(schema, opts);
    if (schema.type === 'array') return new classes.Array(schema, opts);
    return undefined;
  };
  return hook;
}

/**
 * @param {Record<string, any>} types avsc's type classes
 * @returns {Record<'Record' | 'Array' | 'Map' | 'WrappedUnion', new (schema: any, opts: object) => object>}
 */
function boundedClasses(types) {
  class Record extends types.RecordType {
    // called by avsc's constructor: the reader of this record's fields, in order, into a plain object
    _createReader() {
      const record = this;
      let read = null;
      // made at the first read, when every type the fields name is complete
      return (tap) => {
        read ??= recordReader(record);
        return read(tap);
      };
    }
  }

  class Array_ extends types.ArrayType {
    _read(tap) {
      const items = this.itemsType;
      const width = minWidth(items);
      const out = [];
      for (let n = tap.readLong(); n; n = tap.readLong()) {
        if (n < 0) {
          n = -n;
          tap.skipLong(); // the block's size in bytes
        }
        checkCount(tap, n, width, 'an array');
        for (let i = 0; i < n; i++) out.push(items._read(tap));
      }
      return out;
    }
  }

  class Map_ extends types.MapType {
    _read(tap) {
      const values = this.valuesType;
      const width = 1 + minWidth(values); // a key takes a byte at least (its length)
      const out = {};
      for (let n = tap.readLong(); n; n = tap.readLong()) {
        if (n < 0) {
          n = -n;
          tap.skipLong();
        }
        checkCount(tap, n, width, 'a map');
        for (let i = 0; i < n; i++) {
          const key = tap.readString();
          setOwn(out, key, values._read(tap));
        }
      }
      return out;
    }
  }

  // a union whose branches are the same kind of JS value: { branchName: value } (null for null)
  class WrappedUnion extends types.WrappedUnionType {
    _read(tap) {
      const index = tap.readLong();
      const type = this.types[index];
      if (!type) throw new Error(`invalid union index ${index} at byte ${tap.pos}`);
      const name = type.branchName;
      if (name === 'null') return null;
      const out = {};
      setOwn(out, name, type._read(tap));
      return out;
    }
  }

  return { Record, Array: Array_, Map: Map_, WrappedUnion };
}

/**
 * The reader of `record`'s fields into a plain object. Compiled, as avsc compiles its own (an object
 * literal of the fields in order), unless a field is named __proto__, which a literal would take for
 * the object's prototype. Only a record that can hold itself counts its nesting: the depth of any
 * other is the schema's own.
 */
function recordReader(record) {
  const names = record.fields.map((f) => f.name);
  const fieldTypes = record.fields.map((f) => f.type);
  const recursive = holds(record, record);
  let read;
  if (names.includes('__proto__')) {
    read = (tap) => {
      const out = {};
      for (let i = 0; i < names.length; i++) setOwn(out, names[i], fieldTypes[i]._read(tap));
      return out;
    };
  } else {
    // eslint-disable-next-line no-new-func
    read = new Function('types', `return function (tap) { return { ${names.map((n, i) => `${JSON.stringify(n)}: types[${i}]._read(tap)`).join(', ')} }; };`)(
      fieldTypes,
    );
  }
  if (!recursive) return read;
  return (tap) => {
    enter(tap);
    const out = read(tap);
    budget.depth--;
    return out;
  };
}

/** Whether a value of `type` can hold a value of `target` (records, arrays, maps, unions, logical types followed). */
function holds(type, target, seen = new Set()) {
  for (const inner of innerTypes(type)) {
    if (inner === target) return true;
    if (seen.has(inner)) continue;
    seen.add(inner);
    if (holds(inner, target, seen)) return true;
  }
  return false;
}

function innerTypes(type) {
  if (type.fields) return type.fields.map((f) => f.type);
  if (type.itemsType) return [type.itemsType];
  if (type.valuesType) return [type.valuesType];
  if (type.types) return type.types;
  if (type.underlyingType) return [type.underlyingType];
  return [];
}

function enter(tap) {
  if (++budget.depth > MAX_NESTING) throw new ValueLimitError(`a record nested in itself more than ${MAX_NESTING} deep (at byte ${tap.pos})`);
}

/** Refuses `n` items of at least `width` bytes each where fewer bytes are left, and empty items past the budget. */
function checkCount(tap, n, width, what) {
  if (width > 0) {
    const left = tap.buf.length - tap.pos;
    if (n > left / width) throw new RangeError(`${what} of ${n} items at byte ${tap.pos}, where ${Math.max(0, left)} bytes are left`);
    return;
  }
  budget.empty -= n;
  if (budget.empty < 0) throw new ValueLimitError(`more than ${MAX_EMPTY_ITEMS} items that take no bytes (${what} of ${n} at byte ${tap.pos})`);
}

// The fewest bytes a value of each type takes: counts, lengths, indexes and numbers one varint byte at least.
const WIDTH = { null: 0, boolean: 1, int: 1, long: 1, float: 4, double: 8, bytes: 1, string: 1, enum: 1, array: 1, map: 1 };
const widths = new WeakMap();

function minWidth(type, inProgress = new Set()) {
  let w = widths.get(type);
  if (w !== undefined) return w;
  const name = type.typeName;
  if (Object.hasOwn(WIDTH, name)) w = WIDTH[name];
  else if (name === 'fixed') w = type.size;
  else if (name.startsWith('union')) w = 1;
  else if (name.startsWith('abstract'))
    w = 1; // a long read by another class (BigInts)
  else if (name === 'record' || name === 'error') {
    // a record inside itself (through other records) is counted as taking nothing: the safe side
    if (inProgress.has(type)) return 0;
    inProgress.add(type);
    w = type.fields.reduce((sum, f) => sum + minWidth(f.type, inProgress), 0);
    inProgress.delete(type);
  } else if (type.underlyingType) w = minWidth(type.underlyingType, inProgress);
  else w = 0;
  widths.set(type, w);
  return w;
}
