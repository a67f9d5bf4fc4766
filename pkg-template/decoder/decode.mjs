// Decoding: FetchDecoder and the two calls it makes, each one call into wasm whose metadata and
// columns become a result.

import { Columns } from './columns.mjs';
import { decodeCall, requireWasm } from './engine.mjs';
import { parseOptions, toBytes } from './options.mjs';
import { recordSetResult, responseResult } from './results.mjs';

/** One call into wasm; the metadata and the columns. */
function decodeWith(input, recordSet, o) {
  const meta = decodeCall(input, recordSet, o);
  return { meta, columns: Columns.fromWasm(input, meta, o.bigint, o.transient) };
}

/**
 * A decoder. Every FetchDecoder of a module instance shares one wasm-side decoder (its arena and
 * buffers), so creating many costs nothing; the plain functions use one too.
 */
export class FetchDecoder {
  #freed = false;

  constructor() {
    requireWasm();
  }

  /** Decodes a FetchResponse frame (the bytes after the 4-byte size prefix). */
  decodeFetchResponse(frame, options) {
    this.#check();
    const o = parseOptions(options, false);
    const { meta, columns } = decodeWith(toBytes(frame), false, o);
    return responseResult(meta.response, columns, o);
  }

  /** Decodes a bare record set: one partition's records, or a log segment file. */
  decodeRecordSet(bytes, options) {
    this.#check();
    const o = parseOptions(options, true);
    const { meta, columns } = decodeWith(toBytes(bytes), true, o);
    return recordSetResult(meta.recordSet, columns, o);
  }

  /** Ends this decoder: later calls throw. (Its wasm memory is shared; nothing else to release.) */
  free() {
    this.#freed = true;
  }

  #check() {
    if (this.#freed) throw new Error('kafka-fetch-decoder: this FetchDecoder was freed; create a new one');
  }
}

let shared = null;
const sharedDecoder = () => (shared ??= new FetchDecoder());

/** Decodes a FetchResponse frame. */
export function decodeFetchResponse(frame, options) {
  return sharedDecoder().decodeFetchResponse(frame, options);
}

/** Decodes a raw record set (a partition's records or a .log segment). */
export function decodeRecordSet(bytes, options) {
  return sharedDecoder().decodeRecordSet(bytes, options);
}
