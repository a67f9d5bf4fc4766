// Batch objects: one per record batch (or legacy message entry), shared by its records, built from
// the call's two batch columns by the contract's batch fields.

import { jsonInt64 } from './bytes.mjs';

/**
 * One batch, shared by its records. Its fields are the contract's batch fields (BATCH_FIELDS in
 * src/js/contract.rs), in that order, written by name in the constructor: added by computed name
 * one by one, they cost a 10,000-partition response 12% of its decode, and fields the constructor
 * writes are kept inside the object (no separate property store). `batchLayoutOf` holds them to the
 * contract of the module loaded. `new Batch()` is an empty one (fromTransferable fills it).
 */
export class Batch {
  /** The batch whose int64 fields start at `int64[l]` and the others at `int32[s]`. */
  constructor(int64, l, int32, s, names) {
    if (int64 === undefined) return;
    this.baseOffset = int64[l];
    this.lastOffset = int64[l + 1];
    this.partitionLeaderEpoch = int32[s];
    this.producerId = int64[l + 2];
    this.producerEpoch = int32[s + 1];
    this.baseSequence = int32[s + 2];
    this.isTransactional = int32[s + 3] !== 0;
    this.isControl = int32[s + 4] !== 0;
    this.isAborted = int32[s + 5] !== 0;
    this.hasDeleteHorizon = int32[s + 6] !== 0;
    this.compression = names.compression[int32[s + 7]];
    this.timestampType = names.timestampType[int32[s + 8]];
    this.magic = int32[s + 9];
    const crcValid = int32[s + 10];
    this.crcValid = crcValid === 0 ? null : crcValid === 1;
    this.baseTimestamp = int64[l + 3];
    this.maxTimestamp = int64[l + 4];
    this.recordCount = int32[s + 11];
    this.sizeInBytes = int32[s + 12];
    this.uncompressedSize = int32[s + 13];
    this.position = int32[s + 14];
  }

  toJSON() {
    const out = {};
    for (const k of Object.keys(this)) out[k] = jsonInt64(this[k]);
    return out;
  }
}

/**
 * The batch columns' layout in a contract's batch fields, once Batch is held to them: a batch made
 * from columns of zeros has the contract's fields in its order, each what its type makes of a 0, and
 * setting any one slot of either column to 1 changes exactly the field the contract puts there, to what
 * its type makes of a 1 (bool and nullableBool differ at 0: false and null). A JS layer and a wasm
 * module from different builds fail here, at load.
 */
export function batchLayoutOf(fields) {
  const int64Fields = fields.filter((f) => f.type === 'int64');
  const int32Fields = fields.filter((f) => f.type !== 'int64');
  const names = Object.fromEntries(fields.filter((f) => f.type === 'name').map((f) => [f.name, f.names]));
  const batchOf = (one64, one32) =>
    new Batch(
      int64Fields.map((_, i) => (i === one64 ? 1 : 0)),
      0,
      Int32Array.from(int32Fields, (_, i) => (i === one32 ? 1 : 0)),
      0,
      names,
    );
  // what the contract's type makes of a column value v (0 or 1)
  const valueOf = (f, v) => {
    switch (f.type) {
      case 'int64':
      case 'int32':
        return v;
      case 'bool':
        return v !== 0;
      case 'nullableBool':
        return v === 0 ? null : v === 1;
      case 'name':
        return f.names?.[v];
      default:
        return Symbol(f.type);
    }
  };
  const zero = batchOf(-1, -1);
  const fits = (probe, field) => {
    const changed = Object.keys(probe).filter((k) => !Object.is(probe[k], zero[k]));
    return changed.length === 1 && changed[0] === field.name && Object.is(probe[field.name], valueOf(field, 1));
  };
  const ok =
    Object.keys(zero).join() === fields.map((f) => f.name).join() &&
    fields.every((f) => Object.is(zero[f.name], valueOf(f, 0))) &&
    int64Fields.every((f, i) => fits(batchOf(i, -1), f)) &&
    int32Fields.every((f, i) => fits(batchOf(-1, i), f));
  if (!ok) throw new Error("kafka-fetch-decoder: the wasm module's batch fields differ from this JS (files from different builds)");
  return { int64PerBatch: int64Fields.length, int32PerBatch: int32Fields.length, names };
}

/** One Batch per batch of a call, from its two batch columns read by `layout` (batchLayoutOf). */
export function makeBatches(int64, int32, layout) {
  const { int64PerBatch, int32PerBatch, names } = layout;
  const n = int32.length / int32PerBatch;
  const batches = new Array(n);
  for (let b = 0; b < n; b++) batches[b] = new Batch(int64, b * int64PerBatch, int32, b * int32PerBatch, names);
  return batches;
}
